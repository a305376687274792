// NVRTC through CudaBackend::compile, with no GPU and no driver: compile-only
// machines (CI, build hosts) must be able to produce cubins and PTX.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/ptx_entry_parser.hpp"
#include "cudakit/error.hpp"
#include "platform/nvrtc_library.hpp"
#include "unit/cuda_test_util.hpp"

namespace cudakit {
namespace {

using test::contains;

const char* const kVecAdd = R"(
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

detail::CompileRequest request_for(std::string source, std::string arch) {
  detail::CompileRequest request;
  request.source = std::move(source);
  request.options.arch = std::move(arch);
  return request;
}

bool is_elf(const std::vector<std::uint8_t>& image) {
  return image.size() > 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' &&
         image[3] == 'F';
}

class CudaCompile : public ::testing::Test {
 protected:
  detail::CudaBackend backend;  // never touches the driver for compile()
};

TEST_F(CudaCompile, VecAddToCubinForSm90KeepsThePtxToo) {
  CompiledCode code = backend.compile(request_for(kVecAdd, "sm_90"));
  EXPECT_EQ(code.format, CodeFormat::cubin);
  EXPECT_EQ(code.arch, "sm_90");
  EXPECT_TRUE(is_elf(code.image));
  EXPECT_TRUE(contains(code.ptx, ".entry vec_add")) << code.ptx;
  EXPECT_EQ(detail::ptx_target(code.ptx), "sm_90");
}

TEST_F(CudaCompile, VecAddToPtxForCompute90) {
  CompiledCode code = backend.compile(request_for(kVecAdd, "compute_90"));
  EXPECT_EQ(code.format, CodeFormat::ptx);
  EXPECT_EQ(code.arch, "compute_90");
  ASSERT_FALSE(code.image.empty());
  EXPECT_EQ(code.image.back(), 0u) << "PTX images are NUL-terminated for the driver";
  EXPECT_TRUE(contains(code.ptx, ".entry vec_add"));
  EXPECT_EQ(std::string(code.image.begin(), code.image.end() - 1), code.ptx);
}

TEST_F(CudaCompile, PtxOnlyOptionEmitsPtxForAnSmArch) {
  detail::CompileRequest request = request_for(kVecAdd, "sm_90");
  request.options.ptx_only = true;
  CompiledCode code = backend.compile(request);
  EXPECT_EQ(code.format, CodeFormat::ptx);
  EXPECT_EQ(code.arch, "compute_90");
}

TEST_F(CudaCompile, LtoIrOptionEmitsNvrtcLtoIr) {
  const GpuCompilerInfo info = backend.gpu_compiler_info();
  EXPECT_GE(info.major, 11);
  EXPECT_TRUE(std::is_sorted(info.archs.begin(), info.archs.end()));
  EXPECT_FALSE(info.path.empty());
  if (!info.lto_ir) GTEST_SKIP() << "this NVRTC has no nvrtcGetLTOIR";
  detail::CompileRequest request =
      request_for("extern \"C\" __device__ int twice(int x) { return 2 * x; }", "compute_90");
  request.options.lto_ir = true;
  request.options.extra_flags = {"-rdc=true"};
  CompiledCode code = backend.compile(request);
  EXPECT_EQ(code.format, CodeFormat::ltoir);
  ASSERT_GE(code.image.size(), 4u);
  // NVRTC's LTO-IR starts with 0x7F4E43ED (little-endian).
  EXPECT_EQ(code.image[0], 0xED);
  EXPECT_EQ(code.image[1], 0x43);
  EXPECT_EQ(code.image[2], 0x4E);
  EXPECT_EQ(code.image[3], 0x7F);
  EXPECT_EQ(to_string(code.format), "ltoir");
}

TEST_F(CudaCompile, NameExpressionsAreLoweredToMangledSymbols) {
  detail::CompileRequest request = request_for(R"(
template <typename T>
__global__ void scale(T* data, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
})",
                                               "sm_90");
  request.options.name_expressions = {"scale<float>", "scale<double>"};
  CompiledCode code = backend.compile(request);
  ASSERT_EQ(code.lowered_names.size(), 2u);
  EXPECT_EQ(code.lowered_names[0].first, "scale<float>");
  EXPECT_EQ(code.lowered_names[0].second, "_Z5scaleIfEvPT_S0_i");
  EXPECT_EQ(code.lowered_names[1].second, "_Z5scaleIdEvPT_S0_i");
  EXPECT_TRUE(contains(code.ptx, ".entry _Z5scaleIfEvPT_S0_i"));
}

TEST_F(CudaCompile, UnknownNameExpressionIsAnError) {
  detail::CompileRequest request = request_for(kVecAdd, "sm_90");
  request.options.name_expressions = {"no_such_kernel<int>"};
  EXPECT_THROW(backend.compile(request), Error);
}

TEST_F(CudaCompile, WarningsAreKeptOnSuccess) {
  CompiledCode code = backend.compile(request_for(R"(
extern "C" __global__ void k(float* out) {
  int unused_variable = 3;
  out[0] = 1.0f;
})",
                                                  "sm_90"));
  EXPECT_TRUE(contains(code.log, "unused_variable")) << code.log;
  EXPECT_TRUE(contains(code.log, "warning")) << code.log;
}

