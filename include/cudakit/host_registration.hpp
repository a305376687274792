// Page-locking memory that cudakit did not allocate (a numpy array, a
// std::vector): cuMemHostRegister on a GPU, so async copies from and to it
// overlap with kernels instead of being staged through a driver buffer. The
// registration ends when the object is destroyed or unregister() is called.
// On the CPU backend nothing needs locking; the range is still recorded, so
// the same mistakes (registering a range twice, unregistering twice) are
// the same errors on both backends.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudakit {

// The driver's flags (CU_MEMHOSTREGISTER_*), PyCUDA's mem_host_register_flags.
namespace host_register_flags {
inline constexpr unsigned portable = 0x1;    // page-locked for every context
inline constexpr unsigned device_map = 0x2;  // mapped into the device's address space
inline constexpr unsigned io_memory = 0x4;   // the range is I/O memory (not host RAM)
inline constexpr unsigned read_only = 0x8;   // the device only reads it
inline constexpr unsigned all = portable | device_map | io_memory | read_only;
}  // namespace host_register_flags

class HostRegistration {
 public:
  HostRegistration() = default;
  // Page-locks [data, data + bytes) on the default backend. ArgumentError for
  // a null or empty range, unknown flags, or a range that overlaps one already
  // registered; CudaError / OutOfMemory when the driver refuses.
  HostRegistration(void* data, std::size_t bytes, unsigned flags = 0);
  HostRegistration(HostRegistration&& other) noexcept;
  HostRegistration& operator=(HostRegistration&& other) noexcept;
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;
  ~HostRegistration();  // unregisters if still registered; errors are dropped

  // Ends the registration now. ArgumentError when it has already ended
  // (a second unregister() is a bug in the caller, not a no-op).
  void unregister();
  bool registered() const noexcept { return data_ != nullptr; }
  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  unsigned flags() const noexcept { return flags_; }
  // The address a kernel uses for the memory (cuMemHostGetDevicePointer):
  // equal to data() under unified addressing. ArgumentError once unregistered.
  std::uint64_t device_pointer() const;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  unsigned flags_ = 0;
};

// The device address of page-locked host memory (from PinnedBuffer or a
// HostRegistration), for a kernel that reads it in place.
std::uint64_t host_device_pointer(const void* host);

// Registrations currently alive in this process (for tests and leak checks).
std::size_t live_host_registrations() noexcept;

}  // namespace cudakit
