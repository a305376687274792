// The generated array kernels compile with NVRTC for a real GPU arch (no GPU
// needed: compile_only with an explicit arch), and their PTX parameter lists
// have the sizes the launch path passes.
#include <gtest/gtest.h>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_source.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"

namespace ck = cudakit;
using ck::DType;

namespace {

class ArrayNvrtc : public ::testing::Test {
 protected:
  void SetUp() override {
    device_.emplace(ck::Device::get(ck::BackendKind::cpu, 0));
    scope_.emplace(*device_);
  }
  // Compiles for sm_90; skips when NVRTC is not installed.
  void expect_compiles(const std::string& source, const std::string& what) {
    ck::CompileOptions options;
    options.arch = "sm_90";
    options.no_extern_c = true;
    options.use_cache = false;
    try {
      ck::CompiledCode code = ck::compile_only(source, options, ck::BackendKind::cuda);
      EXPECT_FALSE(code.image.empty()) << what;
      last_ptx_ = code.ptx;
    } catch (const ck::NvrtcNotFound& e) {
      GTEST_SKIP() << "NVRTC is not installed: " << e.what();
    } catch (const ck::CompileError& e) {
      ADD_FAILURE() << what << ":\n" << e.what();
    }
  }
  std::string last_ptx_;

 private:
  std::optional<ck::Device> device_;
  std::optional<ck::DeviceScope> scope_;
};

}  // namespace

TEST_F(ArrayNvrtc, ContiguousVectorisedKernelsCompileForEveryDtype) {
  for (int k = 0; k < ck::dtype_count; ++k) {
    auto d = static_cast<DType>(k);
    ck::Array a = ck::ones({1001}, d), out = ck::empty({1001}, d);
    ck::Expr e = ck::is_bool(d) ? ck::Expr(ck::logical_and(a, a)) : ck::Expr(a + a);
    expect_compiles(ck::generated_source(e, out), "a + a for " + std::string(ck::to_string(d)));
  }
}

TEST_F(ArrayNvrtc, EveryOperationCompiles) {
  ck::Array f = ck::ones({64}, DType::float32), h = ck::ones({64}, DType::float16);
  ck::Array i = ck::ones({64}, DType::int32), u = ck::ones({64}, DType::uint8);
  ck::Array c = ck::ones({64}, DType::complex128), out = ck::empty({64}, DType::float64);
  std::vector<std::pair<std::string, ck::Expr>> cases = {
      {"float math", ck::exp(f) + ck::log(f) + ck::log10(f) + ck::log2(f) + ck::sqrt(f) +
                         ck::cbrt(f) + ck::sin(f) + ck::cos(f) + ck::tan(f) + ck::arcsin(f) +
                         ck::arccos(f) + ck::arctan(f) + ck::sinh(f) + ck::cosh(f) + ck::tanh(f) +
                         ck::arcsinh(f) + ck::arccosh(f) + ck::arctanh(f) + ck::floor(f) +
                         ck::ceil(f) + ck::trunc(f) + ck::rint(f) + ck::fabs(f) + ck::expm1(f) +
                         ck::log1p(f) + ck::exp2(f)},
      {"binary float math", ck::arctan2(f, h) + ck::hypot(f, f) + ck::copysign(f, h) +
                                ck::fmod(f, f) + ck::power(f, h) + ck::floor_divide(f, f) + f % h +
                                ck::minimum(f, h) + ck::maximum(f, f) + ck::fmin(f, f) +
                                ck::fmax(f, h)},
      {"frexp modf ldexp", ck::frexp(f).first + ck::frexp(f).second + ck::modf(h).first +
                               ck::modf(f).second + ck::ldexp(f, i)},
      {"integer ops", ck::floor_divide(i, u) + i % u + ck::power(i, u) + (i & u) + (i | u) +
                          (i ^ u) + (i << u) + (i >> u) + ~i + ck::abs(i) + ck::sign(i) + -i +
                          ck::square(u) + ck::reciprocal(i) + ck::fmod(i, i)},
      {"comparisons and logic",
       ck::where(ck::logical_and(f < h, i >= u) | ck::logical_not(ck::isnan(f)) | ck::isinf(h) |
                     ck::isfinite(f) | (c == c) | (c != c),
                 f, h)},
      {"complex",
       ck::abs(c * c / c - c + ck::conj(c)) + ck::real(c) + ck::imag(c) + ck::abs(-c * 2.5)},
  };
  for (const auto& [what, e] : cases) expect_compiles(ck::generated_source(e, out), what);
}

TEST_F(ArrayNvrtc, StridedAndBroadcastKernelsCompile) {
  ck::Array a = ck::ones({6, 8}, DType::bfloat16), b = ck::ones({8}, DType::float32);
  ck::Array out = ck::empty({8, 6}, DType::float16);
  expect_compiles(ck::generated_source(a.T() * b.index({ck::Slice(), ck::newaxis}), out),
                  "strided");
  EXPECT_NE(last_ptx_.find(".param .align"), std::string::npos);
}

TEST_F(ArrayNvrtc, FusedMapCompilesInsideAnotherKernel) {
  ck::Array a = ck::ones({100}), b = ck::ones({10, 10});
  auto m = ck::detail::codegen_map((a.reshape({10, 10}) - b.T()) * 2.0, {"idx", "q", {1, 0}, true});
  std::string src = m.preamble + "extern \"C\" __global__ void use_map(float* out, " + m.params +
                    ", long long n) {\n  for (long long idx = threadIdx.x; idx < n; idx += "
                    "blockDim.x) out[idx] = " +
                    m.element + ";\n}\n";
  expect_compiles(src, "fused map");
}

TEST_F(ArrayNvrtc, ElementwiseKernelSourceCompiles) {
  ck::ElementwiseKernel k("float a, const cudakit_half *x, double *y, cudakit_complex64 *z",
                          "y[i] = a * cudakit_h2f(x[i]) + z[i].re", "axpy_mixed");
  expect_compiles(k.source(false), "ElementwiseKernel 32-bit");
  expect_compiles(k.source(true), "ElementwiseKernel 64-bit");
  // PyCUDA's loop_prep / after_loop, with its tid / total_threads / cta_start.
  ck::ElementwiseKernel framed("const float *x, float *total", "mine += x[i]", "framed_sum", {}, {},
                               "float mine = 0; (void)cta_start",
                               "if (tid < total_threads) atomicAdd(total, mine)");
  expect_compiles(framed.source(false), "ElementwiseKernel loop_prep/after_loop 32-bit");
  expect_compiles(framed.source(true), "ElementwiseKernel loop_prep/after_loop 64-bit");
}
