// CUresult -> exception mapping, and the launch history that lets a fault
// name the kernels in flight. Neither needs a GPU.
#include "backend/cuda/cuda_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>

#include "backend/cuda/launch_history.hpp"
#include "cudakit/error.hpp"
#include "unit/cuda_test_util.hpp"

namespace cudakit {
namespace {

using test::contains;

template <typename Expected>
Expected caught(CUresult result, const std::string& context,
                const std::vector<std::string>& kernels = {}) {
  try {
    detail::throw_cuda_error(result, context, kernels);
  } catch (const Expected& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type for " << result << ": " << e.what();
    throw;
  }
  throw std::logic_error("throw_cuda_error returned");
}

TEST(CudaErrorMapping, EveryKernelFaultCodeIsAKernelFault) {
  for (CUresult code :
       {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_LAUNCH_FAILED,
        CUDA_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_ASSERT, CUDA_ERROR_HARDWARE_STACK_ERROR,
        CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_INVALID_PC, CUDA_ERROR_LAUNCH_TIMEOUT}) {
    EXPECT_TRUE(detail::is_kernel_fault(code)) << code;
    auto e = caught<KernelFault>(code, "synchronizing a stream", {"vec_add"});
    EXPECT_EQ(e.code(), static_cast<int>(code));
  }
}

TEST(CudaErrorMapping, KernelFaultNamesTheKernelsAndSaysHowToFindTheLine) {
  auto e = caught<KernelFault>(CUDA_ERROR_ILLEGAL_ADDRESS, "copying 400 bytes",
                               {"write_out_of_bounds", "vec_add"});
  EXPECT_EQ(e.kernels(), (std::vector<std::string>{"write_out_of_bounds", "vec_add"}));
  EXPECT_EQ(e.code_name(), "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_TRUE(contains(e.what(), "write_out_of_bounds")) << e.what();
  EXPECT_TRUE(contains(e.what(), "copying 400 bytes")) << e.what();
  EXPECT_TRUE(contains(e.hint(), "CUDAKIT_CPU_DEBUG=1")) << e.hint();
  EXPECT_TRUE(contains(e.hint(), "compute-sanitizer")) << e.hint();
  EXPECT_TRUE(contains(e.hint(), "restart the process")) << e.hint();
}

TEST(CudaErrorMapping, KernelFaultWithoutRecordedLaunchesSaysSo) {
  auto e = caught<KernelFault>(CUDA_ERROR_LAUNCH_FAILED, "synchronizing device 0");
  EXPECT_TRUE(e.kernels().empty());
  EXPECT_TRUE(contains(e.message(), "no cudakit launch recorded")) << e.what();
}

TEST(CudaErrorMapping, OutOfMemoryIsOutOfMemory) {
  auto e = caught<OutOfMemory>(CUDA_ERROR_OUT_OF_MEMORY, "allocating scratch");
  EXPECT_EQ(e.code_name(), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_TRUE(contains(e.what(), "allocating scratch"));
}

TEST(CudaErrorMapping, NoBinaryForGpuIsNoKernelImageExplainingTheArch) {
  auto e = caught<NoKernelImage>(CUDA_ERROR_NO_BINARY_FOR_GPU, "loading a module");
  EXPECT_TRUE(contains(e.hint(), "arch")) << e.hint();
  EXPECT_EQ(e.code_name(), "CUDA_ERROR_NO_BINARY_FOR_GPU");
}

TEST(CudaErrorMapping, UnsupportedPtxVersionIsDriverTooOld) {
  auto e = caught<DriverTooOld>(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "loading a module");
  EXPECT_EQ(e.code(), static_cast<int>(CUDA_ERROR_UNSUPPORTED_PTX_VERSION));
  EXPECT_GT(e.required_version(), 0) << "the NVRTC version is the toolkit the driver must support";
  EXPECT_TRUE(contains(e.hint(), "update the NVIDIA driver")) << e.hint();
}

TEST(CudaErrorMapping, InvalidContextAndHandleHintAtMixedContexts) {
  for (CUresult code :
       {CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_CONTEXT_IS_DESTROYED}) {
    auto e = caught<CudaError>(code, "recording an event");
    EXPECT_TRUE(contains(e.hint(), "mixing contexts?")) << code << ": " << e.hint();
  }
}

TEST(CudaErrorMapping, NotInitializedExplainsCuInit) {
  auto e = caught<CudaError>(CUDA_ERROR_NOT_INITIALIZED, "counting devices");
  EXPECT_TRUE(contains(e.hint(), "cuInit")) << e.hint();
  EXPECT_EQ(e.code_name(), "CUDA_ERROR_NOT_INITIALIZED");
}

TEST(CudaErrorMapping, StubLibraryPointsAtTheRealDriver) {
  auto e = caught<CudaError>(CUDA_ERROR_STUB_LIBRARY, "initialising the CUDA driver");
  EXPECT_TRUE(contains(e.hint(), "stub")) << e.hint();
}

TEST(CudaErrorMapping, NotFoundIsAnArgumentError) {
  auto e = caught<ArgumentError>(CUDA_ERROR_NOT_FOUND, "looking up kernel 'x'");
  EXPECT_EQ(e.code_name(), "CUDA_ERROR_NOT_FOUND");
}

TEST(CudaErrorMapping, OtherCodesAreCudaErrorsCarryingCodeAndContext) {
  auto e = caught<CudaError>(CUDA_ERROR_INVALID_VALUE, "setting a limit");
  EXPECT_EQ(e.code(), 1);
  EXPECT_EQ(e.code_name(), "CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(e.context(), "setting a limit");
  EXPECT_TRUE(contains(e.what(), "[CUDA_ERROR_INVALID_VALUE (1)]")) << e.what();
}

TEST(CudaErrorMapping, CheckCudaIsSilentOnSuccess) {
  EXPECT_NO_THROW(detail::check_cuda(CUDA_SUCCESS, "anything"));
  EXPECT_THROW(detail::check_cuda(CUDA_ERROR_INVALID_VALUE, "anything"), CudaError);
}

TEST(LaunchHistory, KeepsTheLastKernelsOfAStreamNewestFirst) {
  detail::LaunchHistory history;
  int stream_tag = 0;
  const void* stream = &stream_tag;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) history.record(stream, name);
  auto names = history.on_stream(stream);
  ASSERT_EQ(names.size(), detail::LaunchHistory::kPerStream);
  EXPECT_EQ(names.front(), "f");
  EXPECT_EQ(names.back(), "c");
}

TEST(LaunchHistory, RepeatedKernelIsNamedOnce) {
  detail::LaunchHistory history;
  for (int i = 0; i < 3; ++i) history.record(nullptr, "step");
  EXPECT_EQ(history.on_stream(nullptr), (std::vector<std::string>{"step"}));
}

TEST(LaunchHistory, AKernelLaunchedAgainKeepsTheEarlierKernelsInView) {
  detail::LaunchHistory history;
  for (const char* name : {"prepare", "step"}) history.record(nullptr, name);
  for (int i = 0; i < 10; ++i) history.record(nullptr, "step");
  EXPECT_EQ(history.on_stream(nullptr), (std::vector<std::string>{"step", "prepare"}));
}

TEST(LaunchHistory, ANameAtTheAddressOfAnEarlierOneIsRecordedByItsText) {
  detail::LaunchHistory history;
  char name[8] = "first";
  history.record(nullptr, name);
  std::strcpy(name, "second");  // another kernel's name where the first one's was
  history.record(nullptr, name);
  EXPECT_EQ(history.on_stream(nullptr), (std::vector<std::string>{"second", "first"}));
}

TEST(LaunchHistory, StreamsAreKeptApart) {
  detail::LaunchHistory history;
  int one = 0, two = 0;
  history.record(&one, "on_one");
  history.record(&two, "on_two");
  auto names = history.on_stream(&one);
  EXPECT_NE(std::find(names.begin(), names.end(), "on_one"), names.end());
  EXPECT_EQ(history.recent().front(), "on_two");
}

TEST(LaunchHistory, LongNamesAreCut) {
  detail::LaunchHistory history;
  const std::string name(500, 'k');
  history.record(nullptr, name.c_str());
  auto names = history.on_stream(nullptr);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], std::string(detail::LaunchHistory::kNameBytes - 1, 'k'));
}

TEST(LaunchHistory, ForgottenStreamHasNoKernels) {
  detail::LaunchHistory history;
  int s = 0;
  history.record(&s, "gone");
  history.forget(&s);
  EXPECT_TRUE(history.on_stream(&s).empty());
}

TEST(LaunchHistory, ConcurrentRecordingKeepsWellFormedNames) {
  detail::LaunchHistory history;
  int s = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const std::string name = "kernel_" + std::to_string(t);
      for (int i = 0; i < 10000; ++i) history.record(&s, name.c_str());
    });
  for (auto& thread : threads) thread.join();
  for (const auto& name : history.on_stream(&s)) EXPECT_EQ(name.rfind("kernel_", 0), 0u) << name;
}

}  // namespace
}  // namespace cudakit
