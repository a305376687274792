// Device memory shared between processes (CUDA IPC): the process that owns
// an allocation exports 64 bytes naming it (export_ipc_handle); another
// process on the same machine opens those bytes (IpcMemoryHandle) and gets
// its own address of the same memory, a non-owning view unmapped when the
// handle is closed or destroyed. CUDA only: the CPU backend refuses
// (NotSupported), since its device memory is ordinary memory of one process.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "cudakit/device.hpp"
#include "cudakit/device_buffer.hpp"

namespace cudakit {

// CUipcMemHandle's bytes: plain data, sent to the other process as is.
using IpcHandleBytes = std::array<unsigned char, 64>;

// The driver's CU_IPC_MEM_* flags (PyCUDA's ipc_mem_flags).
namespace ipc_mem_flags {
inline constexpr unsigned lazy_enable_peer_access = 0x1;  // peer access when the devices differ
}  // namespace ipc_mem_flags

// The handle of the allocation that starts at `address` on `device`.
// ArgumentError when `address` lies inside an allocation rather than at its
// start (the other process would get the start: export the start and send
// the offset) or is not device memory; NotSupported on the CPU backend.
IpcHandleBytes export_ipc_handle(const Device& device, std::uint64_t address);
// The handle of a buffer's memory (a buffer starts its allocation).
inline IpcHandleBytes export_ipc_handle(const UntypedBuffer& buffer) {
  return export_ipc_handle(buffer.device(), buffer.address());
}
template <class T>
IpcHandleBytes export_ipc_handle(const DeviceBuffer<T>& buffer) {
  return export_ipc_handle(buffer.untyped());
}
// The bytes as a handle, from what another process sent; ArgumentError
// unless there are exactly 64 of them.
IpcHandleBytes ipc_handle_from_bytes(std::span<const unsigned char> bytes);

class IpcMemoryHandle {
 public:
  // Maps the memory `handle` names into this process, on `device`.
  // ArgumentError for a handle this process exported (CUDA maps a handle
  // only in another process), a handle the driver cannot map (not one, or
  // its memory freed), or unknown flags; NotSupported on the CPU backend.
  explicit IpcMemoryHandle(const IpcHandleBytes& handle,
                           unsigned flags = ipc_mem_flags::lazy_enable_peer_access);
  IpcMemoryHandle(const Device& device, const IpcHandleBytes& handle,
                  unsigned flags = ipc_mem_flags::lazy_enable_peer_access);
  IpcMemoryHandle(IpcMemoryHandle&& other) noexcept;
  IpcMemoryHandle& operator=(IpcMemoryHandle&& other) noexcept;
  IpcMemoryHandle(const IpcMemoryHandle&) = delete;
  IpcMemoryHandle& operator=(const IpcMemoryHandle&) = delete;
  ~IpcMemoryHandle();  // closes; errors are dropped (call close() to see them)

  bool is_open() const noexcept { return address_ != 0; }
  // This process's address of the memory; ArgumentError once closed.
  std::uint64_t address() const;
  template <class T>
  T* data() const {
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(address()));
  }
  const Device& device() const noexcept { return device_; }
  // Unmaps the memory (the exporting process's allocation is unaffected);
  // ArgumentError when already closed.
  void close();

 private:
  void close_quietly() noexcept;
  Device device_;
  std::uint64_t address_ = 0;  // 0 once closed or moved from
};

}  // namespace cudakit
