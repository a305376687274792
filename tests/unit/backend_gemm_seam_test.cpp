// The matrix-product seam of the backend interface: the array layer asks the
// backend for a GEMM and never sees a vendor library. The CPU backend has
// none (its arrays use generated kernels); the CUDA backend's cuBLAS path is
// exercised by array_linalg_gpu_test.
#include <gtest/gtest.h>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

TEST(BackendGemmSeam, TheCpuBackendOffersNoVendorGemm) {
  detail::Backend& cpu = detail::backend(BackendKind::cpu);
  for (ScalarType t :
       {ScalarType::f16, ScalarType::bf16, ScalarType::f32, ScalarType::f64, ScalarType::i32})
    EXPECT_FALSE(cpu.gemm_available(t)) << to_string(t);
  detail::GemmRequest request;
  request.m = request.n = request.k = 2;
  try {
    cpu.gemm(0, nullptr, request);
    FAIL() << "expected NotSupported";
  } catch (const NotSupported& e) {
    EXPECT_NE(std::string(e.what()).find("generated kernels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cudakit
