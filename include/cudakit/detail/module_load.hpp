// Loading compiled code together with the source it was compiled from, for
// front ends that run their own compile cache (the Python bindings' SourceModule):
// the module keeps the source, from which the core reads the kernels' parameter
// types. Not public API.
#pragma once

#include <string>

#include "cudakit/compiled_code.hpp"
#include "cudakit/device.hpp"
#include "cudakit/module.hpp"

namespace cudakit::detail {

Module load_module_with_source(const CompiledCode& code, const Device& device, std::string source);

}  // namespace cudakit::detail
