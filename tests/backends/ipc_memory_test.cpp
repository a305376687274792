// CUDA IPC's refusals on every backend: the CPU backend cannot share its
// memory with another process and says what to do instead; handles of the
// wrong size, an inner address and a closed handle are errors on both. The
// two-process round trip is tests/gpu/ipc_memory_gpu_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/ipc_memory_handle.hpp"

namespace cudakit {
namespace {

using IpcMemory = test::OnBackend;

bool on_cpu(const Device& device) { return device.backend_kind() == BackendKind::cpu; }

TEST_F(IpcMemory, TheCpuBackendRefusesExportingWithWhatToDo) {
  if (!on_cpu(device())) GTEST_SKIP() << "the CPU backend's refusal";
  DeviceBuffer<float> buffer(device(), 100);
  try {
    (void)export_ipc_handle(buffer);
    FAIL() << "the CPU backend exported an IPC handle";
  } catch (const NotSupported& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("CUDA backend"), std::string::npos) << text;
    EXPECT_NE(text.find("pickle the array"), std::string::npos) << text;
  }
}

TEST_F(IpcMemory, TheCpuBackendRefusesOpening) {
  if (!on_cpu(device())) GTEST_SKIP() << "the CPU backend's refusal";
  EXPECT_THROW(IpcMemoryHandle(device(), IpcHandleBytes{}), NotSupported);
}

TEST_F(IpcMemory, AHandleOfTheWrongSizeIsRefused) {
  const std::vector<unsigned char> short_handle(63), long_handle(65);
  EXPECT_THROW((void)ipc_handle_from_bytes(short_handle), ArgumentError);
  EXPECT_THROW((void)ipc_handle_from_bytes(long_handle), ArgumentError);
  EXPECT_NO_THROW((void)ipc_handle_from_bytes(std::vector<unsigned char>(64)));
}

}  // namespace
}  // namespace cudakit
