// Device memory owners. UntypedBuffer is bytes on one device; DeviceBuffer<T>
// is n elements of T. Both are move-only and give their memory back (to the
// pool by default) when destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "cudakit/device.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

enum class Allocator { pool, direct };

class UntypedBuffer {
 public:
  UntypedBuffer() = default;
  // Allocates on `device` (the current device when omitted).
  explicit UntypedBuffer(std::size_t bytes, Allocator allocator = Allocator::pool);
  UntypedBuffer(const Device& device, std::size_t bytes, Allocator allocator = Allocator::pool);
  UntypedBuffer(UntypedBuffer&& other) noexcept;
  UntypedBuffer& operator=(UntypedBuffer&& other) noexcept;
  UntypedBuffer(const UntypedBuffer&) = delete;
  UntypedBuffer& operator=(const UntypedBuffer&) = delete;
  ~UntypedBuffer();

  std::uint64_t address() const noexcept { return ptr_; }
  void* data() const noexcept { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr_)); }
  std::size_t bytes() const noexcept { return bytes_; }
  bool empty() const noexcept { return bytes_ == 0; }
  const Device& device() const;

  // Synchronous copies (return when done); ArgumentError if sizes exceed the buffer.
  void copy_from_host(const void* src, std::size_t bytes, std::size_t offset = 0);
  void copy_to_host(void* dst, std::size_t bytes, std::size_t offset = 0) const;
  void copy_from(const UntypedBuffer& src, std::size_t bytes);
  // Ordered on `stream`; host memory should be pinned for real overlap.
  void copy_from_host_async(const void* src, std::size_t bytes, const Stream& stream,
                            std::size_t offset = 0);
  void copy_to_host_async(void* dst, std::size_t bytes, const Stream& stream,
                          std::size_t offset = 0) const;
  // memset of 8/16/32-bit elements; element_bytes is 1, 2 or 4.
  void fill_bytes(std::uint32_t value, unsigned element_bytes, std::size_t count);
  void fill_bytes_async(std::uint32_t value, unsigned element_bytes, std::size_t count,
                        const Stream& stream);
  void zero() { fill_bytes(0, 1, bytes_); }
  // Gives the memory back now.
  void reset() noexcept;

 private:
  void release() noexcept;
  Device* device_ = nullptr;  // heap-held so a default-constructed buffer needs no device
  std::uint64_t ptr_ = 0;
  std::size_t bytes_ = 0;
  Allocator allocator_ = Allocator::pool;
};

namespace detail {
// count * element_bytes, or ArgumentError when the product does not fit in
// size_t (it would wrap around to a small allocation).
std::size_t checked_buffer_bytes(std::size_t count, std::size_t element_bytes);
}  // namespace detail

template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds trivially copyable types");

 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count, Allocator allocator = Allocator::pool)
      : mem_(detail::checked_buffer_bytes(count, sizeof(T)), allocator), count_(count) {}
  DeviceBuffer(const Device& device, std::size_t count, Allocator allocator = Allocator::pool)
      : mem_(device, detail::checked_buffer_bytes(count, sizeof(T)), allocator), count_(count) {}

  T* data() const noexcept { return static_cast<T*>(mem_.data()); }
  std::uint64_t address() const noexcept { return mem_.address(); }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  bool empty() const noexcept { return count_ == 0; }
  const Device& device() const { return mem_.device(); }
  UntypedBuffer& untyped() noexcept { return mem_; }
  const UntypedBuffer& untyped() const noexcept { return mem_; }

  void copy_from(std::span<const T> host) {
    check(host.size());
    mem_.copy_from_host(host.data(), host.size_bytes());
  }
  void copy_to(std::span<T> host) const {
    check(host.size());
    mem_.copy_to_host(host.data(), host.size_bytes());
  }
  void copy_from(const DeviceBuffer& other) {
    check(other.size());
    mem_.copy_from(other.mem_, other.bytes());
  }
  void copy_from_async(std::span<const T> host, const Stream& stream) {
    check(host.size());
    mem_.copy_from_host_async(host.data(), host.size_bytes(), stream);
  }
  void copy_to_async(std::span<T> host, const Stream& stream) const {
    check(host.size());
    mem_.copy_to_host_async(host.data(), host.size_bytes(), stream);
  }
  std::vector<T> to_host() const {
    std::vector<T> out(count_);
    copy_to(std::span<T>(out));
    return out;
  }
  void zero() { mem_.zero(); }

 private:
  void check(std::size_t n) const;  // ArgumentError when n > size()
  UntypedBuffer mem_;
  std::size_t count_ = 0;
};

namespace detail {
[[noreturn]] void throw_buffer_too_small(std::size_t requested, std::size_t available);
}

template <class T>
void DeviceBuffer<T>::check(std::size_t n) const {
  if (n > count_) detail::throw_buffer_too_small(n, count_);
}

// A device buffer holding a copy of host data, on the current device.
template <class T>
DeviceBuffer<T> to_device(std::span<const T> host) {
  DeviceBuffer<T> buffer(host.size());
  buffer.copy_from(host);
  return buffer;
}
template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
  return to_device(std::span<const T>(host));
}

}  // namespace cudakit
