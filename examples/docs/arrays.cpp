// The complete program of the C++ fragments in docs/guide/arrays.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_arrays (on a GPU where there is one, else on the CPU backend).
#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <iostream>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int device_arrays_and_fused_expressions() {
  // --- docs/guide/arrays.md, "Device arrays and fused expressions" ---
  // clang-format off


  namespace ck = cudakit;

  std::vector<float> host_a = {1.0f, -4.0f, 9.0f, 2.0f};
  ck::Array a = ck::from_host(host_a);                 // std::vector<float> -> float32, shape (4,)
  ck::Array b = ck::arange(0.0, 1.0, 0.25, ck::DType::float32);
  ck::Array m = ck::zeros({3, 4}, ck::DType::float64);
  ck::Array c = a * b + ck::sqrt(ck::abs(a)) * 2.5;    // ONE generated kernel
  c += 1;                                               // in place, one kernel
  std::vector<float> out = c.to_host<float>();
  std::cout << m.T() << "\n";                           // array([[0., 0., 0.], ...])
  // clang-format on
  // ---
  const bool as_stated = c.dtype() == ck::DType::float32 && b.shape() == ck::Shape{4} &&
                         out.size() == 4 && m.T().to_string().starts_with("array([[0., 0., 0.],");
  return as_stated ? 0 : 1;
}

int elementwisekernel() {
  const std::int64_t n = 1001;
  ck::Generator rng(7);
  ck::Array x = rng.random({n}, ck::DType::float32), y = rng.random({n}, ck::DType::float32);
  ck::Array z = ck::zeros({n}, ck::DType::float32);

  // --- docs/guide/arrays.md, "ElementwiseKernel" ---
  // clang-format off
  ck::ElementwiseKernel axpy("float a, const float *x, const float *y, float *z",
                             "z[i] = a * x[i] + y[i]", "axpy");
  axpy({2.5, x, y, z});                                      // over every element of x
  axpy({2.5, x, y, z}, ck::ElementwiseKernel::Range{0, n, 2}); // PyCUDA's range=
  axpy({2.5, x, y, z}, ck::Slice(std::nullopt, std::nullopt, -1)); // slice=
  // clang-format on
  // ---

  // Each call writes 2.5 * x + y where it runs (all of z, at least once).
  const auto hx = x.to_host<float>(), hy = y.to_host<float>(), hz = z.to_host<float>();
  for (std::size_t i = 0; i < hz.size(); ++i)
    if (std::abs(hz[i] - (2.5f * hx[i] + hy[i])) > 1e-6f * (1 + std::abs(hz[i]))) return 1;
  return 0;
}

int elementwisekernel_over_views() {
  ck::Array a = ck::Generator(3).random({4, 5}, ck::DType::float32);
  ck::Array b = ck::zeros({60}, ck::DType::float32);

  // --- docs/guide/arrays.md, "ElementwiseKernel" ---
  // clang-format off
  ck::ElementwiseKernel add_one("const float *x, float *z", "z[i] = x[i] + 1", "add_one");
  add_one({a.T(), b.slice(0, std::nullopt, std::nullopt, 3)});  // writes every third element of b
  // clang-format on
  // ---

  // Element i of the view b[::3] is element i of a.T in C order, plus one.
  const auto ha = a.to_host<float>(), hb = b.to_host<float>();
  for (std::size_t i = 0; i < 20; ++i) {
    const std::size_t row = i % 4, column = i / 4;  // a.T is 5 x 4: (i / 4, i % 4)
    if (hb[3 * i] != ha[row * 5 + column] + 1.0f || hb[3 * i + 1] != 0.0f) return 1;
  }
  return 0;
}

}  // namespace

int main() {
  return run_doc_sections(
      {{"device_arrays_and_fused_expressions", &device_arrays_and_fused_expressions},
       {"elementwisekernel", &elementwisekernel},
       {"elementwisekernel_over_views", &elementwisekernel_over_views}});
}
