// Hardware faults inside a CPU-backend kernel become KernelFault exceptions
// instead of killing the process: a wild or null pointer (SIGSEGV/SIGBUS),
// a fiber stack overflow, an illegal instruction. Integer division by zero
// and INT_MIN / -1 do not fault on a GPU, so they do not fault here either:
// the division is completed with the value a GPU gives (quotient all bits
// set, remainder the dividend; INT_MIN / -1 wraps to INT_MIN) and the kernel
// goes on.
//
// The same handler turns a copy from or to an address that is not memory
// into an error instead of a dead process, and stops the blocks of launches
// that a waiting host thread gave up on (Ctrl-C): a signal of its own
// (kCancelSignal) jumps out of the kernel's code as a fault would.
//
// Off under CUDAKIT_CPU_DEBUG (AddressSanitizer reports faults itself, with
// the line) and with CUDAKIT_CPU_FAULTS=0 (a debugger then stops at the
// faulting instruction).
#pragma once

#include <csetjmp>
#include <cstdint>
#include <string>

namespace cudakit::detail::cpu {

// Armed around the code of one block on the calling thread. The fault
// handler jumps back to `jump` (set by the caller with sigsetjmp(jump, 0)).
struct FaultScope {
  sigjmp_buf jump;
  int signal = 0;
  int code = 0;
  void* address = nullptr;
  FaultScope* previous = nullptr;
  // The cancel epoch of the launch whose block runs in the scope (see
  // cancel_running_launches); kNotCancellable for a copy.
  std::uint64_t epoch = kNotCancellable;
  static constexpr std::uint64_t kNotCancellable = ~std::uint64_t{0};
};

// Whether faults are caught (the handlers are installed on first use).
bool fault_guard_enabled();

// Makes `scope` the one the handler returns to; installs the handlers and,
// with `signal_stack`, this thread's signal stack (which a fiber stack
// overflow needs) on first use.
void arm_fault_scope(FaultScope& scope, bool signal_stack = true);
void disarm_fault_scope(FaultScope& scope) noexcept;

// "a null pointer was dereferenced (address 0x0)" etc.
std::string describe_fault(const FaultScope& scope);
// Whether the scope was left because its launch was cancelled.
bool fault_was_cancel(const FaultScope& scope) noexcept;

// ---- cancelling launches ---------------------------------------------------
// The epoch a launch starting now records; a launch is cancelled once the
// epoch has moved past the one it recorded.
std::uint64_t current_cancel_epoch() noexcept;
// Cancels every launch that started before the call: their blocks not yet
// begun fail at once, and those running are stopped at their next
// instruction in a kernel module's code (not inside a C library call, where
// a lock may be held: such a thread is signalled again until it is back in
// kernel code). Returns when no such block runs any more, or after about
// two seconds. A launch that is stopped fails with a KernelFault.
void cancel_running_launches();
// The executable code of a loaded module: where a block may be stopped.
void add_kernel_code(std::uintptr_t begin, std::uintptr_t end) noexcept;
void remove_kernel_code(std::uintptr_t begin) noexcept;

}  // namespace cudakit::detail::cpu
