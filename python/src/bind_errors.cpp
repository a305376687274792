// Exception classes in PyCUDA's hierarchy and the C++ -> Python translators.
#include "bindings.hpp"

namespace cudakit::python {

void bind_errors(nb::module_& /*m*/) {}

}  // namespace cudakit::python
