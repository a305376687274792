// cudakit.driver.Function: a kernel and its launch from Python
// (__call__, prepare / prepared_call / prepared_async_call /
// prepared_timed_call, and PyCUDA's attributes).
#pragma once

#include <string>

#include "bindings.hpp"
#include "cudakit/kernel.hpp"

namespace cudakit::python {

PyObject* function_vectorcall(PyObject* self, PyObject* const* args, std::size_t nargsf,
                              PyObject* kwnames) noexcept;

struct Function {
  explicit Function(Kernel k) : kernel(std::move(k)) {}
  // First, so that it sits at one offset from every (inline) instance's
  // start: Python's vectorcall slot for f(*args, block=, grid=).
  vectorcallfunc vectorcall = &function_vectorcall;
  Kernel kernel;
  // prepare()'s argument format (struct-module characters), empty if none.
  std::string prepared_format;
  // Dynamic shared memory given to prepare(); used when a call gives none.
  unsigned prepared_shared = 0;
};

void bind_function(nb::module_& m);

// Wraps a Function for Python and turns on the vectorcall slot of its type
// (once the offset of `vectorcall` inside an instance is known).
nb::object wrap_function(Function f);

// cudakit.debug: synchronize after each launch so a fault names its kernel.
void set_debug_launches(bool on) noexcept;

}  // namespace cudakit::python
