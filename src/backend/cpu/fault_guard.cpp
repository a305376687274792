#include "backend/cpu/fault_guard.hpp"

#include <pthread.h>
#include <signal.h>
#include <ucontext.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "backend/cpu/device_memory.hpp"
#include "backend/cpu/host_compiler.hpp"

namespace cudakit::detail::cpu {
namespace {

thread_local FaultScope* active_scope = nullptr;

// ---- what cancelling needs --------------------------------------------------

std::atomic<std::uint64_t> cancel_epoch{0};

// A real-time signal: no default use, queued per thread. Installed only when
// a launch is first cancelled.
int cancel_signal() { return SIGRTMIN + 5; }

// A thread that runs blocks, and the epoch of the launch whose block it runs
// (kNotCancellable: none).
struct Runner {
  pthread_t thread;
  std::atomic<std::uint64_t> epoch{FaultScope::kNotCancellable};
};
std::mutex& runners_mutex() {
  static std::mutex& m = *new std::mutex;
  return m;
}
std::vector<Runner*>& runners() {
  static std::vector<Runner*>& v = *new std::vector<Runner*>;
  return v;
}
// Listed while the thread lives, so a signal never goes to a thread gone.
struct RunnerSlot {
  Runner* runner = nullptr;
  ~RunnerSlot() {
    if (!runner) return;
    {
      std::lock_guard lock(runners_mutex());
      auto& all = runners();
      all.erase(std::remove(all.begin(), all.end(), runner), all.end());
    }
    delete runner;
  }
};
thread_local RunnerSlot runner_slot;

Runner& this_runner() {
  RunnerSlot& slot = runner_slot;
  if (!slot.runner) {
    auto runner = std::make_unique<Runner>();
    runner->thread = pthread_self();
    std::lock_guard lock(runners_mutex());
    runners().push_back(runner.get());
    slot.runner = runner.release();
  }
  return *slot.runner;
}

// The executable segments of loaded modules, read by the signal handler
// without a lock: a slot is free when its begin is 0.
constexpr std::size_t kCodeSlots = 1024;
std::atomic<std::uintptr_t> code_begin[kCodeSlots];
std::atomic<std::uintptr_t> code_end[kCodeSlots];
std::mutex code_mutex;

bool in_kernel_code(std::uintptr_t pc) noexcept {
  for (std::size_t i = 0; i < kCodeSlots; ++i) {
    const std::uintptr_t begin = code_begin[i].load(std::memory_order_acquire);
    if (begin != 0 && pc >= begin && pc < code_end[i].load(std::memory_order_relaxed)) return true;
  }
  return false;
}

std::uintptr_t program_counter(void* raw_context) noexcept {
  const auto* context = static_cast<const ucontext_t*>(raw_context);
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(context->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(context->uc_mcontext.pc);
#else
  (void)context;
  return 0;  // never in kernel code: blocks are not stopped on this architecture
#endif
}

void on_cancel(int signal, siginfo_t*, void* raw_context) {
  FaultScope* scope = active_scope;
  if (!scope || scope->epoch == FaultScope::kNotCancellable ||
      scope->epoch >= cancel_epoch.load(std::memory_order_acquire))
    return;
  // Inside a C library call (printf, malloc) a lock may be held: the
  // canceller signals again until the thread is back in the kernel's code.
  if (!in_kernel_code(program_counter(raw_context))) return;
  scope->signal = signal;
  scope->code = 0;
  scope->address = nullptr;
  active_scope = scope->previous;
  siglongjmp(scope->jump, 1);
}

void install_cancel_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &on_cancel;
    sigemptyset(&action.sa_mask);
    // As the fault handlers: left with siglongjmp (SA_NODEFER), on the
    // signal stack; a system call it interrupts elsewhere is restarted.
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
    sigaction(cancel_signal(), &action, nullptr);
  });
}

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction previous_actions[sizeof kSignals / sizeof kSignals[0]];

#if defined(__x86_64__)
// General registers in the instruction encoding's order.
constexpr int kRegisterSlot[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                   REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                   REG_R12, REG_R13, REG_R14, REG_R15};

