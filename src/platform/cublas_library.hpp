// cuBLAS (libcublas, with the libcublasLt it depends on), loaded with dlopen
// on first use, for the arrays' matrix products. cublas_api.h is included for
// its types only.
#pragma once

#include <cublas_api.h>

#include <string>
#include <vector>

#include "platform/library_loader.hpp"
#include "platform/library_search.hpp"

namespace cudakit::detail {

struct Cublas {
  cublasStatus_t (*cublasCreate_v2)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*cublasDestroy_v2)(cublasHandle_t) = nullptr;
  cublasStatus_t (*cublasGetVersion_v2)(cublasHandle_t, int*) = nullptr;
  cublasStatus_t (*cublasSetStream_v2)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*cublasSetMathMode)(cublasHandle_t, cublasMath_t) = nullptr;
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                 int, const void*, const void*, cudaDataType, int, const void*,
                                 cudaDataType, int, const void*, void*, cudaDataType, int,
                                 cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*cublasGemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                               int, int, int, const void*, const void*,
                                               cudaDataType, int, long long int, const void*,
                                               cudaDataType, int, long long int, const void*, void*,
                                               cudaDataType, int, long long int, int,
                                               cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  std::string path;  // the file libcublas was loaded from
};

// Throws CublasNotFound listing every path tried.
Cublas load_cublas(const SearchPlan& plan);
// The process-wide instance, loaded once (thread-safe); throws CublasNotFound.
const Cublas& cublas();

// "CUBLAS_STATUS_EXECUTION_FAILED" for a status.
std::string cublas_status_name(cublasStatus_t status);

}  // namespace cudakit::detail
