// The parts of the cudakit._core extension, one function per area; each is
// defined in its own bind_*.cpp and called once from module.cpp.
#pragma once

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace cudakit::python {

// Exception classes (PyCUDA's hierarchy) and the C++ -> Python translators.
void bind_errors(nb::module_& m);
// Devices, contexts, memory, streams, events, In/Out/InOut (pycuda.driver).
void bind_driver(nb::module_& m);
// SourceModule's compile, Function and its launch path (pycuda.compiler).
void bind_compiler(nb::module_& m);
// The device-code linker (driver.Linker, compiler.DynamicModule) and
// loading modules from bytes and files (driver.module_from_buffer / _file).
void bind_linker(nb::module_& m);
// Device arrays (cudakit.gpuarray and the kernels built on it).
void bind_array(nb::module_& m);
// The Numba-style cudakit.cuda layer.
void bind_jit(nb::module_& m);
// ProfileSession and benchmark() (cudakit.profiler).
void bind_profiler(nb::module_& m);
// Texture and surface objects (driver.TextureObject / SurfaceObject).
void bind_textures(nb::module_& m);
// get_unique_id() and Communicator (the core of cudakit.distributed).
void bind_communicator(nb::module_& m);

}  // namespace cudakit::python