// Completes a faulting 32- or 64-bit DIV/IDIV (opcode F7 /6 or /7) the way
// a GPU does and steps over it. False for anything it does not recognise.
bool complete_division(ucontext_t* context) {
  greg_t* regs = context->uc_mcontext.gregs;
  const auto* p = reinterpret_cast<const std::uint8_t*>(regs[REG_RIP]);
  std::uint8_t rex = 0;
  if ((*p & 0xF0) == 0x40) rex = *p++;
  if (*p++ != 0xF7) return false;
  const std::uint8_t modrm = *p++;
  const unsigned op = (modrm >> 3) & 7u, mod = modrm >> 6, rm = modrm & 7u;
  if (op != 6 && op != 7) return false;
  const bool wide = rex & 0x8;
  const bool is_signed = op == 7;
  auto reg = [&](unsigned index) { return static_cast<std::uint64_t>(regs[kRegisterSlot[index]]); };
  std::uint64_t divisor = 0;
  if (mod == 3) {
    divisor = reg(rm | ((rex & 1u) << 3));
  } else {
    std::uint64_t address = 0;
    bool rip_relative = false;
    if (rm == 4) {
      const std::uint8_t sib = *p++;
      const unsigned scale = sib >> 6, index = ((sib >> 3) & 7u) | ((rex & 2u) << 2),
                     base = (sib & 7u) | ((rex & 1u) << 3);
      if (index != 4) address += reg(index) << scale;
      if ((sib & 7u) == 5 && mod == 0) {
        std::int32_t disp;
        std::memcpy(&disp, p, 4);
        p += 4;
        address += static_cast<std::uint64_t>(static_cast<std::int64_t>(disp));
      } else {
        address += reg(base);
      }
    } else if (rm == 5 && mod == 0) {
      rip_relative = true;
    } else {
      address = reg(rm | ((rex & 1u) << 3));
    }
    if (mod == 1) {
      address +=
          static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(*p)));
      p += 1;
    } else if (mod == 2 || rip_relative) {
      std::int32_t disp;
      std::memcpy(&disp, p, 4);
      p += 4;
      address += static_cast<std::uint64_t>(static_cast<std::int64_t>(disp));
      if (rip_relative) address += reinterpret_cast<std::uint64_t>(p);
    }
    if (wide) {
      std::memcpy(&divisor, reinterpret_cast<const void*>(address), 8);
    } else {
      std::uint32_t d32;
      std::memcpy(&d32, reinterpret_cast<const void*>(address), 4);
      divisor = d32;
    }
  }
  const std::uint64_t mask = wide ? ~std::uint64_t{0} : 0xFFFFFFFFull;
  divisor &= mask;
  const std::uint64_t dividend = reg(0) & mask;
  std::uint64_t quotient, remainder;
  if (divisor == 0) {
    quotient = mask;  // all bits set
    remainder = dividend;
  } else if (is_signed && divisor == mask) {
    quotient = dividend;  // INT_MIN / -1 wraps to INT_MIN
    remainder = 0;
  } else {
    return false;  // an unsigned quotient too large: not produced by C code
  }
  regs[REG_RAX] = static_cast<greg_t>(quotient);
  regs[REG_RDX] = static_cast<greg_t>(remainder);
  regs[REG_RIP] = static_cast<greg_t>(reinterpret_cast<std::uintptr_t>(p));
  return true;
}
#else
bool complete_division(ucontext_t*) { return false; }
#endif

void on_fault(int signal, siginfo_t* info, void* raw_context) {
  FaultScope* scope = active_scope;
  if (scope) {
    if (signal == SIGFPE && complete_division(static_cast<ucontext_t*>(raw_context))) return;
    scope->signal = signal;
    scope->code = info ? info->si_code : 0;
    scope->address = info ? info->si_addr : nullptr;
    active_scope = scope->previous;
    siglongjmp(scope->jump, 1);
  }
  // Not inside a kernel: what would have happened without us.
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    if (kSignals[i] != signal) continue;
    const struct sigaction& old = previous_actions[i];
    if (old.sa_flags & SA_SIGINFO) {
      if (old.sa_sigaction) {
        old.sa_sigaction(signal, info, raw_context);
        return;
      }
    } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
      old.sa_handler(signal);
      return;
    }
  }
  ::signal(signal, SIG_DFL);  // returning re-runs the instruction, which now kills
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
      struct sigaction action {};
      action.sa_sigaction = &on_fault;
      sigemptyset(&action.sa_mask);
      // SA_NODEFER: the handler leaves with siglongjmp and no saved mask,
      // so the signal must not stay blocked. SA_ONSTACK: a fiber stack
      // overflow has no stack left to run the handler on.
      action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
      sigaction(kSignals[i], &action, &previous_actions[i]);
    }
  });
}

