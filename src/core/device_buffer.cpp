#include "cudakit/device_buffer.hpp"

#include <limits>
#include <string>
#include <utility>

#include "backend/backend.hpp"
#include "core/graph_capture.hpp"
#include "cudakit/error.hpp"
#include "cudakit/memory_pool.hpp"

namespace cudakit {
namespace {

void check_range(const char* what, std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset)
    throw ArgumentError(what,
                        "the range [" + std::to_string(offset) + ", " +
                            std::to_string(offset + bytes) + ") exceeds the buffer's " +
                            std::to_string(size) + " bytes",
                        "copy at most bytes() - offset bytes");
}

}  // namespace

namespace detail {
std::size_t checked_buffer_bytes(std::size_t count, std::size_t element_bytes) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, element_bytes, &bytes))
    throw ArgumentError("allocating a DeviceBuffer",
                        std::to_string(count) + " elements of " + std::to_string(element_bytes) +
                            " bytes are more than " +
                            std::to_string(std::numeric_limits<std::size_t>::max()) + " bytes",
                        "check the element count for a wrong or negative value");
  return bytes;
}

void throw_buffer_too_small(std::size_t requested, std::size_t available) {
  throw ArgumentError("copying to or from a DeviceBuffer",
                      std::to_string(requested) + " elements do not fit in a buffer of " +
                          std::to_string(available),
                      "allocate the buffer with as many elements as the host data, or copy a "
                      "subspan");
}
}  // namespace detail

UntypedBuffer::UntypedBuffer(std::size_t bytes, Allocator allocator)
    : UntypedBuffer(Device::current(), bytes, allocator) {}

UntypedBuffer::UntypedBuffer(const Device& device, std::size_t bytes, Allocator allocator)
    : device_(new Device(device)), bytes_(bytes), allocator_(allocator) {
  try {
    if (bytes == 0) return;
    ptr_ = allocator == Allocator::pool
               ? MemoryPool::of(device).allocate(bytes)
               : detail::backend_of(device).allocate(device.ordinal(), bytes);
  } catch (...) {
    delete device_;
    throw;
  }
}

UntypedBuffer::UntypedBuffer(UntypedBuffer&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      ptr_(std::exchange(other.ptr_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      allocator_(other.allocator_) {}

UntypedBuffer& UntypedBuffer::operator=(UntypedBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::exchange(other.device_, nullptr);
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    allocator_ = other.allocator_;
  }
  return *this;
}

UntypedBuffer::~UntypedBuffer() { reset(); }

void UntypedBuffer::release() noexcept {
  if (ptr_ == 0 || !device_) return;
  if (allocator_ == Allocator::pool)
    MemoryPool::of(*device_).deallocate(ptr_, bytes_);
  else if (!detail::graph_memory_freed(*device_, ptr_, bytes_, nullptr, false))
    detail::backend_of(*device_).deallocate(device_->ordinal(), ptr_);
  ptr_ = 0;
}

void UntypedBuffer::reset() noexcept {
  release();
  delete device_;
  device_ = nullptr;
  bytes_ = 0;
}

const Device& UntypedBuffer::device() const {
  if (!device_)
    throw ArgumentError("asking an empty buffer for its device",
                        "the buffer was default-constructed, moved from or reset",
                        "allocate it with a size first");
  return *device_;
}

void UntypedBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t offset) {
  check_range("copying host data to a device buffer", offset, bytes, bytes_);
  if (bytes == 0) return;
  detail::backend_of(device()).copy(static_cast<char*>(data()) + offset, src, bytes, nullptr,
                                    false);
}

void UntypedBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t offset) const {
  check_range("copying a device buffer to the host", offset, bytes, bytes_);
  if (bytes == 0) return;
  detail::backend_of(device()).copy(dst, static_cast<const char*>(data()) + offset, bytes, nullptr,
                                    false);
}

void UntypedBuffer::copy_from(const UntypedBuffer& src, std::size_t bytes) {
  check_range("copying between device buffers (destination)", 0, bytes, bytes_);
  check_range("copying between device buffers (source)", 0, bytes, src.bytes_);
  if (bytes == 0) return;
  detail::backend_of(device()).copy(data(), src.data(), bytes, nullptr, false);
}

void UntypedBuffer::copy_from_host_async(const void* src, std::size_t bytes, const Stream& stream,
                                         std::size_t offset) {
  check_range("copying host data to a device buffer", offset, bytes, bytes_);
  if (bytes == 0) return;
  detail::backend_of(device()).copy(static_cast<char*>(data()) + offset, src, bytes,
                                    stream.native(), true);
}

void UntypedBuffer::copy_to_host_async(void* dst, std::size_t bytes, const Stream& stream,
                                       std::size_t offset) const {
  check_range("copying a device buffer to the host", offset, bytes, bytes_);
  if (bytes == 0) return;
  detail::backend_of(device()).copy(dst, static_cast<const char*>(data()) + offset, bytes,
                                    stream.native(), true);
}

namespace {
void check_fill(unsigned element_bytes, std::size_t count, std::size_t size) {
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4)
    throw ArgumentError("filling a device buffer",
                        "element size " + std::to_string(element_bytes) + " is not 1, 2 or 4",
                        "fill bytes, 16-bit or 32-bit words");
  if (count > size / element_bytes)
    throw ArgumentError("filling a device buffer",
                        std::to_string(count) + " elements of " + std::to_string(element_bytes) +
                            " bytes exceed the buffer's " + std::to_string(size) + " bytes");
}
}  // namespace

void UntypedBuffer::fill_bytes(std::uint32_t value, unsigned element_bytes, std::size_t count) {
  check_fill(element_bytes, count, bytes_);
  if (count == 0) return;
  detail::backend_of(device()).fill(ptr_, value, element_bytes, count, nullptr, false);
}

void UntypedBuffer::fill_bytes_async(std::uint32_t value, unsigned element_bytes, std::size_t count,
                                     const Stream& stream) {
  check_fill(element_bytes, count, bytes_);
  if (count == 0) return;
  detail::backend_of(device()).fill(ptr_, value, element_bytes, count, stream.native(), true);
}

}  // namespace cudakit