TEST_F(CudaCompile, SyntaxErrorThrowsCompileErrorWithNvrtcLog) {
  detail::CompileRequest request = request_for(R"(
extern "C" __global__ void broken(float* out) {
  out[0] = undeclared_name;
})",
                                               "sm_90");
  request.source_name = "broken.cu";
  try {
    backend.compile(request);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.log(), "undeclared_name")) << e.log();
    EXPECT_TRUE(contains(e.log(), "broken.cu")) << e.log();
    EXPECT_EQ(e.code_name(), "NVRTC_ERROR_COMPILATION");
    EXPECT_EQ(e.source(), request.source);
    EXPECT_TRUE(contains(e.context(), "sm_90")) << e.context();
    EXPECT_TRUE(contains(e.what(), "undeclared_name"));
  }
}

TEST_F(CudaCompile, InvalidFlagThrowsCompileErrorListingTheOptions) {
  detail::CompileRequest request = request_for(kVecAdd, "sm_90");
  request.options.extra_flags = {"--no-such-flag"};
  try {
    backend.compile(request);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.code_name(), "NVRTC_ERROR_INVALID_OPTION");
    EXPECT_TRUE(contains(e.hint(), "--no-such-flag")) << e.hint();
  }
}

TEST_F(CudaCompile, InMemoryHeadersAreIncluded) {
  detail::CompileRequest request = request_for(R"(
#include "my_math.cuh"
extern "C" __global__ void k(float* out) { out[0] = twice(out[0]); })",
                                               "sm_90");
  request.options.headers = {{"my_math.cuh", "__device__ float twice(float x) { return 2 * x; }"}};
  EXPECT_NO_THROW(backend.compile(request));
}

TEST_F(CudaCompile, DefinesReachTheSource) {
  const char* source = R"(
#if !defined(BLOCK) || BLOCK != 128 || !defined(FLAG)
#error defines missing
#endif
extern "C" __global__ void k(float* out) { out[0] = BLOCK; })";
  detail::CompileRequest request = request_for(source, "sm_90");
  request.options.defines = {{"BLOCK", "128"}, {"FLAG", ""}};
  EXPECT_NO_THROW(backend.compile(request));
  EXPECT_THROW(backend.compile(request_for(source, "sm_90")), CompileError);
}

TEST_F(CudaCompile, ToolkitHeadersLikeCudaFp16AreFound) {
  EXPECT_NO_THROW(backend.compile(request_for(R"(
#include <cuda_fp16.h>
extern "C" __global__ void k(__half* out, float x) { out[0] = __float2half(x); })",
                                              "sm_90")));
}

TEST_F(CudaCompile, IncludeDirectoriesAreSearched) {
  test::ScratchDir dir;
  {
    std::FILE* f = std::fopen((dir.str() + "/from_dir.cuh").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("#define FROM_DIR 7\n", f);
    std::fclose(f);
  }
  detail::CompileRequest request = request_for(R"(
#include "from_dir.cuh"
extern "C" __global__ void k(int* out) { out[0] = FROM_DIR; })",
                                               "sm_90");
  request.options.include_dirs = {dir.str()};
  EXPECT_NO_THROW(backend.compile(request));
}

