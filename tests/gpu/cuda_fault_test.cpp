// A kernel that writes out of bounds: the fault must surface as KernelFault
// naming that kernel. The fault destroys the CUDA context, so this runs in an
// executable of its own.
#include <gtest/gtest.h>

#include <algorithm>

#include "backend/backend.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

TEST(CudaFault, OutOfBoundsWriteIsAKernelFaultNamingTheKernel) {
  if (!backend_available(BackendKind::cuda))
    GTEST_SKIP() << "no CUDA device: the driver is missing or reports no GPU";
  detail::Backend& b = detail::backend(BackendKind::cuda);
  b.make_current(0);
  detail::CompileRequest request;
  request.source = R"(
extern "C" __global__ void write_out_of_bounds(int* p, unsigned long long offset) {
  p[offset + threadIdx.x] = 42;
})";
  request.options.arch = b.default_arch(0);
  void* module = b.load_module(0, b.compile(request));
  void* kernel = b.get_kernel(module, "write_out_of_bounds");
  void* stream = b.create_stream(0, true);

  // Address 0x10: the null page is never mapped on the device.
  detail::DevicePtr bad = 0x10;
  unsigned long long offset = 0;
  void* args[] = {&bad, &offset};
  b.launch(kernel, "write_out_of_bounds", Dim3(1), Dim3(32), 0, stream, args);
  try {
    b.synchronize_stream(stream);
    FAIL() << "the out-of-bounds write did not fault";
  } catch (const KernelFault& e) {
    EXPECT_NE(std::find(e.kernels().begin(), e.kernels().end(), "write_out_of_bounds"),
              e.kernels().end())
        << e.what();
    EXPECT_NE(std::string(e.what()).find("write_out_of_bounds"), std::string::npos);
    EXPECT_NE(std::string(e.hint()).find("compute-sanitizer"), std::string::npos);
    EXPECT_TRUE(e.code_name() == "CUDA_ERROR_ILLEGAL_ADDRESS" ||
                e.code_name() == "CUDA_ERROR_LAUNCH_FAILED")
        << e.code_name();
  }
  // The context is lost: later calls report the same fault, still naming the kernel.
  try {
    b.synchronize(0);
    FAIL() << "the context survived a kernel fault";
  } catch (const KernelFault& e) {
    EXPECT_NE(std::find(e.kernels().begin(), e.kernels().end(), "write_out_of_bounds"),
              e.kernels().end())
        << e.what();
  }
}

}  // namespace
}  // namespace cudakit
