#include "backend/cpu/fiber_stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "backend/cpu/host_compiler.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {

std::size_t FiberStack::guard_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

std::size_t fiber_stack_size() {
  static const std::size_t size = [] {
    std::size_t bytes = debug_enabled() ? 256 * 1024 : 64 * 1024;
    if (const char* v = std::getenv("CUDAKIT_CPU_STACK_SIZE"); v && *v) {
      // Digits, then an optional K or M; from 16 KiB to 1 GiB.
      char* end = nullptr;
      errno = 0;
      unsigned long long n = *v >= '0' && *v <= '9' ? std::strtoull(v, &end, 10) : 0;
      // (Bounded before a suffix multiplies it, so it cannot wrap around.)
      bool valid = end != nullptr && end != v && errno == 0 && n <= (1ull << 30);
      if (valid && (*end == 'k' || *end == 'K')) {
        n *= 1024;
        ++end;
      } else if (valid && (*end == 'm' || *end == 'M')) {
        n *= 1024 * 1024;
        ++end;
      }
      valid = valid && *end == '\0' && n >= 16 * 1024 && n <= (1ull << 30);
      if (valid)
        bytes = static_cast<std::size_t>(n);
      else  // read once per process (a static), so the warning is printed once
        std::fprintf(stderr,
                     "cudakit: warning: CUDAKIT_CPU_STACK_SIZE='%s' is not a size from 16K to "
                     "1024M (bytes, or with a K or M suffix); using %zu bytes (the default)\n",
                     v, bytes);
    }
    const std::size_t page = FiberStack::guard_bytes();
    return (bytes + page - 1) / page * page;
  }();
  return size;
}

FiberStackPool::~FiberStackPool() {
  for (const auto& s : stacks_) munmap(s.base, s.size + FiberStack::guard_bytes());
}

const std::vector<FiberStack>& FiberStackPool::reserve(std::size_t count) {
  const std::size_t size = fiber_stack_size();
  const std::size_t guard = FiberStack::guard_bytes();
  while (stacks_.size() < count) {
    void* base = mmap(nullptr, size + guard, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
      throw OutOfMemory("mapping a " + std::to_string(size) + "-byte fiber stack for thread " +
                            std::to_string(stacks_.size()) + " of a block on the CPU backend",
                        size, 0, 0);
    mprotect(base, guard, PROT_NONE);
    stacks_.push_back({base, size});
  }
  return stacks_;
}

}  // namespace cudakit::detail::cpu
