// The CUDA backend: the driver API and NVRTC, both loaded with dlopen.
#pragma once

#include <memory>

#include "backend/backend.hpp"

namespace cudakit::detail {

// Never needs the driver to be created: compile() and compiler_identity()
// work with NVRTC alone (compile-only machines, CI). The driver is loaded and
// initialised by the first call that needs a device; that call throws
// DriverNotFound when libcuda cannot be loaded (device_count() included, which
// is how backend_available() learns there is no usable GPU).
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace cudakit::detail
