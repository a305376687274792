#include "backend/cpu/block_runner.hpp"

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/cpu/approx_tables.hpp"
#include "backend/cpu/fault_guard.hpp"
#include "backend/cpu/fiber_stack.hpp"
#include "backend/cpu/grid_barrier.hpp"
#include "backend/cpu/printf_fifo.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {
namespace {

namespace fctx = boost::context::detail;

enum class FiberState : std::uint8_t { runnable, at_barrier, at_warp, at_activemask, done };

struct FiberThread {
  fctx::fcontext_t context = nullptr;
  unsigned idx[3] = {0, 0, 0};
  FiberState state = FiberState::runnable;
};

struct WarpState {
  unsigned present = 0;  // lanes that exist (the last warp of a block may be partial)
  unsigned live = 0;     // lanes that have not exited
  unsigned arrived = 0;  // lanes waiting at a warp barrier
  unsigned needed[32];   // the mask each waiting lane named
  unsigned long long slots[32];
  unsigned mask_waiting = 0;       // lanes waiting in __activemask()
  const void* mask_site[32] = {};  // where each of them called it
  unsigned mask_result[32] = {};   // what each of them gets
};

// Everything one OS thread needs to run blocks; reused from block to block
// so running a block allocates nothing once the sizes have been seen.
struct Worker {
  FiberStackPool stacks;
  std::vector<FiberThread> threads;
  std::vector<WarpState> warps;
  void* dynamic_shared = nullptr;
  std::size_t dynamic_capacity = 0;

  // The block being run.
  bool fiber_mode = false;
  std::size_t block_threads = 0;
  const BlockLaunch* launch = nullptr;
  cudakit_cpu::ThreadStateLayout state{};  // the module's coordinates for this OS thread
  fctx::fcontext_t scheduler = nullptr;
  unsigned current = 0;  // the fiber running now (kScheduler: none)
  unsigned from = 0;     // who jumped to the fiber that resumes next
  unsigned done = 0;     // fibers that have finished
  unsigned live = 0;
  unsigned arrived = 0;
  int sum = 0;
  int result = 0;
  bool grid_pending = false;  // the barrier being gathered is a grid.sync()
  std::exception_ptr error;

  ~Worker() { std::free(dynamic_shared); }
};

Worker& worker() {
  thread_local Worker w;
  return w;
}

[[noreturn]] void throw_undetected(const char* what) {
  Worker& w = worker();
  throw KernelFault(
      std::string("running kernel ") + w.launch->kernel_name + " on the CPU backend",
      std::string("the kernel called ") + what +
          ", but none was found in its source, so its threads ran one after the other",
      {w.launch->kernel_name},
      "keep the device functions that synchronize in the kernel's source or in "
      "CompileOptions::headers, where the CPU backend can see them");
}

constexpr unsigned kScheduler = ~0u;

// Every resumption point stores the context of the one that jumped there, so
// that one can be resumed in turn.
void record_from(Worker& w, fctx::fcontext_t context) {
  if (w.from == kScheduler)
    w.scheduler = context;
  else
    w.threads[w.from].context = context;
}

// Jumps from whatever runs now (a fiber or the scheduler) to `target`.
void transfer(Worker& w, unsigned target) {
  w.from = w.current;
  w.current = target;
  fctx::fcontext_t to = w.scheduler;
  if (target != kScheduler) {
    const FiberThread& th = w.threads[target];
    std::memcpy(w.state.thread_idx, th.idx, sizeof th.idx);
    to = th.context;
  }
  fctx::transfer_t t = fctx::jump_fcontext(to, &w);
  record_from(w, t.fctx);
}

// Lanes waiting in __activemask() get their answer once no lane of their
// warp can run any further: each group of lanes waiting at the same call site
// is what a GPU would run together there.
void resolve_activemask(Worker& w, unsigned warp) {
  WarpState& ws = w.warps[warp];
  if (ws.mask_waiting == 0) return;
  for (unsigned bits = ws.live; bits; bits &= bits - 1)
    if (w.threads[warp * 32 + static_cast<unsigned>(__builtin_ctz(bits))].state ==
        FiberState::runnable)
      return;
  for (unsigned bits = ws.mask_waiting; bits; bits &= bits - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(bits));
    unsigned together = 0;
    for (unsigned others = ws.mask_waiting; others; others &= others - 1) {
      const unsigned other = static_cast<unsigned>(__builtin_ctz(others));
      if (ws.mask_site[other] == ws.mask_site[lane]) together |= 1u << other;
    }
    ws.mask_result[lane] = together;
    w.threads[warp * 32 + lane].state = FiberState::runnable;
  }
  ws.mask_waiting = 0;
}

