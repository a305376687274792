#include "backend/cuda/stream_faults.hpp"

#include <utility>

namespace cudakit::detail {

void StreamFaults::file(NativeStream stream, int ordinal, std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (faults_.emplace(stream, Fault{ordinal, std::move(error)}).second)
    count_.store(faults_.size(), std::memory_order_release);
}

void StreamFaults::take(NativeStream stream) {
  if (count_.load(std::memory_order_acquire) == 0) return;
  std::exception_ptr error;
  {
    std::lock_guard lock(mutex_);
    auto it = faults_.find(stream);
    if (it == faults_.end()) return;
    error = std::move(it->second.error);
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
      if (it->second.ordinal != ordinal) continue;
      error = std::move(it->second.error);
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
  faults_.erase(stream);
  count_.store(faults_.size(), std::memory_order_release);
}

}  // namespace cudakit::detail
