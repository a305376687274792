// The L1 / shared memory split a context or a kernel prefers
// (cuCtxSetCacheConfig, cuFuncSetCacheConfig) and the context's shared
// memory bank size (cuCtxSetSharedMemConfig). Both are hints: the driver may
// choose another split when a launch needs it, and GPUs since Maxwell have
// fixed 4-byte banks, so the bank size is accepted and reads back as set.
#pragma once

namespace cudakit {

// The driver's numbering (CUfunc_cache), which PyCUDA's func_cache shares.
enum class CachePreference { prefer_none = 0, prefer_shared = 1, prefer_l1 = 2, prefer_equal = 3 };

// The driver's numbering (CUsharedconfig), PyCUDA's shared_config.
enum class SharedMemoryBankSize { default_size = 0, four_bytes = 1, eight_bytes = 2 };

const char* to_string(CachePreference preference) noexcept;
const char* to_string(SharedMemoryBankSize size) noexcept;

// The enum for a raw value from a binding; ArgumentError naming `use` and the
// accepted values otherwise.
CachePreference cache_preference_from_int(long long value, const char* use);
SharedMemoryBankSize shared_memory_bank_size_from_int(long long value, const char* use);

}  // namespace cudakit
