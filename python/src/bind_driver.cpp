// cudakit.driver: devices, contexts, memory, streams, events.
#include "bindings.hpp"

namespace cudakit::python {

void bind_driver(nb::module_& /*m*/) {}

}  // namespace cudakit::python
