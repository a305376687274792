// Python launch arguments -> LaunchArgs, in C++: the per-launch work of
// Function.__call__ and the prepared calls.
#pragma once

#include <Python.h>

#include <cstddef>

#include "launch_args.hpp"

namespace cudakit::python {

// Appends args[0..n) to `out`. ArgumentError naming the argument (0-based,
// as PyCUDA counts) and what is accepted when one cannot be passed.
void convert_args(LaunchArgs& out, PyObject* const* args, std::size_t n, const Kernel& kernel);

}  // namespace cudakit::python
