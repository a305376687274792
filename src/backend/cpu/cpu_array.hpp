// The CPU backend's CUDA array: what NativeArray points to. Its elements are
// host memory (allocated as device memory, so they count against the
// device's memory), dense, x fastest, then y, then z (or the layer):
// element (x, y, z) starts at
//   data + z * slice_pitch + y * row_pitch + x * element_bytes.
// A plain struct on purpose: the texture and surface code reads it directly.
#pragma once

#include <cstddef>

#include "backend/backend.hpp"
#include "cudakit/cuda_array.hpp"

namespace cudakit::detail::cpu {

struct CpuArray {
  void* data = nullptr;            // row_pitch * rows * slices bytes
  CudaArrayDescriptor descriptor;  // as created (height / depth 0 for fewer dimensions)
  std::size_t element_bytes = 0;   // channels * bytes of the format
  std::size_t row_pitch = 0;       // bytes from one row to the next: width * element_bytes
  std::size_t slice_pitch = 0;     // bytes from one slice / layer to the next: row_pitch * rows
  std::size_t rows = 1;            // max(height, 1)
  std::size_t slices = 1;          // max(depth, 1)
};

// A new array of zeros; OutOfMemory past the device's memory.
CpuArray* create_cpu_array(const CudaArrayDescriptor& descriptor);
void destroy_cpu_array(CpuArray* array) noexcept;

// The first byte of row (y, z) of the box copy's end, x_bytes included.
char* box_row(const BoxCopyEnd& end, std::size_t y, std::size_t z);
// Bytes from the end's first row of the box to the end of its last.
std::size_t box_bytes(const BoxCopy& copy, const BoxCopyEnd& end);
// The box, row by row (memmove: the two ends may overlap).
void copy_box(const BoxCopy& copy);

}  // namespace cudakit::detail::cpu
