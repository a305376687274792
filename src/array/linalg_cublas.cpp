// matmul through the backend's vendor library (cuBLAS on the CUDA backend):
// the row-major problem restated in column-major BLAS terms. No CUDA or
// cuBLAS type appears here; the backend owns the library and its handles.
#include <algorithm>
#include <string>

#include "array/array_util.hpp"
#include "array/linalg_ops.hpp"
#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {

namespace {

bool gemm_dtype(DType dtype) {
  return dtype == DType::float16 || dtype == DType::bfloat16 || dtype == DType::float32 ||
         dtype == DType::float64;
}

// BLAS is column-major: a row-major matrix with unit column stride is, read
// column-major, its own transpose with leading dimension = row stride; one
// with unit row stride is the matrix itself, so it needs a transpose.
bool describe(const MatmulOperand& op, std::int64_t rows, std::int64_t cols, bool& transpose,
              std::int64_t& ld) {
  if (op.col == 1 && (rows <= 1 || op.row >= cols)) {
    transpose = false;
    ld = rows <= 1 ? std::max<std::int64_t>(cols, 1) : op.row;
    return true;
  }
  if (op.row == 1 && (cols <= 1 || op.col >= rows)) {
    transpose = true;
    ld = cols <= 1 ? std::max<std::int64_t>(rows, 1) : op.col;
    return true;
  }
  return false;
}

}  // namespace

bool cublas_usable(const Device& device, DType dtype) {
  if (device.backend_kind() != BackendKind::cuda || !gemm_dtype(dtype)) return false;
  return detail::backend_of(device).gemm_available(scalar_type_of(dtype));
}

void matmul_cublas(const MatmulProblem& p, const Device& device, const Stream& stream, bool tf32) {
  bool transpose_a = false, transpose_b = false;
  std::int64_t ld_a = 0, ld_b = 0;
  if (!describe(p.a, p.m, p.k, transpose_a, ld_a) || !describe(p.b, p.k, p.n, transpose_b, ld_b))
    throw ArgumentError("matmul through cuBLAS", "an operand has no unit stride",
                        "pass contiguous operands");
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  GemmRequest r;
  r.type = scalar_type_of(p.dtype);
  r.transpose_a = transpose_b;
  r.transpose_b = transpose_a;
  r.m = p.n;
  r.n = p.m;
  r.k = p.k;
  r.a = p.b.address;
  r.lda = ld_b;
  r.stride_a = p.b.batch;
  r.b = p.a.address;
  r.ldb = ld_a;
  r.stride_b = p.a.batch;
  r.c = p.c;
  r.ldc = p.n;
  r.stride_c = p.m * p.n;
  r.batch = p.batch;
  r.allow_tf32 = tf32;
  try {
    detail::backend_of(device).gemm(device.ordinal(), stream.native(), r);
  } catch (const CudaError& e) {
    // Name the product as the user wrote it (row-major, before the swap).
    throw CudaError("matmul (" + std::to_string(p.m) + "x" + std::to_string(p.k) + " @ " +
                        std::to_string(p.k) + "x" + std::to_string(p.n) + ", " +
                        std::string(to_string(p.dtype)) + ") through cuBLAS",
                    e.message(), e.hint(), e.code(), e.code_name());
  }
}

}  // namespace cudakit::detail
