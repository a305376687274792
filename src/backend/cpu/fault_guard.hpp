// Hardware faults inside a CPU-backend kernel become KernelFault exceptions
// instead of killing the process: a wild or null pointer (SIGSEGV/SIGBUS),
// a fiber stack overflow, an illegal instruction. Integer division by zero
// and INT_MIN / -1 do not fault on a GPU, so they do not fault here either:
// the division is completed with the value a GPU gives (quotient all bits
// set, remainder the dividend; INT_MIN / -1 wraps to INT_MIN) and the kernel
// goes on.
//
// Off under CUDAKIT_CPU_DEBUG (AddressSanitizer reports faults itself, with
// the line) and with CUDAKIT_CPU_FAULTS=0 (a debugger then stops at the
// faulting instruction).
#pragma once

#include <csetjmp>
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
};

// Whether faults are caught (the handlers are installed on first use).
bool fault_guard_enabled();

// Makes `scope` the one the handler returns to; installs the handlers and
// this thread's signal stack on first use.
void arm_fault_scope(FaultScope& scope);
void disarm_fault_scope(FaultScope& scope) noexcept;

// "a null pointer was dereferenced (address 0x0)" etc.
std::string describe_fault(const FaultScope& scope);

}  // namespace cudakit::detail::cpu