// The running fiber can go no further for now (it waits, yields or has
// finished): switch straight to the next runnable fiber of the block (one
// jump, not two through the scheduler); to the scheduler only when none is
// runnable (the block is done, failed, or stuck).
void suspend(Worker& w) {
  const unsigned n = static_cast<unsigned>(w.threads.size());
  const unsigned self = w.current;
  if (!w.error) {
    resolve_activemask(w, self >> 5);
    for (unsigned k = 1; k < n; ++k) {
      unsigned j = self + k < n ? self + k : self + k - n;
      if (w.threads[j].state == FiberState::runnable) {
        transfer(w, j);
        return;
      }
    }
    if (w.threads[self].state == FiberState::runnable) return;  // a yield, no one else to run
  }
  transfer(w, kScheduler);
}

void release_barrier(Worker& w) {
  w.result = w.sum;
  w.sum = 0;
  w.arrived = 0;
  for (auto& th : w.threads)
    if (th.state == FiberState::at_barrier) th.state = FiberState::runnable;
}

// Every live thread of the block has arrived. For a grid.sync() the block
// then waits (this OS thread, with all its fibers) for the other blocks.
void complete_barrier(Worker& w) {
  if (w.grid_pending) {
    w.grid_pending = false;
    try {
      w.launch->grid_barrier->arrive_and_wait();
    } catch (...) {
      if (!w.error) w.error = std::current_exception();
    }
  }
  release_barrier(w);
}

void try_release_warp(Worker& w, unsigned warp, unsigned lane) {
  WarpState& ws = w.warps[warp];
  const unsigned group = ws.needed[lane] & ws.live;
  if ((ws.arrived & group) != group) return;
  const unsigned release = group & ws.arrived;
  ws.arrived &= ~release;
  for (unsigned bits = release; bits; bits &= bits - 1)
    w.threads[warp * 32 + static_cast<unsigned>(__builtin_ctz(bits))].state = FiberState::runnable;
}

// Waits until every live lane of `mask` (and the caller) has arrived.
void warp_wait(Worker& w, unsigned mask) {
  const unsigned lane = w.current & 31u;
  const unsigned warp = w.current >> 5;
  WarpState& ws = w.warps[warp];
  ws.arrived |= 1u << lane;
  ws.needed[lane] = mask | (1u << lane);
  w.threads[w.current].state = FiberState::at_warp;
  try_release_warp(w, warp, lane);
  if (w.threads[w.current].state != FiberState::runnable) suspend(w);
}

void thread_exit(Worker& w) {
  const unsigned i = w.current;
  w.threads[i].state = FiberState::done;
  ++w.done;
  --w.live;
  WarpState& ws = w.warps[i >> 5];
  ws.live &= ~(1u << (i & 31u));
  // Exited threads no longer count at barriers (as on the GPU).
  if (w.arrived > 0 && w.arrived == w.live) complete_barrier(w);
  for (unsigned bits = ws.arrived; bits; bits &= bits - 1)
    try_release_warp(w, i >> 5, static_cast<unsigned>(__builtin_ctz(bits)));
}

void fiber_main(fctx::transfer_t t) {
  Worker& w = *static_cast<Worker*>(t.data);
  record_from(w, t.fctx);
  try {
    w.launch->entry->run_thread(w.launch->args);
  } catch (...) {
    if (!w.error) w.error = std::current_exception();
  }
  thread_exit(w);
  suspend(w);
  std::abort();  // a finished fiber is never resumed
}

// ---- the runtime functions the module calls ----------------------------------

int rt_syncthreads_count(int predicate) {
  Worker& w = worker();
  if (!w.fiber_mode) {
    if (w.block_threads == 1) return predicate;
    throw_undetected("__syncthreads()");
  }
  ++w.arrived;
  w.sum += predicate;
  w.threads[w.current].state = FiberState::at_barrier;
  if (w.arrived == w.live) complete_barrier(w);
  if (w.threads[w.current].state != FiberState::runnable) suspend(w);
  return w.result;
}

