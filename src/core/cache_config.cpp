// Cache preference and shared memory bank size of contexts and kernels:
// the names, the checked conversions from raw values, and the Device and
// Kernel members that reach the backend.
#include "cudakit/cache_config.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/kernel_state.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"

namespace cudakit {

const char* to_string(CachePreference preference) noexcept {
  switch (preference) {
    case CachePreference::prefer_none:
      return "prefer_none";
    case CachePreference::prefer_shared:
      return "prefer_shared";
    case CachePreference::prefer_l1:
      return "prefer_l1";
    case CachePreference::prefer_equal:
      return "prefer_equal";
  }
  return "unknown cache preference";
}

const char* to_string(SharedMemoryBankSize size) noexcept {
  switch (size) {
    case SharedMemoryBankSize::default_size:
      return "default_size";
    case SharedMemoryBankSize::four_bytes:
      return "four_bytes";
    case SharedMemoryBankSize::eight_bytes:
      return "eight_bytes";
  }
  return "unknown bank size";
}

CachePreference cache_preference_from_int(long long value, const char* use) {
  if (value < 0 || value > 3)
    throw ArgumentError(use, "unknown cache preference " + std::to_string(value),
                        "use func_cache.PREFER_NONE (0), PREFER_SHARED (1), PREFER_L1 (2) or "
                        "PREFER_EQUAL (3)");
  return static_cast<CachePreference>(value);
}

SharedMemoryBankSize shared_memory_bank_size_from_int(long long value, const char* use) {
  if (value < 0 || value > 2)
    throw ArgumentError(use, "unknown shared memory bank size " + std::to_string(value),
                        "use shared_config.DEFAULT_BANK_SIZE (0), FOUR_BYTE_BANK_SIZE (1) or "
                        "EIGHT_BYTE_BANK_SIZE (2)");
  return static_cast<SharedMemoryBankSize>(value);
}

void Device::set_cache_preference(CachePreference preference) const {
  detail::backend(kind_).set_cache_preference(ordinal_, preference);
}

CachePreference Device::cache_preference() const {
  return detail::backend(kind_).cache_preference(ordinal_);
}

void Device::set_shared_memory_bank_size(SharedMemoryBankSize size) const {
  detail::backend(kind_).set_shared_memory_bank_size(ordinal_, size);
}

SharedMemoryBankSize Device::shared_memory_bank_size() const {
  return detail::backend(kind_).shared_memory_bank_size(ordinal_);
}

void Kernel::set_cache_preference(CachePreference preference) const {
  const State& k = *state_;
  k.backend->set_kernel_cache_preference(k.native, preference);
  k.cache_preference.store(preference, std::memory_order_relaxed);
}

CachePreference Kernel::cache_preference() const {
  return state_->cache_preference.load(std::memory_order_relaxed);
}

void Kernel::set_shared_memory_carveout(int percent) const {
  if (percent < -1 || percent > 100)
    throw ArgumentError(
        "setting the shared memory carveout of kernel " + state_->name,
        "the carveout is " + std::to_string(percent) + "; it must be between -1 and 100",
        "give a percentage of L1 / shared memory (0 to 100) or -1 for the "
        "device's default");
  state_->backend->set_kernel_shared_memory_carveout(state_->native, percent);
}

}  // namespace cudakit
