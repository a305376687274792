// CUDA IPC between two processes on one GPU: this program exports a buffer
// and runs itself again as the child process (posix_spawn of /proc/self/exe,
// the handle in the environment), which maps the buffer, doubles it in place
// with a kernel and checks a closed handle's errors. CUDA maps a handle only
// in a process other than the exporting one, so the child is a real process.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/ipc_memory_handle.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/kernel_args.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/module.hpp"
#include "cudakit/program.hpp"

extern char** environ;

namespace cudakit {
namespace {

constexpr const char* kHandleVariable = "CUDAKIT_TEST_IPC_HANDLE";
constexpr const char* kCountVariable = "CUDAKIT_TEST_IPC_COUNT";
constexpr int kCount = 1000;  // not a multiple of the block
constexpr unsigned kBlock = 128;

constexpr const char* kTwice = R"(
__global__ void twice(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
)";

std::string to_hex(const IpcHandleBytes& handle) {
  std::string text;
  char pair[3];
  for (unsigned char byte : handle) {
    std::snprintf(pair, sizeof pair, "%02x", byte);
    text += pair;
  }
  return text;
}

IpcHandleBytes from_hex(const std::string& text) {
  std::vector<unsigned char> bytes;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2)
    bytes.push_back(static_cast<unsigned char>(std::stoul(text.substr(i, 2), nullptr, 16)));
  return ipc_handle_from_bytes(bytes);
}

// Runs this test program again with `filter` and `environment` added; its exit status.
int run_child(const std::string& filter, const std::vector<std::string>& environment) {
  std::string self = "/proc/self/exe";
  std::string filter_argument = "--gtest_filter=" + filter;
  std::vector<char*> argv = {self.data(), filter_argument.data(), nullptr};
  std::vector<std::string> env_text(environment);
  for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& entry : env_text) envp.push_back(entry.data());
  envp.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawn(&child, self.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(child, &status, 0) != child) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class IpcMemoryGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!backend_available(BackendKind::cuda))
      GTEST_SKIP() << "no CUDA device: the driver is missing or reports no GPU";
  }
};

TEST_F(IpcMemoryGpu, AnotherProcessDoublesTheBufferInPlace) {
  const Device device = Device::get(BackendKind::cuda, 0);
  DeviceScope scope(device);
  std::mt19937 rng(19);
  std::normal_distribution<float> normal;
  std::vector<float> host(kCount);
  for (float& v : host) v = normal(rng);
  DeviceBuffer<float> buffer(device, host.size());
  buffer.copy_from(std::span<const float>(host));

  const IpcHandleBytes handle = export_ipc_handle(buffer);
  ASSERT_EQ(run_child("IpcMemoryChild.DoublesTheSharedBufferAndClosesOnce",
                      {std::string(kHandleVariable) + "=" + to_hex(handle),
                       std::string(kCountVariable) + "=" + std::to_string(kCount)}),
            0)
      << "the child process failed (its gtest output is above)";

  const std::vector<float> back = buffer.to_host();
  for (int i = 0; i < kCount; ++i)
    ASSERT_EQ(back[i], 2.0f * host[i]) << "at " << i;  // doubling is exact
}

TEST_F(IpcMemoryGpu, OpeningInTheExportingProcessIsRefused) {
  const Device device = Device::get(BackendKind::cuda, 0);
  DeviceScope scope(device);
  DeviceBuffer<float> buffer(device, kCount);
  const IpcHandleBytes handle = export_ipc_handle(buffer);
  try {
    IpcMemoryHandle mapped(device, handle);
    FAIL() << "opened a handle in the process that exported it";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("another process"), std::string::npos) << e.what();
  }
}

TEST_F(IpcMemoryGpu, ExportingAnAddressInsideAnAllocationIsRefused) {
  const Device device = Device::get(BackendKind::cuda, 0);
  DeviceScope scope(device);
  DeviceBuffer<float> buffer(device, kCount);
  EXPECT_THROW(export_ipc_handle(device, buffer.address() + 256), ArgumentError);
}

TEST(IpcMemoryChild, DoublesTheSharedBufferAndClosesOnce) {
  const char* hex = std::getenv(kHandleVariable);
  const char* count_text = std::getenv(kCountVariable);
  if (hex == nullptr || count_text == nullptr)
    GTEST_SKIP() << "the child process of IpcMemoryGpu.AnotherProcessDoublesTheBufferInPlace";
  const int n = std::atoi(count_text);
  const Device device = Device::get(BackendKind::cuda, 0);
  DeviceScope scope(device);

  IpcMemoryHandle mapped(device, from_hex(hex));
  ASSERT_TRUE(mapped.is_open());
  Module module = compile(kTwice, {}, device);
  const unsigned blocks = (static_cast<unsigned>(n) + kBlock - 1) / kBlock;
  module.kernel("twice").launch(LaunchConfig{Dim3(blocks), Dim3(kBlock)}, mapped.data<float>(), n);
  device.synchronize();

  IpcMemoryHandle moved = std::move(mapped);  // the mapping moves; the source is closed
  EXPECT_FALSE(mapped.is_open());
  moved.close();
  EXPECT_THROW(moved.close(), ArgumentError);
  EXPECT_THROW((void)moved.address(), ArgumentError);
}

}  // namespace
}  // namespace cudakit