void rt_grid_sync() {
  Worker& w = worker();
  if (!w.launch->grid_barrier)
    throw KernelFault(
        std::string("running kernel ") + w.launch->kernel_name + " on the CPU backend",
        "the kernel called cooperative_groups::this_grid().sync(), but it was not launched "
        "cooperatively: its blocks are not all resident at once, so the grid barrier can never "
        "complete (undefined on a GPU)",
        {w.launch->kernel_name},
        "launch it with LaunchConfig::cooperative = true and at most "
        "Kernel::max_cooperative_grid_blocks(block size) blocks");
  if (!w.fiber_mode) {
    if (w.block_threads == 1) {
      w.launch->grid_barrier->arrive_and_wait();
      return;
    }
    throw_undetected("cooperative_groups::this_grid().sync()");
  }
  ++w.arrived;
  w.grid_pending = true;
  w.threads[w.current].state = FiberState::at_barrier;
  if (w.arrived == w.live) complete_barrier(w);
  // After a failed grid barrier the scheduler takes over (suspend sees the error).
  if (w.error || w.threads[w.current].state != FiberState::runnable) suspend(w);
}

void rt_syncwarp(unsigned mask) {
  Worker& w = worker();
  if (!w.fiber_mode) {
    if (w.block_threads == 1) return;
    throw_undetected("__syncwarp()");
  }
  warp_wait(w, mask);
}

unsigned long long rt_warp_exchange(unsigned mask, unsigned long long value, int src_lane) {
  Worker& w = worker();
  if (!w.fiber_mode) {
    if (w.block_threads == 1) return value;
    throw_undetected("a warp shuffle");
  }
  WarpState& ws = w.warps[w.current >> 5];
  ws.slots[w.current & 31u] = value;
  warp_wait(w, mask);
  unsigned long long out = value;
  if (src_lane >= 0 && src_lane < 32 && ((ws.present >> src_lane) & 1u)) out = ws.slots[src_lane];
  // A second meeting, so no lane overwrites its slot before all have read.
  warp_wait(w, mask);
  return out;
}

unsigned rt_warp_ballot(unsigned mask, int predicate) {
  Worker& w = worker();
  const unsigned lane = w.current & 31u;
  if (!w.fiber_mode) {
    if (w.block_threads == 1) return predicate ? 1u : 0u;
    throw_undetected("a warp vote");
  }
  WarpState& ws = w.warps[w.current >> 5];
  ws.slots[lane] = predicate ? 1u : 0u;
  warp_wait(w, mask);
  unsigned out = 0;
  for (unsigned bits = (mask | (1u << lane)) & ws.live; bits; bits &= bits - 1) {
    unsigned l = static_cast<unsigned>(__builtin_ctz(bits));
    if (ws.slots[l]) out |= 1u << l;
  }
  warp_wait(w, mask);
  return out;
}

unsigned rt_activemask(const void* site) {
  Worker& w = worker();
  if (!w.fiber_mode) {
    if (w.block_threads == 1) return 1u;
    throw_undetected("__activemask()");
  }
  const unsigned lane = w.current & 31u;
  WarpState& ws = w.warps[w.current >> 5];
  if (site == nullptr) return ws.live;
  ws.mask_site[lane] = site;
  ws.mask_waiting |= 1u << lane;
  w.threads[w.current].state = FiberState::at_activemask;
  suspend(w);
  return ws.mask_result[lane];
}

void* rt_dynamic_shared() { return worker().dynamic_shared; }

void rt_yield() {
  Worker& w = worker();
  if (!w.fiber_mode) return;
  suspend(w);
}

int rt_printf_output(const char* text, std::size_t length) {
  const BlockLaunch* launch = worker().launch;
  if (launch && launch->printf_fifo) return launch->printf_fifo->write(text, length);
  return static_cast<int>(std::fwrite(text, 1, length, stdout));
}

// "block (2,0,0), thread (5,0,0)": where the fault happened.
std::string position(const cudakit_cpu::ThreadStateLayout& s) {
  auto triple = [](const void* at) {
    unsigned v[3];
    std::memcpy(v, at, sizeof v);
    return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) +
           ")";
  };
  return "block " + triple(s.block_idx) + ", thread " + triple(s.thread_idx);
}

void rt_trap(const char* what) {
  Worker& w = worker();
  throw KernelFault(std::string("running kernel ") + w.launch->kernel_name + " on the CPU backend",
                    std::string(what) + " in " + position(w.state), {w.launch->kernel_name},
                    "the kernel stopped itself (__trap, assert or a failed device-side check); "
                    "the next launch runs normally");
}