TEST_F(CudaCompile, DebugAndLineInfoAndFastMathCompile) {
  detail::CompileRequest request = request_for(kVecAdd, "sm_90");
  request.options.debug = true;
  request.options.fast_math = true;
  CompiledCode debug = backend.compile(request);
  EXPECT_TRUE(is_elf(debug.image));
  request.options.debug = false;
  request.options.line_info = true;
  CompiledCode line_info = backend.compile(request);
  EXPECT_TRUE(contains(line_info.ptx, ".loc")) << "-lineinfo puts .loc directives in the PTX";
}

TEST_F(CudaCompile, StandardIsPassed) {
  detail::CompileRequest request = request_for(R"(
#if __cplusplus < 202002L
#error not C++20
#endif
extern "C" __global__ void k(int* out) { out[0] = 1; })",
                                               "sm_90");
  request.options.std = "c++20";
  EXPECT_NO_THROW(backend.compile(request));
  request.options.std = "c++17";
  EXPECT_THROW(backend.compile(request), CompileError);
}

TEST_F(CudaCompile, ArchUnknownToNvrtcFallsBackToTheNewestPtx) {
  const auto& archs = detail::nvrtc().archs;
  ASSERT_FALSE(archs.empty());
  const int beyond = archs.back() + 900;  // an arch no NVRTC of today knows
  CompiledCode code = backend.compile(request_for(kVecAdd, "sm_" + std::to_string(beyond)));
  EXPECT_EQ(code.format, CodeFormat::ptx);
  EXPECT_EQ(code.arch, "compute_" + std::to_string(archs.back()));
  EXPECT_TRUE(contains(code.log, "does not know")) << code.log;
}

TEST_F(CudaCompile, ArchOlderThanAnyNvrtcKnowsIsNotSupported) {
  EXPECT_THROW(backend.compile(request_for(kVecAdd, "sm_10")), NotSupported);
}

TEST_F(CudaCompile, MalformedArchIsAnArgumentError) {
  EXPECT_THROW(backend.compile(request_for(kVecAdd, "gfx90a")), ArgumentError);
  EXPECT_THROW(backend.compile(request_for(kVecAdd, "sm_")), ArgumentError);
  EXPECT_THROW(backend.compile(request_for(kVecAdd, "sm_90x")), ArgumentError);
}

TEST_F(CudaCompile, ArchSpecificSuffixIsKept) {
  CompiledCode code = backend.compile(request_for(kVecAdd, "sm_90a"));
  EXPECT_EQ(code.arch, "sm_90a");
  EXPECT_TRUE(is_elf(code.image));
}

TEST(CudaCompileFactory, BackendFromTheFactoryCompilesWithoutTouchingTheDriver) {
  auto backend = detail::make_cuda_backend();
  CompiledCode code = backend->compile(request_for(kVecAdd, "sm_90"));
  EXPECT_TRUE(is_elf(code.image));
  EXPECT_EQ(backend->kind(), BackendKind::cuda);
}

TEST_F(CudaCompile, CompilerIdentityNamesTheNvrtcFileItWouldLoad) {
  // Identified by file (path, size, mtime) so a cache hit need not load NVRTC.
  const detail::Nvrtc& api = detail::nvrtc();
  const std::string identity = backend.compiler_identity();
  EXPECT_EQ(identity.rfind("nvrtc ", 0), 0u) << identity;
  char real[4096];
  ASSERT_NE(::realpath(api.path.c_str(), real), nullptr);
  EXPECT_NE(identity.find(real), std::string::npos) << identity << " vs " << real;
  EXPECT_EQ(identity, backend.compiler_identity());
}

TEST_F(CudaCompile, CompiledLayoutComesFromThePtx) {
  CompiledCode code = backend.compile(request_for(kVecAdd, "sm_90"));
  auto layout = detail::find_ptx_entry(code.ptx, "vec_add");
  ASSERT_TRUE(layout.has_value());
  ASSERT_EQ(layout->params.size(), 4u);
  EXPECT_EQ(layout->params[0].kind, ParamKind::pointer_or_u64);
  EXPECT_EQ(layout->params[3].kind, ParamKind::scalar);
  EXPECT_EQ(layout->params[3].size, 4u);
  EXPECT_EQ(layout->params[3].offset, 24u);
}

}  // namespace
}  // namespace cudakit
