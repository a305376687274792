#include <map>
#include <mutex>
#include <tuple>

#include "array/linalg_ops.hpp"
#include "cudakit/error.hpp"
#include "platform/cublas_library.hpp"

namespace cudakit::detail {

namespace {

// One cuBLAS handle per (device, stream), created on first use and kept:
// creating a handle costs far more than a product, and a handle bound to one
// stream is never used concurrently from another.
cublasHandle_t handle_for(const Device& device, const Stream& stream) {
  static std::mutex mutex;
  static auto* handles =
      new std::map<std::tuple<int, void*>, cublasHandle_t>();  // process lifetime
  std::lock_guard lock(mutex);
  const auto key = std::make_tuple(device.ordinal(), stream.native());
  auto it = handles->find(key);
  if (it != handles->end()) return it->second;
  const Cublas& api = cublas();
  device.make_current();
  cublasHandle_t handle = nullptr;
  const cublasStatus_t status = api.cublasCreate_v2(&handle);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError("creating a cuBLAS handle on " + device.describe(), "cublasCreate failed", {},
                    static_cast<int>(status), cublas_status_name(status));
  api.cublasSetStream_v2(handle, static_cast<cudaStream_t>(stream.native()));
  handles->emplace(key, handle);
  return handle;
}

cudaDataType data_type(DType dtype) {
  switch (dtype) {
    case DType::float16:
      return CUDA_R_16F;
    case DType::bfloat16:
      return CUDA_R_16BF;
    case DType::float64:
      return CUDA_R_64F;
    default:
      return CUDA_R_32F;
  }
}

// cuBLAS is column-major: a row-major matrix with unit column stride is,
// read column-major, its own transpose with leading dimension = row stride;
// one with unit row stride is the matrix itself, so it needs OP_T.
bool describe(const MatmulOperand& op, std::int64_t rows, std::int64_t cols,
              cublasOperation_t& trans, std::int64_t& ld) {
  if (op.col == 1 && (rows <= 1 || op.row >= cols)) {
    trans = CUBLAS_OP_N;
    ld = rows <= 1 ? std::max<std::int64_t>(cols, 1) : op.row;
    return true;
  }
  if (op.row == 1 && (cols <= 1 || op.col >= rows)) {
    trans = CUBLAS_OP_T;
    ld = cols <= 1 ? std::max<std::int64_t>(rows, 1) : op.col;
    return true;
  }
  return false;
}

}  // namespace

bool cublas_usable(const Device& device, DType dtype) {
  if (device.backend_kind() != BackendKind::cuda) return false;
  if (dtype != DType::float16 && dtype != DType::bfloat16 && dtype != DType::float32 &&
      dtype != DType::float64)
    return false;
  try {
    (void)cublas();
    return true;
  } catch (const CublasNotFound&) {
    return false;
  }
}

void matmul_cublas(const MatmulProblem& p, const Device& device, const Stream& stream, bool tf32) {
  const Cublas& api = cublas();
  cublasOperation_t op_a, op_b;
  std::int64_t ld_a = 0, ld_b = 0;
  if (!describe(p.a, p.m, p.k, op_a, ld_a) || !describe(p.b, p.k, p.n, op_b, ld_b))
    throw ArgumentError("matmul through cuBLAS", "an operand has no unit stride",
                        "pass contiguous operands");
  const std::int64_t limit = 2147483647;
  if (p.m > limit || p.n > limit || p.k > limit || ld_a > limit || ld_b > limit)
    throw ArgumentError("matmul through cuBLAS", "a matrix extent exceeds 2^31 - 1");
  cublasHandle_t handle = handle_for(device, stream);
  device.make_current();

  const cudaDataType type = data_type(p.dtype);
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (p.dtype == DType::float64)
    compute = CUBLAS_COMPUTE_64F;
  else if (p.dtype == DType::float32 && tf32)
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const void* alpha = p.dtype == DType::float64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = p.dtype == DType::float64 ? static_cast<const void*>(&beta_d) : &beta_f;
  const std::size_t item = itemsize(p.dtype);
  (void)item;
  const void* a = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(p.a.address));
  const void* b = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(p.b.address));
  void* c = reinterpret_cast<void*>(static_cast<std::uintptr_t>(p.c));

  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  const int m = static_cast<int>(p.n), n = static_cast<int>(p.m), k = static_cast<int>(p.k);
  cublasStatus_t status;
  if (p.batch == 1) {
    status = api.cublasGemmEx(handle, op_b, op_a, m, n, k, alpha, b, type, static_cast<int>(ld_b),
                              a, type, static_cast<int>(ld_a), beta, c, type, m, compute,
                              CUBLAS_GEMM_DEFAULT);
  } else {
    status = api.cublasGemmStridedBatchedEx(
        handle, op_b, op_a, m, n, k, alpha, b, type, static_cast<int>(ld_b), p.b.batch, a, type,
        static_cast<int>(ld_a), p.a.batch, beta, c, type, m, p.m * p.n, static_cast<int>(p.batch),
        compute, CUBLAS_GEMM_DEFAULT);
  }
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(
        "matmul (" + std::to_string(p.m) + "x" + std::to_string(p.k) + " @ " + std::to_string(p.k) +
            "x" + std::to_string(p.n) + ", " + std::string(to_string(p.dtype)) + ") through cuBLAS",
        "cublasGemmEx failed", {}, static_cast<int>(status), cublas_status_name(status));
}

}  // namespace cudakit::detail
