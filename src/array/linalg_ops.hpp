// The two implementations behind matmul: a strided, batched product
// C[b] = A[b] @ B[b] handed to cuBLAS or to a generated tiled kernel.
#pragma once

#include <cstdint>
#include <string>

#include "cudakit/array.hpp"

namespace cudakit::detail {

// One operand: element (b, r, c) is at address + (b * batch + r * row + c * col) * itemsize.
struct MatmulOperand {
  std::uint64_t address = 0;
  std::int64_t row = 0;
  std::int64_t col = 0;
  std::int64_t batch = 0;  // 0 when one matrix serves every batch entry
};

struct MatmulProblem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  MatmulOperand a, b;
  std::uint64_t c = 0;  // C-contiguous m x n matrices, batch after batch
  DType dtype = DType::float32;
};

// The generated kernel's source for `dtype`. large_tiles: 64x64 tiles of
// 256 threads with 4x4 results per thread (GPU); otherwise 16x16 tiles with
// one result per thread (CPU backend, where a thread is a fiber).
std::string matmul_kernel_source(DType dtype, bool large_tiles);
void matmul_generated(const MatmulProblem& problem, const Device& device, const Stream& stream);

// Whether cuBLAS can take this problem here (GPU, dtype, libcublas loads).
bool cublas_usable(const Device& device, DType dtype);
void matmul_cublas(const MatmulProblem& problem, const Device& device, const Stream& stream,
                   bool tf32);

}  // namespace cudakit::detail
