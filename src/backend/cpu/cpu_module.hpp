// A kernel module loaded on the CPU backend: the shared object built by the
// host compiler, opened with dlopen, given the runtime's functions, and its
// table of kernels and globals read back.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cpu/prelude/cudakit_cpu_abi.h"
#include "cudakit/cache_config.hpp"
#include "cudakit/compiled_code.hpp"
#include "cudakit/param_layout.hpp"

namespace cudakit::detail::cpu {

// Launches may ask for more than 48 KiB of dynamic shared memory after
// opting in, as on Hopper.
inline constexpr std::size_t kStaticSharedLimit = 48 * 1024;
inline constexpr std::size_t kOptInSharedLimit = 227 * 1024;

struct CpuKernel {
  const cudakit_cpu::KernelEntry* entry = nullptr;
  const cudakit_cpu::ModuleInfo* module = nullptr;
  std::string name;    // as written, or the name expression
  std::string symbol;  // the real symbol: mangled for C++ linkage
  int device = 0;      // the ordinal of the device its module was loaded on
  ParamLayout layout;
  std::size_t max_dynamic_shared = kStaticSharedLimit;
  bool dynamic_shared_raised = false;  // set_max_dynamic_shared_memory was called
  std::size_t static_shared = 0;       // its __shared__ variables, as ptxas counts them
  // Recorded only: the CPU has no L1 / shared memory split to choose.
  std::atomic<CachePreference> cache_preference{CachePreference::prefer_none};
};

class CpuModule {
 public:
  // Throws NotSupported for code that is not a host object, and Error when
  // the object cannot be loaded.
  explicit CpuModule(const CompiledCode& code);
  ~CpuModule();
  CpuModule(const CpuModule&) = delete;
  CpuModule& operator=(const CpuModule&) = delete;

  const std::vector<std::unique_ptr<CpuKernel>>& kernels() const { return kernels_; }
  // By symbol, then by name; null when neither matches.
  CpuKernel* find(const std::string& name) const;
  // By qualified name, then unqualified; {nullptr, 0} when missing.
  std::pair<void*, std::size_t> global(const std::string& name) const;

 private:
  // Makes the module's code a place where a cancelled block may be stopped,
  // and its globals valid copy targets; undone by forget().
  void announce();
  void forget() noexcept;

  void* handle_ = nullptr;
  std::vector<std::uintptr_t> code_starts_;  // its executable segments, as announced
  std::string path_;  // kept until unload under CUDAKIT_CPU_DEBUG, for symbolizers
  const cudakit_cpu::ModuleInfo* info_ = nullptr;
  std::vector<std::unique_ptr<CpuKernel>> kernels_;
};

}  // namespace cudakit::detail::cpu
