// A CudaArrayDescriptor in one expression, for the CUDA array tests.
#pragma once

#include <cstddef>

#include "cudakit/cuda_array.hpp"

namespace cudakit::test {

inline CudaArrayDescriptor array_descriptor(std::size_t w, std::size_t h, std::size_t d,
                                            ArrayFormat format = ArrayFormat::float32,
                                            unsigned channels = 1, unsigned flags = 0) {
  CudaArrayDescriptor desc;
  desc.width = w;
  desc.height = h;
  desc.depth = d;
  desc.format = format;
  desc.channels = channels;
  desc.flags = flags;
  return desc;
}

}  // namespace cudakit::test
