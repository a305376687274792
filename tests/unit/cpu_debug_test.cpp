// CUDAKIT_CPU_DEBUG=1: kernels built with AddressSanitizer report an
// out-of-bounds access with the kernel's file and line. The sanitizer's
// runtime must be loaded before anything else, so the test runs the kernel
// in a child process (this same program) started with it preloaded.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cpu_test_util.hpp"
#include "cudakit/error.hpp"
#include "unit/child_process.hpp"

namespace cudakit::test {
namespace {

// Line 4 writes one element past the end (`<=`): the planted bug.
const char* kPlanted = R"(// planted.cu
__global__ void planted(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) data[i] = 1.0f;
}
)";

std::string run_command(const std::string& command) { return ::test::run_process(command).output; }
using ::test::self_path;

// The child: compiles and runs the planted kernel under the sanitizer.
TEST(CpuDebugChild, RunsThePlantedKernel) {
  if (!std::getenv("CUDAKIT_TEST_ASAN_CHILD")) GTEST_SKIP() << "runs only as the child of CpuDebug";
  CompileOptions options;
  options.arch = "cpu";
  detail::CompileRequest request;
  request.source = prepare_source(kPlanted, options);
  request.source_name = "planted.cu";
  request.options = options;
  CompiledCode code = cpu().compile(request);
  auto module = cpu().load_module(0, code);
  const int n = 64;  // 256 bytes: the allocation ends exactly at data[n]
  detail::DevicePtr data = cpu().allocate(0, n * sizeof(float));
  void* args[] = {&data, const_cast<int*>(&n)};
  cpu().launch(cpu().get_kernel(module, "planted"), "planted", Dim3(1), Dim3(128), 0, nullptr,
               args);
  cpu().synchronize(0);
  std::puts("child finished without a report");
}

TEST(CpuDebug, OutOfBoundsWriteIsReportedWithItsKernelLine) {
  std::string libasan = run_command("c++ -print-file-name=libasan.so 2>/dev/null");
  while (!libasan.empty() && (libasan.back() == '\n' || libasan.back() == ' ')) libasan.pop_back();
  if (libasan.empty() || libasan == "libasan.so") GTEST_SKIP() << "the compiler has no libasan";
  std::string command =
      "CUDAKIT_TEST_ASAN_CHILD=1 CUDAKIT_CPU_DEBUG=1 ASAN_OPTIONS=detect_leaks=0 "
      "LD_PRELOAD=" +
      libasan + " " + self_path() + " --gtest_filter=CpuDebugChild.RunsThePlantedKernel 2>&1";
  std::string out = run_command(command);
  EXPECT_TRUE(contains(out, "heap-buffer-overflow")) << out;
  EXPECT_TRUE(contains(out, "planted.cu:4")) << out;
  EXPECT_FALSE(contains(out, "child finished without a report")) << out;
}

TEST(CpuDebug, SanitizedModuleInAPlainProcessIsRefusedWithTheFix) {
  if (std::getenv("CUDAKIT_TEST_ASAN_CHILD")) GTEST_SKIP();
  CompiledCode code;
  code.format = CodeFormat::host_object;
  std::string marker =
      "\x7f"
      "ELF....libasan.so.8";
  code.image.assign(marker.begin(), marker.end());
  try {
    cpu().load_module(0, code);
    FAIL() << "expected NotSupported";
  } catch (const NotSupported& e) {
    EXPECT_TRUE(contains(e.hint(), "LD_PRELOAD")) << e.what();
  }
}

}  // namespace
}  // namespace cudakit::test
