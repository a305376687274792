#include "backend/cuda/stream_faults.hpp"

namespace cudakit::detail {

void StreamFaults::file(NativeStream stream, int ordinal, std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (faults_.emplace(std::pair(stream, ordinal), std::move(error)).second)
    count_.store(faults_.size(), std::memory_order_release);
}

void StreamFaults::take(NativeStream stream, int ordinal) {
  if (count_.load(std::memory_order_acquire) == 0) return;
  std::exception_ptr error;
  {
    std::lock_guard lock(mutex_);
    auto it = ordinal >= 0 ? faults_.find(std::pair(stream, ordinal))
                           : faults_.lower_bound(std::pair(stream, ordinal));
    if (it == faults_.end() || it->first.first != stream) return;
    error = std::move(it->second);
    faults_.erase(it);
    count_.store(faults_.size(), std::memory_order_release);
  }
  std::rethrow_exception(error);
}

void StreamFaults::take_on_device(int ordinal) {
  if (count_.load(std::memory_order_acquire) == 0) return;
  std::exception_ptr error;
  {
    std::lock_guard lock(mutex_);
    for (auto it = faults_.begin(); it != faults_.end(); ++it) {
      if (it->first.second != ordinal) continue;
      error = std::move(it->second);
      faults_.erase(it);
      count_.store(faults_.size(), std::memory_order_release);
      break;
    }
  }
  if (error) std::rethrow_exception(error);
}

void StreamFaults::forget(NativeStream stream) noexcept {
  if (count_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard lock(mutex_);
  std::erase_if(faults_, [&](const auto& fault) { return fault.first.first == stream; });
  count_.store(faults_.size(), std::memory_order_release);
}

}  // namespace cudakit::detail