const cudakit_cpu::RuntimeTable kRuntime = {cudakit_cpu::kAbiVersion,
                                            &rt_syncthreads_count,
                                            &rt_syncwarp,
                                            &rt_warp_exchange,
                                            &rt_warp_ballot,
                                            &rt_activemask,
                                            &rt_dynamic_shared,
                                            &rt_yield,
                                            &rt_trap,
                                            &rt_grid_sync,
                                            &rt_printf_output,
                                            &approx_table_for_module};

void ensure_dynamic_shared(Worker& w, std::size_t bytes) {
  if (bytes <= w.dynamic_capacity && w.dynamic_shared) return;
  std::size_t capacity = std::max<std::size_t>(bytes, 64 * 1024);
  capacity = (capacity + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, capacity);
  if (!p) throw OutOfMemory("allocating dynamic shared memory on the CPU backend", bytes, 0, 0);
  std::free(w.dynamic_shared);
  w.dynamic_shared = p;
  w.dynamic_capacity = capacity;
}

void run_fibers(Worker& w, const BlockLaunch& launch, const unsigned block_idx[3]) {
  const unsigned n = static_cast<unsigned>(launch.block.volume());
  const auto& stacks = w.stacks.reserve(n);
  w.threads.resize(n);
  w.warps.resize((n + 31) / 32);
  for (unsigned warp = 0; warp < w.warps.size(); ++warp) {
    unsigned lanes = std::min(32u, n - warp * 32);
    WarpState& ws = w.warps[warp];
    ws.present = ws.live = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    ws.arrived = 0;
    ws.mask_waiting = 0;
  }
  const unsigned bx = launch.block.x, by = launch.block.y;
  for (unsigned i = 0; i < n; ++i) {
    FiberThread& th = w.threads[i];
    th.idx[0] = i % bx;
    th.idx[1] = (i / bx) % by;
    th.idx[2] = i / (bx * by);
    th.state = FiberState::runnable;
    th.context = fctx::make_fcontext(stacks[i].top(), stacks[i].size, &fiber_main);
  }
  w.live = n;
  w.arrived = 0;
  w.sum = 0;
  w.grid_pending = false;
  w.error = nullptr;
  w.fiber_mode = true;

  w.done = 0;
  w.current = kScheduler;
  // The fibers pass control among themselves; the scheduler gets it back
  // only when none of them can run.
  for (;;) {
    if (w.error) {
      // The other threads of the block are abandoned where they stand; their
      // stacks are reused by the next block.
      w.fiber_mode = false;
      std::rethrow_exception(std::exchange(w.error, nullptr));
    }
    if (w.done == n) break;
    unsigned next = 0;
    while (next < n && w.threads[next].state != FiberState::runnable) ++next;
    if (next < n) {
      transfer(w, next);
      continue;
    }
    {
      unsigned at_barrier = 0, at_warp = 0;
      for (const auto& th : w.threads) {
        at_barrier += th.state == FiberState::at_barrier;
        at_warp += th.state == FiberState::at_warp;
      }
      w.fiber_mode = false;
      throw KernelFault(
          std::string("running kernel ") + launch.kernel_name + " on the CPU backend",
          "block (" + std::to_string(block_idx[0]) + "," + std::to_string(block_idx[1]) + "," +
              std::to_string(block_idx[2]) + ") can never finish: " + std::to_string(at_barrier) +
              " threads wait at __syncthreads() and " + std::to_string(at_warp) +
              " at a warp operation that the other threads never reach",
          {launch.kernel_name},
          "every live thread of a block must reach the same __syncthreads(), and every lane "
          "named in a warp operation's mask must call it; a barrier inside a branch that only "
          "some threads take hangs on a GPU too");
    }
  }
  w.fiber_mode = false;
}

}  // namespace

const cudakit_cpu::RuntimeTable& runtime_table() { return kRuntime; }

