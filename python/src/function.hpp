// cudakit.driver.Function: a kernel and its launch from Python
// (__call__, prepare / prepared_call / prepared_async_call /
// prepared_timed_call, and PyCUDA's attributes).
#pragma once

#include <string>

#include "bindings.hpp"
#include "cudakit/kernel.hpp"

namespace cudakit::python {

struct Function {
  explicit Function(Kernel k) : kernel(std::move(k)) {}
  Kernel kernel;
  // prepare()'s argument format (struct-module characters), empty if none.
  std::string prepared_format;
  // Dynamic shared memory given to prepare(); used when a call gives none.
  unsigned prepared_shared = 0;
};

void bind_function(nb::module_& m);

// cudakit.debug: synchronize after each launch so a fault names its kernel.
void set_debug_launches(bool on) noexcept;

}  // namespace cudakit::python
