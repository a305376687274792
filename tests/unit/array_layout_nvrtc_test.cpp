// The kernels that strided ReductionKernel and ElementwiseKernel arguments,
// axis scans (by columns, by lines through the output's stride) and
// ElementwiseKernel's `n` generate,
// compiled for a GPU (sm_90) with NVRTC: the CPU backend runs the same text,
// and this makes GPU-only compile errors show up without a GPU.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "array/reduce_source_hook.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "cudakit/scan_kernel.hpp"
#include "unit/array_reduce_test_util.hpp"
#include "unit/kernels_for_gpu_fixture.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

class ArrayLayoutKernelsForGpu : public cudakit_test::KernelsForGpuTest {
 protected:
  template <class T>
  Array upload(const std::vector<T>& host, const Shape& shape) {
    return from_host(host.data(), shape, dtype_of<T>(), stream);
  }
  std::uint32_t seed = fresh_seed();
};

TEST_F(ArrayLayoutKernelsForGpu, StridedReductionKernelArgumentsCompileForSm90) {
  const Array x = upload(random_values<float>(24 * 35, -1.0, 1.0, seed), {24, 35});
  const Array d = upload(random_values<double>(5 * 7 * 9, -1.0, 1.0, seed), {5, 7, 9});
  const Array h = x.astype(DType::float16);
  ReductionKernel dot(DType::float32, "0", "a + b", "x[i] * y[i]", "const float* x, float* y");
  (void)dot(x.transpose(), x.transpose().copy());  // a 2-D view and a plain pointer
  (void)dot(x.slice(1, std::nullopt, std::nullopt, -1), x.slice(1, std::nullopt, std::nullopt, -1));
  ReductionKernel peak(DType::float64, "-1e300", "a > b ? a : b", "fabs(v[i])",
                       "const double* __restrict__ v", "peak");
  (void)peak(d.slice(0, 1, std::nullopt, 2).slice(2, std::nullopt, std::nullopt, -2));  // 3-D
  (void)peak(d.slice(2, 0, 1).broadcast_to({5, 7, 4}));  // broadcast axis
  ReductionKernel half_sum(DType::float32, "0", "a + b", "cudakit_h2f(h[i])",
                           "const cudakit_half* h", "half_sum");
  (void)half_sum(h.transpose());
  ReductionKernel deref(DType::float64, "0", "a + b", "*(v + i)", "const double* v", "deref");
  (void)deref(d.transpose());  // through a contiguous copy
  EXPECT_TRUE(any_source_has("struct ck_view_x {"));
  EXPECT_TRUE(any_source_has("half_sum(ck_view_h h,"));
  compile_all_for_gpu();
}

TEST_F(ArrayLayoutKernelsForGpu, AxisScansCompileForSm90) {
  const Array a = upload(random_values<float>(3 * 40 * 57, -1.0, 1.0, seed), {3, 40, 57});
  const Array i = upload(random_values<std::int32_t>(3001 * 5, -9.0, 9.0, seed), {3001, 5});
  const Array w =
      upload(random_values<std::int16_t>(2 * 70001 * 3, -9.0, 9.0, seed), {2, 70001, 3});
  (void)cumsum(a, 1);                            // by columns
  (void)cumprod(Expr(a.transpose()) * 2.0f, 0);  // by columns, strided map
  (void)cumsum(i, 0);                            // a block per line, strided output
  (void)cumsum(w, 1);                            // two launches per line, strided output
  (void)cumsum(a.astype(DType::float16), 0);     // 16-bit map, float accumulation
  InclusiveScanKernel running_max(DType::float32, "a > b ? a : b");
  Array wide = empty({9, 40, 114}, DType::float32, stream);
  Array out = wide.slice(0, std::nullopt, std::nullopt, 3).slice(2, 1, std::nullopt, 2);
  running_max(a, out);  // a 2-D output view
  EXPECT_TRUE(any_source_has("ck_cumsum_columns("));
  EXPECT_TRUE(any_source_has("long long ck_out_step"));
  EXPECT_TRUE(any_source_has("long long line_length, long long ck_inner"));
  EXPECT_TRUE(any_source_has("ck_view_ck_out ck_out, const ck_value_t* ck_partials"));
  compile_all_for_gpu();
}

TEST_F(ArrayLayoutKernelsForGpu, ElementwiseKernelSourcesCompileForSm90) {
  ElementwiseKernel reverse("const double *x, double *y", "y[i] = x[n - 1 - i]", "reverse");
  ElementwiseKernel own_n("int *z, int n", "z[i] = n", "fill_n");
  // Strided arguments, read and written through their view structs.
  ElementwiseKernel views("const float *x, const cudakit_half *h, float *z",
                          "z[i] = x[i] * cudakit_h2f(h[i])", "views");
  const Array x = upload(random_values<float>(24 * 35, -1.0, 1.0, seed), {24, 35});
  Array z = empty({3 * 35, 24}, DType::float32, stream);
  views({x.transpose(), x.astype(DType::float16).slice(0, std::nullopt, std::nullopt, -1).T(),
         z.slice(0, 1, std::nullopt, 3)});
  EXPECT_TRUE(any_source_has("struct ck_view_z {"));
  EXPECT_TRUE(any_source_has("views(ck_view_x x, ck_view_h h, ck_view_z z,"));
  compile_all_for_gpu({{"reverse 32", reverse.source(false)},
                       {"reverse 64", reverse.source(true)},
                       {"fill_n 32", own_n.source(false)}});
}

}  // namespace
