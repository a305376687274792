// CUDA IPC through the device's backend. The handles this process exported
// are remembered, so opening one here is refused by name before the driver
// answers with its own "invalid device context".
#include "cudakit/ipc_memory_handle.hpp"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

std::mutex exported_mutex;
std::set<IpcHandleBytes>& exported_handles() {
  static std::set<IpcHandleBytes> handles;
  return handles;
}

bool exported_here(const IpcHandleBytes& handle) {
  std::lock_guard lock(exported_mutex);
  return exported_handles().contains(handle);
}

std::string hex_address(std::uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

}  // namespace

IpcHandleBytes export_ipc_handle(const Device& device, std::uint64_t address) {
  const std::string use = "exporting the device memory at " + hex_address(address) + " of " +
                          device.describe() + " to another process";
  auto& backend = detail::backend_of(device);
  if (backend.kind() != BackendKind::cuda)
    return backend.ipc_get_handle(device.ordinal(), address);  // the backend's refusal
  if (address == 0)
    throw ArgumentError(use, "the address is null (an empty buffer has no memory to share)",
                        "export a buffer of at least one element");
  device.make_current();
  // The driver hands out the handle of the allocation containing the address
  // and the other process would map its start: refuse an inner address
  // rather than let the other process read the wrong bytes.
  const auto [start, bytes] = backend.address_range(address);
  if (start != address)
    throw ArgumentError(use,
                        "the address lies " + std::to_string(address - start) +
                            " bytes into an allocation of " + std::to_string(bytes) +
                            " bytes; the other process would map the allocation's start",
                        "export the allocation's start (" + hex_address(start) +
                            ") and send the offset with the handle");
  IpcHandleBytes handle = backend.ipc_get_handle(device.ordinal(), address);
  std::lock_guard lock(exported_mutex);
  exported_handles().insert(handle);
  return handle;
}

IpcHandleBytes ipc_handle_from_bytes(std::span<const unsigned char> bytes) {
  IpcHandleBytes handle{};
  if (bytes.size() != handle.size())
    throw ArgumentError("reading an IPC memory handle",
                        "the handle has " + std::to_string(bytes.size()) + " bytes, not " +
                            std::to_string(handle.size()),
                        "pass the 64 bytes export_ipc_handle (mem_get_ipc_handle) returned, "
                        "unchanged");
  std::copy(bytes.begin(), bytes.end(), handle.begin());
  return handle;
}

IpcMemoryHandle::IpcMemoryHandle(const IpcHandleBytes& handle, unsigned flags)
    : IpcMemoryHandle(Device::current(), handle, flags) {}

IpcMemoryHandle::IpcMemoryHandle(const Device& device, const IpcHandleBytes& handle, unsigned flags)
    : device_(device) {
  const std::string use = "opening an IPC memory handle on " + device.describe();
  auto& backend = detail::backend_of(device);
  if (backend.kind() != BackendKind::cuda) {
    address_ = backend.ipc_open(device.ordinal(), handle, flags);  // the backend's refusal
    return;
  }
  if ((flags & ~ipc_mem_flags::lazy_enable_peer_access) != 0)
    throw ArgumentError(use, "unknown flags " + std::to_string(flags),
                        "pass ipc_mem_flags.LAZY_ENABLE_PEER_ACCESS (1), PyCUDA's default");
  if (exported_here(handle))
    throw ArgumentError(use,
                        "this process exported the handle, and CUDA maps a handle only in "
                        "another process",
                        "open it in another process (multiprocessing with the 'spawn' start "
                        "method, or a subprocess); here, use the exported memory itself");
  device.make_current();
  address_ = backend.ipc_open(device.ordinal(), handle, flags);
}

IpcMemoryHandle::IpcMemoryHandle(IpcMemoryHandle&& other) noexcept
    : device_(other.device_), address_(std::exchange(other.address_, 0)) {}

IpcMemoryHandle& IpcMemoryHandle::operator=(IpcMemoryHandle&& other) noexcept {
  if (this != &other) {
    close_quietly();
    device_ = other.device_;
    address_ = std::exchange(other.address_, 0);
  }
  return *this;
}

IpcMemoryHandle::~IpcMemoryHandle() { close_quietly(); }

void IpcMemoryHandle::close_quietly() noexcept {
  if (!is_open()) return;
  try {
    close();
  } catch (...) {  // nothing to undo after a failed unmap; close() reports it to who asks
  }
}

std::uint64_t IpcMemoryHandle::address() const {
  if (!is_open())
    throw ArgumentError("using an IPC memory handle", "the handle is closed",
                        "open the handle again (IpcMemoryHandle(bytes)) to use the memory");
  return address_;
}

void IpcMemoryHandle::close() {
  if (!is_open())
    throw ArgumentError("closing an IPC memory handle", "the handle is already closed",
                        "close a handle once");
  const std::uint64_t address = std::exchange(address_, 0);
  device_.make_current();
  detail::backend_of(device_).ipc_close(device_.ordinal(), address);
}

}  // namespace cudakit
