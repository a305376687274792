// HostRegistration: page-locks memory allocated elsewhere through the
// default backend (the one pinned memory belongs to).
#include "cudakit/host_registration.hpp"

#include <atomic>
#include <cstdio>
#include <string>

#include "backend/backend.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

std::atomic<std::size_t> live_registrations{0};

std::string describe_range(const void* data, std::size_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%zu bytes at %p", bytes, data);
  return text;
}

}  // namespace

HostRegistration::HostRegistration(void* data, std::size_t bytes, unsigned flags) {
  const std::string use = "registering host memory (" + describe_range(data, bytes) + ")";
  if (data == nullptr || bytes == 0)
    throw ArgumentError(use, "the range is empty",
                        "register an array of at least one element: an empty range has nothing "
                        "to page-lock");
  if ((flags & ~host_register_flags::all) != 0)
    throw ArgumentError(use, "unknown flags " + std::to_string(flags),
                        "combine mem_host_register_flags: PORTABLE (1), DEVICEMAP (2), "
                        "IOMEMORY (4), READ_ONLY (8)");
  detail::backend(default_backend_kind()).register_host(data, bytes, flags);
  data_ = data;
  bytes_ = bytes;
  flags_ = flags;
  live_registrations.fetch_add(1, std::memory_order_relaxed);
}

HostRegistration::HostRegistration(HostRegistration&& other) noexcept
    : data_(other.data_), bytes_(other.bytes_), flags_(other.flags_) {
  other.data_ = nullptr;
  other.bytes_ = 0;
}

HostRegistration& HostRegistration::operator=(HostRegistration&& other) noexcept {
  if (this != &other) {
    if (registered()) {
      try {
        unregister();
      } catch (...) {
        // As in the destructor: the range is ours; a failure here means the
        // driver is gone, and the process's memory is unlocked with it.
      }
    }
    data_ = other.data_;
    bytes_ = other.bytes_;
    flags_ = other.flags_;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

HostRegistration::~HostRegistration() {
  if (!registered()) return;
  try {
    unregister();
  } catch (...) {
    // Destructors do not throw; the driver unlocks everything at exit.
  }
}

void HostRegistration::unregister() {
  if (!registered())
    throw ArgumentError("unregistering host memory", "this registration has already ended",
                        "call unregister() once; the memory stays usable as pageable memory "
                        "after it");
  void* data = data_;
  data_ = nullptr;
  live_registrations.fetch_sub(1, std::memory_order_relaxed);
  detail::backend(default_backend_kind()).unregister_host(data);
}

std::uint64_t HostRegistration::device_pointer() const {
  if (!registered())
    throw ArgumentError("the device address of registered host memory",
                        "the registration has ended (unregister() was called)",
                        "keep the registration alive while a kernel uses the memory");
  return host_device_pointer(data_);
}

std::uint64_t host_device_pointer(const void* host) {
  if (host == nullptr)
    throw ArgumentError("the device address of host memory", "the host address is null",
                        "pass page-locked memory (pagelocked_empty or register_host_memory)");
  return detail::backend(default_backend_kind()).host_device_pointer(const_cast<void*>(host));
}

std::size_t live_host_registrations() noexcept {
  return live_registrations.load(std::memory_order_relaxed);
}

}  // namespace cudakit
