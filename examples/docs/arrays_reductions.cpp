// The complete program of the C++ fragments in docs/guide/arrays-reductions.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_arrays_reductions (on a GPU where there is one, else on the CPU backend).
#include <cstdio>
#include <cudakit/cudakit.hpp>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int reductions() {
  ck::Array b = ck::Generator(2).standard_normal({64, 1000, 3}, ck::DType::float32);

  // --- docs/guide/arrays-reductions.md, "Reductions" ---
  // clang-format off
  namespace ck = cudakit;
  ck::Array a = ck::Generator(1).standard_normal({64, 1000, 3}, ck::DType::float32);
  ck::Array total = ck::sum(a);                 // 0-d array: total.item().as_double()
  ck::Array rows  = ck::mean(a, {1, 2});        // shape (64,)
  ck::Array keep  = ck::max(a, -1, true);       // shape (64, 1000, 1)
  ck::Array where = ck::argmin(a, 1);           // int64, position along axis 1
  ck::Array sq    = ck::sum(ck::power(ck::Expr(a) - ck::Expr(b), 2));  // one launch
  // clang-format on
  // ---
  const bool as_stated = total.ndim() == 0 && rows.shape() == ck::Shape{64} &&
                         keep.shape() == ck::Shape{64, 1000, 1} &&
                         where.shape() == ck::Shape{64, 3} && where.dtype() == ck::DType::int64;
  return as_stated ? 0 : 1;
}

int norms() {
  ck::Generator rng(5);
  ck::Array v = rng.standard_normal({1000}, ck::DType::float32);
  ck::Array m = rng.standard_normal({30, 40}, ck::DType::float32);
  ck::Array batch = rng.standard_normal({8, 30, 40}, ck::DType::float32);

  // --- docs/guide/arrays-reductions.md, "Reductions" ---
  // clang-format off
  // v is 1-D, m 2-D, batch 3-D.
  ck::Array v1  = ck::norm(v, ck::NormOrder(1));                  // sum(|v|)
  ck::Array vp  = ck::norm(m, ck::NormOrder(0.5), 1);             // one per row (along axis 1)
  ck::Array big = ck::norm(m, ck::NormOrder::inf());              // largest row sum of |m|
  ck::Array per = ck::norm(batch, ck::NormOrder(1), {1, 2}, true);  // one per matrix
  ck::Array row = ck::norm(m, 1);                                 // no order: 2-norm along axis 1
  // clang-format on
  // ---
  const bool shapes_right = v1.ndim() == 0 && vp.shape() == ck::Shape{30} &&
                            per.shape() == ck::Shape{8, 1, 1} && row.shape() == ck::Shape{30};
  return shapes_right ? 0 : 1;
}

int reductionkernel() {
  ck::Generator rng(11);
  ck::Array x = rng.random({1000}, ck::DType::float32), y = rng.random({1000}, ck::DType::float32);

  // --- docs/guide/arrays-reductions.md, "ReductionKernel" ---
  // clang-format off
  ck::ReductionKernel dot(ck::DType::float32, "0", "a + b", "x[i] * y[i]",
                          "const float* x, const float* y");
  float r = static_cast<float>(dot(x, y).item().as_double());
  ck::ReductionKernel above(ck::DType::int64, "0", "a + b", "k[i] > t ? 1 : 0",
                            "const int* k, int t");
  ck::Array labels = ck::arange(1000, ck::DType::int32);  // an int array for `const int* k`
  ck::Array count = above(labels, 500);  // 499; numbers are converted to the parameter's type
  // clang-format on
  // ---
  return count.item().as_double() == 499.0 ? 0 : 1;
}

int reductionkernel_over_views() {
  ck::ReductionKernel dot(ck::DType::float32, "0", "a + b", "x[i] * y[i]",
                          "const float* x, const float* y");
  ck::Generator rng(13);
  ck::Array a = rng.random({30, 40}, ck::DType::float32),
            b = rng.random({40, 30}, ck::DType::float32);
  ck::Array x = rng.random({1000}, ck::DType::float32), y = rng.random({1000}, ck::DType::float32);

  // --- docs/guide/arrays-reductions.md, "ReductionKernel" ---
  // clang-format off
  dot(a.T(), b);                                   // a transposed view
  dot(x.slice(0, std::nullopt, std::nullopt, -2),  // every other element, reversed
      y.slice(0, 1, std::nullopt, 2));
  // clang-format on
  // ---

  return 0;
}

int random_numbers() {
  // --- docs/guide/arrays-reductions.md, "Random numbers" ---
  // clang-format off
  ck::Generator g(42);                          // or Generator(42, stream)
  ck::Array u = g.random({1000}, ck::DType::float32);          // [0, 1)
  ck::Array n = g.normal(0.0, 2.0, {1000});                    // float64
  ck::Array l = g.lognormal(0.0, 0.5, {1000}, ck::DType::float32);
  ck::Array k = g.integers(-5, 17, {1000}, ck::DType::int32);  // [-5, 17)
  // clang-format on
  // ---
  const bool as_stated = u.dtype() == ck::DType::float32 && n.dtype() == ck::DType::float64 &&
                         l.dtype() == ck::DType::float32 && k.dtype() == ck::DType::int32;
  return as_stated ? 0 : 1;
}

}  // namespace

int main() {
  return run_doc_sections({{"reductions", &reductions},
                           {"norms", &norms},
                           {"reductionkernel", &reductionkernel},
                           {"reductionkernel_over_views", &reductionkernel_over_views},
                           {"random_numbers", &random_numbers}});
}
