// The CUDA backend: the driver API and NVRTC, both loaded with dlopen.
#pragma once

#include <memory>

#include "backend/backend.hpp"

namespace cudakit::detail {

// Throws DriverNotFound when libcuda cannot be loaded or initialised.
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace cudakit::detail
