// Host-side access to the CPU backend's memory made safe to report: the
// copies and fills that run as memmove / loops over raw addresses turn a bad
// address into an ArgumentError naming it (guarded_host_access), and the
// AddressSanitizer hooks the caching allocator uses under CUDAKIT_CPU_DEBUG.
// Used by cpu_backend.cpp only; kept apart to keep that file readable.
#pragma once

#include <dlfcn.h>

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "backend/cpu/device_memory.hpp"
#include "backend/cpu/fault_guard.hpp"
#include "backend/cpu/host_compiler.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {
namespace {

// AddressSanitizer's manual poisoning interface, present only when its
// runtime is loaded (CUDAKIT_CPU_DEBUG runs preload it); the library itself
// is not instrumented, so it is looked up rather than linked.
using AsanRegionFn = void (*)(const volatile void*, std::size_t);
AsanRegionFn asan_function(const char* name) {
  if (!debug_enabled()) return nullptr;
  return reinterpret_cast<AsanRegionFn>(dlsym(RTLD_DEFAULT, name));
}
AsanRegionFn asan_poison() {
  static const AsanRegionFn fn = asan_function("__asan_poison_memory_region");
  return fn;
}
AsanRegionFn asan_unpoison() {
  static const AsanRegionFn fn = asan_function("__asan_unpoison_memory_region");
  return fn;
}
// Under CUDAKIT_CPU_DEBUG every allocation has exactly the requested size.
bool exact_allocations() { return debug_enabled(); }

std::string hex(const void* address) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", address);
  return text;
}

// Runs `work` (a memmove or a fill of [first, first + bytes) and
// [second, ...)) so that an address that is not memory becomes an
// ArgumentError naming it, not a dead process.
template <class Work>
void guarded_host_access(const char* what, const void* first, const void* second, std::size_t bytes,
                         Work&& work) {
  if (!fault_guard_enabled()) {
    work();
    return;
  }
  FaultScope scope;
  // No signal mask saved (a system call): the handler runs with the signal
  // unblocked (SA_NODEFER).
  if (sigsetjmp(scope.jump, 0) != 0) {
    const auto at = reinterpret_cast<std::uintptr_t>(scope.address);
    const auto in = [&](const void* p) {
      const auto begin = reinterpret_cast<std::uintptr_t>(p);
      return p && at >= begin && at - begin < bytes;
    };
    const void* bad = in(second) && !in(first) ? second : first;
    throw ArgumentError(std::string(what) + " on the CPU backend (" + std::to_string(bytes) +
                            " bytes at " + hex(bad) + ")",
                        "address " + hex(scope.address) + " is not memory this process can " +
                            (bad == first ? "write" : "read") +
                            ": it is not inside a live allocation of the CPU backend, nor mapped "
                            "host memory (a freed buffer, or a wrong integer address)",
                        "pass a DeviceAllocation / device array, or an address inside one with at "
                        "most its size left");
  }
  arm_fault_scope(scope, false);
  work();
  disarm_fault_scope(scope);
}

}  // namespace
}  // namespace cudakit::detail::cpu
