// The CPU backend: CUDA C kernels compiled by the host C++ compiler and run
// on a thread pool, the threads of a block as fibers.
#pragma once

#include <memory>

#include "backend/backend.hpp"

namespace cudakit::detail {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace cudakit::detail
