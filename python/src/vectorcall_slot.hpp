// Python's vectorcall protocol for a nanobind class: f(*args) hands the
// arguments over as an array, with no tuple, no kwargs dict and no bound
// method. The C++ object holds a `vectorcallfunc` member; once the offset of
// that member inside a Python instance is known, the type's vectorcall slot
// is turned on.
#pragma once

#include <Python.h>

#include "bindings.hpp"

namespace cudakit::python {

// Turns on the vectorcall slot of `instance`'s type at the offset of `slot`
// (a member of the C++ object inside it). nanobind keeps an object returned
// by value inside the instance, so the offset is the same for every instance
// of the type; where it is not inside, the type keeps its plain __call__
// (slower, same behaviour). `what` names the type in the error raised if two
// instances disagree on the offset.
void enable_vectorcall(nb::handle instance, const vectorcallfunc* slot, const char* what);

}  // namespace cudakit::python
