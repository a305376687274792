// cudakit.compiler: SourceModule's compile, Function and its launch path.
#include "bindings.hpp"

namespace cudakit::python {

void bind_compiler(nb::module_& /*m*/) {}

}  // namespace cudakit::python
