// The exception classes other parts of the extension raise directly.
#pragma once

#include <Python.h>

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

// @cuda.jit(debug=True) on a GPU: points the module's ck_fault_text (the
// translator declares it) at pinned host memory, where the first thread
// that stops the kernel leaves its text (a Python exception's), so that the
// KernelFault raised afterwards carries the text and its class. Does
// nothing when the module has no such variable.
void connect_fault_text(const Module& module) noexcept;

}  // namespace cudakit::python
