// compile_only through the real NVRTC: no GPU or driver needed, only the
// toolkit. Skips with a reason where NVRTC cannot be loaded.
#include <gtest/gtest.h>

#include <string>

#include "cudakit/backend_kind.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"

namespace cudakit {
namespace {

CompileOptions sm90() {
  CompileOptions options;
  options.arch = "sm_90";
  options.use_cache = false;
  return options;
}

// Runs `body`, turning a missing NVRTC into a skip.
#define SKIP_WITHOUT_NVRTC(body)                                    \
  try {                                                             \
    body;                                                           \
  } catch (const NvrtcNotFound& e) {                                \
    GTEST_SKIP() << "NVRTC is not installed here: " << e.message(); \
  }

TEST(CompileOnlyWithNvrtc, CompileErrorShowsTheUsersNumberedLine) {
  const std::string source = "__global__ void broken(float* x) {\n  int i = 0;\n  oops;\n}\n";
  SKIP_WITHOUT_NVRTC({
    try {
      compile_only(source, sm90(), BackendKind::cuda);
      FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
      std::string what = e.what();
      EXPECT_NE(e.log().find("kernel.cu(3): error"), std::string::npos) << e.log();
      EXPECT_NE(what.find(">>3 |   oops;"), std::string::npos) << what;
      EXPECT_NE(what.find("  2 |   int i = 0;"), std::string::npos) << what;
      EXPECT_EQ(e.source(), source);
    }
  });
}

TEST(CompileOnlyWithNvrtc, ProducesACubinForTheGivenArch) {
  SKIP_WITHOUT_NVRTC({
    auto code = compile_only("__global__ void k(float* x, int n) { if (n) x[0] = 1.0f; }", sm90(),
                             BackendKind::cuda);
    EXPECT_EQ(code.format, CodeFormat::cubin);
    EXPECT_EQ(code.arch, "sm_90");
    EXPECT_FALSE(code.image.empty());
  });
}

TEST(CompileOnlyWithNvrtc, NameExpressionsAreLowered) {
  CompileOptions options = sm90();
  options.no_extern_c = true;
  options.name_expressions = {"axpy<double>"};
  SKIP_WITHOUT_NVRTC({
    auto code =
        compile_only("template <typename T> __global__ void axpy(T a, const T* x, T* y, int n) {}",
                     options, BackendKind::cuda);
    ASSERT_EQ(code.lowered_names.size(), 1u);
    EXPECT_EQ(code.lowered_names[0].first, "axpy<double>");
    EXPECT_EQ(code.lowered_names[0].second, "_Z4axpyIdEvT_PKS0_PS0_i");
  });
}

TEST(CompileOnlyWithNvrtc, WithoutAGpuTheArchMustBeGiven) {
  if (backend_available(BackendKind::cuda)) GTEST_SKIP() << "a GPU is present: its arch is used";
  EXPECT_THROW(compile_only("__global__ void k() {}", CompileOptions{}, BackendKind::cuda),
               ArgumentError);
}

}  // namespace
}  // namespace cudakit
