// Matrix products through cuBLAS (loaded on first use): the CUDA backend's
// half of the arrays' matmul. The array layer describes the product in BLAS
// terms (GemmRequest) and never sees a cuBLAS or CUDA type.
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "cudakit/error.hpp"
#include "platform/cublas_library.hpp"

namespace cudakit::detail {
namespace {

// One cuBLAS handle per (device, stream), created on first use and kept:
// creating a handle costs far more than a product, and a handle bound to one
// stream is never used concurrently from another.
cublasHandle_t handle_for(CudaBackend& backend, int ordinal, NativeStream stream) {
  static std::mutex mutex;
  static auto* handles =
      new std::map<std::tuple<int, void*>, cublasHandle_t>();  // process lifetime
  std::lock_guard lock(mutex);
  const auto key = std::make_tuple(ordinal, stream);
  auto it = handles->find(key);
  if (it != handles->end()) return it->second;
  const Cublas& api = cublas();
  backend.make_current(ordinal);
  cublasHandle_t handle = nullptr;
  const cublasStatus_t status = api.cublasCreate_v2(&handle);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError("creating a cuBLAS handle on device " + std::to_string(ordinal),
                    "cublasCreate failed", {}, static_cast<int>(status),
                    cublas_status_name(status));
  api.cublasSetStream_v2(handle, static_cast<cudaStream_t>(stream));
  handles->emplace(key, handle);
  return handle;
}

cudaDataType data_type(ScalarType type) {
  switch (type) {
    case ScalarType::f16:
      return CUDA_R_16F;
    case ScalarType::bf16:
      return CUDA_R_16BF;
    case ScalarType::f64:
      return CUDA_R_64F;
    default:
      return CUDA_R_32F;
  }
}

bool gemm_type(ScalarType type) {
  return type == ScalarType::f16 || type == ScalarType::bf16 || type == ScalarType::f32 ||
         type == ScalarType::f64;
}

}  // namespace

bool CudaBackend::gemm_available(ScalarType type) {
  if (!gemm_type(type)) return false;
  try {
    (void)cublas();
    return true;
  } catch (const CublasNotFound&) {
    return false;
  }
}

void CudaBackend::gemm(int ordinal, NativeStream stream, const GemmRequest& r) {
  const std::string context = "a " + std::to_string(r.m) + "x" + std::to_string(r.k) + " @ " +
                              std::to_string(r.k) + "x" + std::to_string(r.n) + " " +
                              std::string(to_string(r.type)) + " product through cuBLAS";
  if (!gemm_type(r.type))
    throw NotSupported(context, "cuBLAS products here take float16, bfloat16, float32 or float64");
  const std::int64_t limit = 2147483647;
  if (r.m > limit || r.n > limit || r.k > limit || r.lda > limit || r.ldb > limit ||
      r.ldc > limit || r.batch > limit)
    throw ArgumentError(context, "a matrix extent exceeds 2^31 - 1");
  const Cublas& api = cublas();
  cublasHandle_t handle = handle_for(*this, ordinal, stream);
  make_current(ordinal);

  const cudaDataType type = data_type(r.type);
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (r.type == ScalarType::f64)
    compute = CUBLAS_COMPUTE_64F;
  else if (r.type == ScalarType::f32 && r.allow_tf32)
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const bool f64 = r.type == ScalarType::f64;
  const void* alpha = f64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = f64 ? static_cast<const void*>(&beta_d) : &beta_f;
  const void* a = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(r.a));
  const void* b = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(r.b));
  void* c = reinterpret_cast<void*>(static_cast<std::uintptr_t>(r.c));
  const cublasOperation_t op_a = r.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = r.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = static_cast<int>(r.m), n = static_cast<int>(r.n), k = static_cast<int>(r.k);

  cublasStatus_t status;
  if (r.batch == 1) {
    status = api.cublasGemmEx(handle, op_a, op_b, m, n, k, alpha, a, type, static_cast<int>(r.lda),
                              b, type, static_cast<int>(r.ldb), beta, c, type,
                              static_cast<int>(r.ldc), compute, CUBLAS_GEMM_DEFAULT);
  } else {
    status = api.cublasGemmStridedBatchedEx(
        handle, op_a, op_b, m, n, k, alpha, a, type, static_cast<int>(r.lda), r.stride_a, b, type,
        static_cast<int>(r.ldb), r.stride_b, beta, c, type, static_cast<int>(r.ldc), r.stride_c,
        static_cast<int>(r.batch), compute, CUBLAS_GEMM_DEFAULT);
  }
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(context, "cublasGemmEx failed", {}, static_cast<int>(status),
                    cublas_status_name(status));
}

}  // namespace cudakit::detail
