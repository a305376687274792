// The exception classes other parts of the extension raise directly.
#pragma once

#include <Python.h>

namespace cudakit::python {

// cudakit.driver.ArgumentError (a LogicError and a ValueError).
PyObject* argument_error_class() noexcept;
// cudakit.driver.NotSupported (an Error and a NotImplementedError).
PyObject* not_supported_class() noexcept;

}  // namespace cudakit::python
