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

// cudakit.cuda's DeviceNDArray class, named once when that module is imported:
// its arrays are then passed by their C++ object (`_array`), without building
// the __cuda_array_interface__ dict on each launch.
void set_device_ndarray_type(PyObject* type);

}  // namespace cudakit::python
