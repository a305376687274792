// Runs one block of a kernel on the calling OS thread. A kernel with no
// barrier or warp operation runs its threads in a plain loop inside the
// module; one with them runs each thread as a fiber, switched at
// __syncthreads and at warp operations (all live lanes of a warp of 32 meet
// there, as on the GPU). This file also provides the runtime functions the
// module calls for those operations.
#pragma once

#include <cstdint>

#include "backend/cpu/prelude/cudakit_cpu_abi.h"
#include "cudakit/dim3.hpp"

namespace cudakit::detail::cpu {
class GridBarrier;
class PrintfFifo;
}  // namespace cudakit::detail::cpu

namespace cudakit::detail::cpu {

// The functions given to every module at load.
const cudakit_cpu::RuntimeTable& runtime_table();

struct BlockLaunch {
  const cudakit_cpu::KernelEntry* entry = nullptr;
  const cudakit_cpu::ModuleInfo* module = nullptr;
  const char* kernel_name = "";
  Dim3 grid;
  Dim3 block;
  unsigned dynamic_shared_bytes = 0;
  void** args = nullptr;
  // Set for a cooperative launch, whose blocks each run on their own OS
  // thread: this_grid().sync() waits here. Null otherwise (grid sync is then
  // an error, as it is undefined on a GPU).
  GridBarrier* grid_barrier = nullptr;
  // Where the kernel's printf output goes (null: straight to stdout).
  PrintfFifo* printf_fifo = nullptr;
  // The cancel epoch when the launch started (current_cancel_epoch()); the
  // default never cancels.
  std::uint64_t epoch = ~std::uint64_t{0};
};

// Runs block `block_index` (x fastest) of `launch`. Throws KernelFault when
// the block cannot complete (a barrier not every thread reaches, __trap()),
// or when the launch was cancelled (cancel_running_launches).
void run_block(const BlockLaunch& launch, unsigned long long block_index);

// Runs every block of a cooperative launch at once, each on its own OS
// thread, with a grid barrier between them. Throws the first block's
// KernelFault when one fails.
void run_cooperative_grid(const BlockLaunch& launch);

}  // namespace cudakit::detail::cpu
