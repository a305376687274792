// cudakit.driver.Function: a kernel and its launch from Python
// (__call__, prepare / prepared_call / prepared_async_call /
// prepared_timed_call, and PyCUDA's attributes).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "cudakit/kernel.hpp"
#include "support/c_types.hpp"

namespace cudakit::python {

PyObject* function_vectorcall(PyObject* self, PyObject* const* args, std::size_t nargsf,
                              PyObject* kwnames) noexcept;

// An extents object (block=, grid=) and what it was read as.
struct ExtentsCache {
  nb::object object;
  Dim3 value;
};

// A vectorcall's keyword-name tuple and where each launch keyword (block,
// grid, stream, shared, texrefs, time_kernel) sits in it (-1: absent).
struct KeywordPositions {
  nb::object names;
  std::array<std::int16_t, 6> position{};
  Py_ssize_t matched = 0;  // how many of the names are launch keywords
};

struct Function {
  explicit Function(Kernel k) : kernel(std::move(k)) {
    // What each pointer parameter points to, read once: a launch compares
    // the element type of the arrays passed for them (a float32 array for
    // an int* is refused).
    for (const Param& p : kernel.params().params)
      pointees.push_back(p.kind == ParamKind::pointer ? detail::pointee_element_type(p.type)
                                                      : ElementType{});
  }
  // First, so that it sits at one offset from every (inline) instance's
  // start: Python's vectorcall slot for f(*args, block=, grid=).
  vectorcallfunc vectorcall = &function_vectorcall;
  Kernel kernel;
  // prepare()'s argument format (struct-module characters), empty if none.
  std::string prepared_format;
  // Dynamic shared memory given to prepare(); used when a call gives none.
  unsigned prepared_shared = 0;
  std::vector<ElementType> pointees;
  // How pickle rebuilds it in another process (the SourceModule's recipe and
  // this kernel's name, set by cudakit.compiler); None for kernels of modules
  // that cannot be rebuilt from source.
  nb::object pickle_origin = nb::none();
  // The last launch's keyword names and extents, kept so a loop launching
  // from one call site reads them once (a held int or tuple of ints cannot
  // change, so the same object means the same extents).
  KeywordPositions keyword_positions;
  ExtentsCache block_cache;
  ExtentsCache grid_cache;
};

void bind_function(nb::module_& m);

// Wraps a Function for Python and turns on the vectorcall slot of its type
// (once the offset of `vectorcall` inside an instance is known).
nb::object wrap_function(Function f);

// cudakit.debug: synchronize after each launch so a fault names its kernel.
void set_debug_launches(bool on) noexcept;

}  // namespace cudakit::python
