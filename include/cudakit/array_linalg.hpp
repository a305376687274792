// Matrix products of device arrays: matmul of 2-D and batched (3-D) arrays
// through cuBLAS when it is installed (loaded at run time, never linked), and
// a generated tiled kernel where it is not and on the CPU backend.
#pragma once

#include "cudakit/array.hpp"

namespace cudakit {

// NumPy's matmul for operands of 1 to 3 dimensions: a 1-D left operand is a
// row, a 1-D right operand a column (that axis is dropped from the result);
// 3-D operands are stacks of matrices whose batch extents must match or be 1
// (a 2-D operand is used for every batch entry). Operands of different dtypes
// are promoted (NumPy's rules) first. float16 and bfloat16 accumulate in
// float32. ArgumentError when the inner extents differ, for more than 3
// dimensions, for 0-d operands and for complex dtypes.
Array matmul(const Array& a, const Array& b);

// TensorFloat-32 for float32 products on GPUs that have it (about 8x faster,
// ~1e-3 relative error). Off by default, as in PyTorch; process-wide.
void set_allow_tf32(bool allow) noexcept;
bool allow_tf32() noexcept;

// Which implementation computes matmul. automatic: cuBLAS for float16,
// bfloat16, float32 and float64 on a GPU when libcublas loads, the generated
// kernel otherwise. The others force one (cublas: CublasNotFound if missing;
// ArgumentError on the CPU backend or for other dtypes). Process-wide.
enum class MatmulEngine { automatic, cublas, generated };
void set_matmul_engine(MatmulEngine engine) noexcept;
MatmulEngine matmul_engine() noexcept;

}  // namespace cudakit
