// The exception classes other parts of the extension raise directly.
#pragma once

#include <Python.h>

#include <string>

#include "cudakit/module.hpp"

namespace cudakit::python {

// cudakit.driver.ArgumentError (a LogicError and a ValueError).
PyObject* argument_error_class() noexcept;
// cudakit.driver.NotSupported (an Error and a NotImplementedError).
PyObject* not_supported_class() noexcept;

// Sets the Python error for the exception being handled (call it in a catch
// block of a function Python calls directly, outside nanobind's dispatch):
// cudakit's errors become their Python classes, as nanobind would raise them.
void raise_current_exception() noexcept;

// @cuda.jit kernels on a GPU: points the module's ck_fault_text (the
// translator declares it where a kernel has a device-side check: an index
// out of bounds with debug=True, a division by zero, the program's own
// raise, a shape that does not fit) at pinned host memory, where the first
// thread that fails a check leaves its text (a Python exception's) before
// it ends itself; the context stays usable. false (a failed check then
// traps, as CUDA C's assert) when the module has no such variable.
bool connect_fault_text(const Module& module) noexcept;

// The text a failing thread left, once: cleared when taken; empty if none.
std::string take_fault_text();
// Whether a text is waiting to be taken (a read of pinned memory).
bool fault_text_pending() noexcept;
// Throws the waiting text as a KernelFault (its builtin's subclass, through
// the translation) naming `kernel` (empty: a kernel launched earlier); does
// nothing when none waits.
void raise_pending_fault(const std::string& kernel);

}  // namespace cudakit::python
