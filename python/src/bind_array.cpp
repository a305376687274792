// Device arrays: cudakit.gpuarray and the kernels built on it.
#include "bindings.hpp"

namespace cudakit::python {

void bind_array(nb::module_& /*m*/) {}

}  // namespace cudakit::python
