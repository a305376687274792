// cudakit._core: the one extension module behind the cudakit package.
#include "bindings.hpp"

NB_MODULE(_core, m) {
  m.doc() = "cudakit's C++ core: devices, memory, compilation, checked launches, arrays";
  // Errors first: the other parts register functions whose exceptions must
  // already translate.
  cudakit::python::bind_errors(m);
  cudakit::python::bind_driver(m);
  cudakit::python::bind_compiler(m);
  cudakit::python::bind_linker(m);
  cudakit::python::bind_array(m);
  cudakit::python::bind_jit(m);
  cudakit::python::bind_profiler(m);
  cudakit::python::bind_communicator(m);
  cudakit::python::bind_textures(m);
}
