// Stacks for the fibers that run the threads of a block. Mapping a stack
// costs a system call or two, so each worker thread keeps its own and reuses
// them from block to block; each has a guard page below it, so a kernel that
// overflows its stack faults at once instead of corrupting its neighbour.
#pragma once

#include <cstddef>
#include <vector>

namespace cudakit::detail::cpu {

struct FiberStack {
  void* base = nullptr;  // lowest address (the guard page)
  std::size_t size = 0;  // usable bytes above the guard page
  void* top() const { return static_cast<char*>(base) + guard_bytes() + size; }
  static std::size_t guard_bytes();
};

// CUDAKIT_CPU_STACK_SIZE (bytes; K and M suffixes), 64 KiB by default
// (256 KiB under CUDAKIT_CPU_DEBUG, whose sanitizers need more).
std::size_t fiber_stack_size();

class FiberStackPool {
 public:
  FiberStackPool() = default;
  ~FiberStackPool();
  FiberStackPool(const FiberStackPool&) = delete;
  FiberStackPool& operator=(const FiberStackPool&) = delete;

  // At least `count` stacks; throws OutOfMemory when they cannot be mapped.
  const std::vector<FiberStack>& reserve(std::size_t count);

 private:
  std::vector<FiberStack> stacks_;
};

}  // namespace cudakit::detail::cpu