namespace {

void run_block_unguarded(const BlockLaunch& launch, unsigned long long block_index) {
  Worker& w = worker();
  const unsigned block_idx[3] = {
      static_cast<unsigned>(block_index % launch.grid.x),
      static_cast<unsigned>((block_index / launch.grid.x) % launch.grid.y),
      static_cast<unsigned>(block_index /
                            (static_cast<unsigned long long>(launch.grid.x) * launch.grid.y))};
  const cudakit_cpu::ThreadStateLayout s = launch.module->thread_state();
  const unsigned block_dim[3] = {launch.block.x, launch.block.y, launch.block.z};
  const unsigned grid_dim[3] = {launch.grid.x, launch.grid.y, launch.grid.z};
  std::memcpy(s.block_idx, block_idx, sizeof block_idx);
  std::memcpy(s.block_dim, block_dim, sizeof block_dim);
  std::memcpy(s.grid_dim, grid_dim, sizeof grid_dim);
  if (launch.dynamic_shared_bytes > 0 || !w.dynamic_shared)
    ensure_dynamic_shared(w, launch.dynamic_shared_bytes);
  w.launch = &launch;
  w.state = s;
  w.block_threads = launch.block.volume();
  if (!launch.entry->uses_barrier || w.block_threads == 1) {
    w.fiber_mode = false;
    launch.entry->run_block(launch.args);
    return;
  }
  run_fibers(w, launch, block_idx);
}

const char* const kCancelHint =
    "the kernel was stopped because the host thread waiting for it was interrupted; the backend "
    "goes on: the next launch runs normally";

[[noreturn]] void throw_hardware_fault(const BlockLaunch& launch, FaultScope& scope) {
  disarm_fault_scope(scope);  // the handler left it; this thread runs no block now
  Worker& w = worker();
  // The block's other threads are abandoned where they stand, as after a
  // failed barrier; the worker starts the next block afresh.
  w.fiber_mode = false;
  w.error = nullptr;
  throw KernelFault(std::string("running kernel ") + launch.kernel_name + " on the CPU backend",
                    describe_fault(scope) + " in " + position(w.state), {launch.kernel_name},
                    fault_was_cancel(scope)
                        ? kCancelHint
                        : "find the line with CUDAKIT_CPU_DEBUG=1 (cudakit run --sanitize -- "
                          "PROGRAM); the backend goes on: the next launch runs normally");
}

[[noreturn, gnu::noinline]] void throw_cancelled(const BlockLaunch& launch) {
  throw KernelFault(std::string("running kernel ") + launch.kernel_name + " on the CPU backend",
                    "the launch was cancelled before all its blocks ran: the host thread waiting "
                    "for it was interrupted (Ctrl-C, KeyboardInterrupt)",
                    {launch.kernel_name}, kCancelHint);
}

}  // namespace

void run_block(const BlockLaunch& launch, unsigned long long block_index) {
  if (launch.epoch < current_cancel_epoch()) [[unlikely]]
    throw_cancelled(launch);
  if (!fault_guard_enabled()) {
    run_block_unguarded(launch, block_index);
    return;
  }
  FaultScope scope;
  scope.epoch = launch.epoch;
  // No signal mask saved (a system call per block): the handler runs with
  // the signal unblocked (SA_NODEFER).
  if (sigsetjmp(scope.jump, 0) != 0) throw_hardware_fault(launch, scope);
  arm_fault_scope(scope);
  try {
    run_block_unguarded(launch, block_index);
  } catch (...) {
    disarm_fault_scope(scope);
    throw;
  }
  disarm_fault_scope(scope);
}

void run_cooperative_grid(const BlockLaunch& launch) {
  const unsigned long long blocks = launch.grid.volume();
  GridBarrier barrier(blocks, launch.kernel_name);
  BlockLaunch cooperative = launch;
  cooperative.grid_barrier = &barrier;

  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto run_one = [&](unsigned long long index) {
    try {
      run_block(cooperative, index);
      barrier.block_finished(index);
    } catch (...) {
      {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
      barrier.abandon("block " + std::to_string(index) + " (linear index) failed");
    }
  };
  {
    std::vector<std::jthread> threads;
    threads.reserve(blocks > 0 ? blocks - 1 : 0);
    try {
      for (unsigned long long i = 1; i < blocks; ++i) threads.emplace_back(run_one, i);
    } catch (const std::system_error& e) {
      barrier.abandon("the CPU backend could not start a thread per block");
      // The blocks already running plus this thread's: what the system allowed.
      const auto started = static_cast<long long>(threads.size()) + 1;
      threads.clear();  // joins those started
      throw LaunchConfigError(
          std::string("launching kernel ") + launch.kernel_name +
              " cooperatively on the CPU backend",
          "OS threads for a cooperative grid (one per block)", static_cast<long long>(blocks),
          started,
          std::string("the system refused a thread (") + e.what() + "); launch fewer blocks");
    }
    run_one(0);
  }  // joins every block's thread
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace cudakit::detail::cpu