// A stack for the handler on each thread that runs blocks.
void ensure_signal_stack() {
  thread_local std::unique_ptr<char[]> stack;
  if (stack) return;
  constexpr std::size_t size = 64 * 1024;
  stack.reset(new char[size]);
  stack_t ss{};
  ss.ss_sp = stack.get();
  ss.ss_size = size;
  sigaltstack(&ss, nullptr);
}

}  // namespace

bool fault_guard_enabled() {
  static const bool on = [] {
    if (debug_enabled()) return false;
    const char* v = std::getenv("CUDAKIT_CPU_FAULTS");
    return !(v && std::string_view(v) == "0");
  }();
  return on;
}

void arm_fault_scope(FaultScope& scope, bool signal_stack) {
  install_handlers();
  if (signal_stack) ensure_signal_stack();
  if (scope.epoch != FaultScope::kNotCancellable)
    this_runner().epoch.store(scope.epoch, std::memory_order_release);
  scope.previous = active_scope;
  active_scope = &scope;
}

void disarm_fault_scope(FaultScope& scope) noexcept {
  if (active_scope == &scope) active_scope = scope.previous;
  if (scope.epoch != FaultScope::kNotCancellable && runner_slot.runner)
    runner_slot.runner->epoch.store(FaultScope::kNotCancellable, std::memory_order_release);
}

bool fault_was_cancel(const FaultScope& scope) noexcept { return scope.signal == cancel_signal(); }

std::uint64_t current_cancel_epoch() noexcept {
  return cancel_epoch.load(std::memory_order_relaxed);
}

void cancel_running_launches() {
  const std::uint64_t now = cancel_epoch.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (!fault_guard_enabled()) return;  // blocks not yet begun still fail
  install_cancel_handler();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    bool running = false;
    {
      std::lock_guard lock(runners_mutex());
      for (Runner* r : runners()) {
        const std::uint64_t epoch = r->epoch.load(std::memory_order_acquire);
        if (epoch == FaultScope::kNotCancellable || epoch >= now) continue;
        running = true;
        pthread_kill(r->thread, cancel_signal());
      }
    }
    if (!running || std::chrono::steady_clock::now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void add_kernel_code(std::uintptr_t begin, std::uintptr_t end) noexcept {
  if (begin == 0 || end <= begin) return;
  std::lock_guard lock(code_mutex);
  for (std::size_t i = 0; i < kCodeSlots; ++i) {
    if (code_begin[i].load(std::memory_order_relaxed) != 0) continue;
    code_end[i].store(end, std::memory_order_relaxed);
    code_begin[i].store(begin, std::memory_order_release);
    return;
  }
  // All slots taken: blocks of this module cannot be stopped, only failed
  // before they begin.
}

void remove_kernel_code(std::uintptr_t begin) noexcept {
  std::lock_guard lock(code_mutex);
  for (std::size_t i = 0; i < kCodeSlots; ++i)
    if (code_begin[i].load(std::memory_order_relaxed) == begin) {
      code_begin[i].store(0, std::memory_order_release);
      code_end[i].store(0, std::memory_order_relaxed);
      return;
    }
}

std::string describe_fault(const FaultScope& scope) {
  if (fault_was_cancel(scope))
    return "the launch was cancelled: the host thread waiting for it was interrupted (Ctrl-C, "
           "KeyboardInterrupt)";
  char address[32];
  std::snprintf(address, sizeof address, "%p", scope.address);
  const auto where = reinterpret_cast<std::uintptr_t>(scope.address);
  switch (scope.signal) {
    case SIGSEGV:
      if (where < 4096)
        return std::string("a null pointer was dereferenced (address ") + address + ")";
      if (std::string overrun = DeviceMemory::instance().describe_overrun(where); !overrun.empty())
        return std::string("an access ") + overrun + " (address " + address +
               ", in the guard page that follows it)";
      return std::string("an invalid address was accessed (") + address +
             (scope.code == SEGV_ACCERR ? ", not accessible: a freed buffer, read-only memory or "
                                          "the end of a fiber stack"
                                        : ", not mapped") +
             ")";
    case SIGBUS:
      return std::string("a misaligned or unbacked address was accessed (") + address + ")";
    case SIGFPE:
      return "an arithmetic fault";
    case SIGILL:
      return std::string("an illegal instruction was reached at ") + address;
    default:
      return "signal " + std::to_string(scope.signal);
  }
}

}  // namespace cudakit::detail::cpu
