// The Numba-style cudakit.cuda layer.
#include "bindings.hpp"

namespace cudakit::python {

void bind_jit(nb::module_& /*m*/) {}

}  // namespace cudakit::python
