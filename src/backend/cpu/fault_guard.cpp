#include "backend/cpu/fault_guard.hpp"

#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>

#include "backend/cpu/host_compiler.hpp"

namespace cudakit::detail::cpu {
namespace {

thread_local FaultScope* active_scope = nullptr;

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

void arm_fault_scope(FaultScope& scope) {
  install_handlers();
  ensure_signal_stack();
  scope.previous = active_scope;
  active_scope = &scope;
}

void disarm_fault_scope(FaultScope& scope) noexcept {
  if (active_scope == &scope) active_scope = scope.previous;
}

std::string describe_fault(const FaultScope& scope) {
  char address[32];
  std::snprintf(address, sizeof address, "%p", scope.address);
  const auto where = reinterpret_cast<std::uintptr_t>(scope.address);
  switch (scope.signal) {
    case SIGSEGV:
      if (where < 4096)
        return std::string("a null pointer was dereferenced (address ") + address + ")";
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
