// Page-locked host memory: the source or target of copies that overlap with
// kernels (async copies from pageable memory are staged and serialise).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

namespace cudakit {

namespace detail {
void* allocate_pinned_bytes(std::size_t bytes);
void free_pinned_bytes(void* ptr) noexcept;
}  // namespace detail

template <class T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "PinnedBuffer holds trivially copyable types");

 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count)
      : ptr_(static_cast<T*>(detail::allocate_pinned_bytes(count * sizeof(T)))), count_(count) {}
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) {
    o.ptr_ = nullptr;
    o.count_ = 0;
  }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      detail::free_pinned_bytes(ptr_);
      ptr_ = o.ptr_;
      count_ = o.count_;
      o.ptr_ = nullptr;
      o.count_ = 0;
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { detail::free_pinned_bytes(ptr_); }

  T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  T& operator[](std::size_t i) const noexcept { return ptr_[i]; }
  T* begin() const noexcept { return ptr_; }
  T* end() const noexcept { return ptr_ + count_; }
  std::span<T> span() const noexcept { return {ptr_, count_}; }
  operator std::span<T>() const noexcept { return span(); }
  operator std::span<const T>() const noexcept { return {ptr_, count_}; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cudakit
