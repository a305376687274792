// The kernels that reductions, scans, random numbers and matmul generate,
// compiled for a GPU (sm_90) with NVRTC: the CPU backend runs the same text
// in CI, and this makes GPU-only compile errors show up without a GPU.
#include <gtest/gtest.h>

#include <map>

#include "array/linalg_ops.hpp"
#include "array/random_kernels.hpp"
#include "array/reduce_source_hook.hpp"
#include "cudakit/array_random.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "cudakit/scan_kernel.hpp"
#include "unit/kernels_for_gpu_fixture.hpp"

namespace {

using namespace cudakit;

class ArrayKernelsForGpu : public cudakit_test::KernelsForGpuTest {};

TEST_F(ArrayKernelsForGpu, ReductionKernelsCompileForSm90) {
  Generator g(1, stream);
  const Array a = g.random({4, 50, 70}, DType::float32);
  const Array h = a.astype(DType::float16);
  const Array i = g.integers(0, 100, {4, 50, 70}, DType::int32);
  (void)sum(a);
  (void)sum(a, 2);  // a block per output
  (void)sum(a, 0);  // a thread per output
  (void)mean(h, {0, 2});
  (void)var(i, 1);
  (void)cudakit::std(a, -1, true);
  (void)min(a, 1);
  (void)max(i);
  (void)argmin(a, 0);
  (void)argmax(h);
  (void)prod(i, 2);
  (void)any(a > 0.5f, 1);
  (void)all(i);
  (void)norm(a, 2);
  (void)dot(a.ravel(), a.ravel());
  (void)sum(power(Expr(a) - Expr(h), Expr(2)));
  compile_all_for_gpu();
}

TEST_F(ArrayKernelsForGpu, ScanKernelsCompileForSm90) {
  Generator g(2, stream);
  const Array a = g.random({30, 40}, DType::float64);
  const Array i = g.integers(0, 100, {30, 40}, DType::int32);
  (void)cumsum(i);
  (void)cumsum(a, 0);
  (void)cumprod(a, 1);
  (void)InclusiveScanKernel(DType::float32, "a > b ? a : b")(a.astype(DType::float32));
  (void)ExclusiveScanKernel(DType::int64, "a + b", "0")(i.astype(DType::int64));
  compile_all_for_gpu();
}

TEST_F(ArrayKernelsForGpu, ReductionKernelCompilesForSm90) {
  Generator g(3, stream);
  const Array a = g.random({1000}, DType::float32);
  ReductionKernel dot(DType::float32, "0", "a + b", "x[i] * y[i] * s",
                      "const float* x, const float* y, float s");
  (void)dot(a, a, 2.0);
  compile_all_for_gpu();
}

TEST_F(ArrayKernelsForGpu, RandomAndMatmulKernelsCompileForSm90) {
  std::map<std::string, std::string> extra;
  using detail::RandomDistribution;
  for (auto dist :
       {RandomDistribution::uniform, RandomDistribution::normal, RandomDistribution::lognormal})
    for (const char* type : {"float", "double"}) {
      const auto k = detail::random_kernel_source(dist, type);
      extra[k.name] = k.source;
    }
  for (auto dist : {RandomDistribution::integers32, RandomDistribution::integers64})
    for (DType type : {DType::int8, DType::uint16, DType::int32, DType::uint64}) {
      const auto k = detail::random_kernel_source(dist, c_type_name(type));
      extra[k.name] = k.source;
    }
  for (DType type : {DType::float16, DType::bfloat16, DType::float32, DType::float64, DType::int32})
    for (bool large : {true, false})
      extra["matmul " + std::string(to_string(type)) + (large ? " 64" : " 16")] =
          detail::matmul_kernel_source(type, large);
  compile_all_for_gpu(extra);
}

}  // namespace
