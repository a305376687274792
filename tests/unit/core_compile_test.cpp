// The compile path over the fake backend: arch resolution, the loaded-module
// cache, and compile errors shown against the user's own source.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cudakit/compile_cache.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "unit/core_fake_backend.hpp"

namespace cudakit {
namespace {

using testing::fake;

class CompilePath : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Before the process-wide cache reads its settings: keep entries out of
    // the user's cache directory.
    // One directory per process: ctest runs tests of this suite in parallel.
    dir() = std::filesystem::path(CUDAKIT_BINARY_DIR) /
            ("core_compile_test_cache." + std::to_string(::getpid()));
    std::filesystem::remove_all(dir());
    ::setenv("CUDAKIT_CACHE_DIR", dir().c_str(), 1);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir()); }
  static std::filesystem::path& dir() {
    static std::filesystem::path path;
    return path;
  }
  void SetUp() override {
    fake().reset();
    testing::FakeKernelSpec k;
    k.symbol = "k";
    k.layout = testing::make_layout({testing::pointer_param()});
    fake().next_module.kernels.push_back(k);
  }
};

TEST_F(CompilePath, ArchDefaultsToTheDevicesOwn) {
  CompileOptions options;
  options.use_cache = false;
  auto module = compile("__global__ void k(float* x) {}", options, Device::get(0));
  EXPECT_EQ(module.code().arch, "cpu");  // the fake's default_arch
  EXPECT_EQ(module.source(), prepare_source("__global__ void k(float* x) {}", options));
}

TEST_F(CompilePath, SameSourceTwiceGivesTheLoadedModule) {
  const int before = fake().loaded_modules();
  auto a = compile("__global__ void k(float* y) { /* cached */ }", {}, Device::get(0));
  auto b = compile("__global__ void k(float* y) { /* cached */ }", {}, Device::get(0));
  EXPECT_EQ(a.native(), b.native());
  EXPECT_EQ(fake().loaded_modules(), before + 1);
}

TEST_F(CompilePath, DifferentOptionsAreDifferentModules) {
  CompileOptions fast;
  fast.fast_math = true;
  auto a = compile("__global__ void k(float* z) {}", {}, Device::get(0));
  auto b = compile("__global__ void k(float* z) {}", fast, Device::get(0));
  EXPECT_NE(a.native(), b.native());
}

TEST_F(CompilePath, CompileErrorShowsTheUsersLineNotTheWrappedOne) {
  CompileOptions options;
  options.use_cache = false;
  const std::string source = "__global__ void k(float* x) {\n  int i = 0;\n  oops;\n}\n";
  try {
    compile(source, options, Device::get(0));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(">>3 |   oops;"), std::string::npos) << what;
    EXPECT_EQ(e.source(), source);
    EXPECT_NE(e.log().find("identifier \"oops\""), std::string::npos);
  }
}

TEST_F(CompilePath, CompileOnlyNeedsNoDeviceWhenTheArchIsGiven) {
  CompileOptions options;
  options.arch = "sm_90";
  options.use_cache = false;
  auto code = compile_only("__global__ void k(float* x) {}", options, BackendKind::cuda);
  EXPECT_EQ(code.arch, "sm_90");
}

}  // namespace
}  // namespace cudakit
