// Waiting for device work that never ends (a kernel in an endless loop) can
// be interrupted. On the CPU backend a host thread that has waited about
// 50 ms for device work (a synchronize, a synchronous copy, an event) calls
// the installed check, and again every 50 ms while it waits; the check
// throws to abandon the wait. Before the exception leaves the wait, the
// kernels running at that moment are cancelled: they stop at their next
// instruction in kernel code and their launches fail with a KernelFault
// (reported at the stream's next synchronization), so the program can go
// on, or exit without waiting for them.
//
// The Python extension installs a check that raises KeyboardInterrupt when
// Ctrl-C was pressed (PyErr_CheckSignals), so Ctrl-C stops a runaway kernel
// there. A C++ program may install its own (e.g. one that throws when a
// flag set by its SIGINT handler is up). A wait inside a destructor (freeing
// memory, unloading a module) cannot throw: when its check throws, the
// running kernels are cancelled all the same and the exception is dropped.
// The CUDA backend waits in the driver and does not call the check.
#pragma once

namespace cudakit {

using WaitInterruptCheck = void (*)();

// Installs `check` for every thread (null: waits are not interrupted).
void set_wait_interrupt_check(WaitInterruptCheck check) noexcept;
WaitInterruptCheck wait_interrupt_check() noexcept;

// Cancels the CPU backend's launches running now, as an interrupted wait
// does (their launches fail with a KernelFault); returns once their blocks
// have stopped, or after about two seconds. For a program that is exiting
// with kernels still running (the Python extension calls it at exit after a
// Ctrl-C nothing caught). Nothing to do on the CUDA backend.
void cancel_running_kernels();

}  // namespace cudakit
