// The exception classes other parts of the extension raise directly.
#pragma once

#include <Python.h>

namespace cudakit::python {

// cudakit.driver.ArgumentError (a LogicError and a ValueError).
PyObject* argument_error_class() noexcept;
// cudakit.driver.NotSupported (an Error and a NotImplementedError).
PyObject* not_supported_class() noexcept;

// Sets the Python error for the exception being handled (call it in a catch
// block of a function Python calls directly, outside nanobind's dispatch):
// cudakit's errors become their Python classes, as nanobind would raise them.
void raise_current_exception() noexcept;

}  // namespace cudakit::python
