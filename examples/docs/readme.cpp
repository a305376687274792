// The complete program of the C++ fragments in README.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_readme (on a GPU where there is one, else on the CPU backend).
#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <iostream>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int arrays_that_fuse() {
  const std::int64_t n = 1000;

  // --- README.md, "Arrays that fuse" ---
  // clang-format off
  ck::Generator rng(42);                     // Philox: the same numbers on a GPU and on the CPU
  ck::Array a = rng.random({n}, ck::DType::float32), b = rng.random({n}, ck::DType::float32);
  ck::Array x = rng.standard_normal({n}, ck::DType::float32), y = rng.standard_normal({n}, ck::DType::float32);
  ck::Array r = a * b + x * y;               // ONE generated kernel, not three
  double sq = ck::sum((a - b) * (a - b)).item().as_double();  // the map fused into the reduction
  ck::Array m = ck::matmul(rng.random({512, 256}, ck::DType::float32),
                           rng.random({256, 128}, ck::DType::float32));  // cuBLAS on a GPU
  std::cout << r << "\n";                    // printed like numpy
  // clang-format on
  // ---

  const auto ha = a.to_host<float>(), hb = b.to_host<float>(), hx = x.to_host<float>(),
             hy = y.to_host<float>(), hr = r.to_host<float>();
  double expected_sq = 0, terms = 0;
  for (std::size_t i = 0; i < ha.size(); ++i) {
    const double want = double(ha[i]) * hb[i] + double(hx[i]) * hy[i];
    if (std::abs(hr[i] - want) > 1e-5 * (1 + std::abs(want))) return 1;
    expected_sq += (double(ha[i]) - hb[i]) * (double(ha[i]) - hb[i]);
    terms += std::abs(double(ha[i]) * ha[i]) + std::abs(double(hb[i]) * hb[i]);
  }
  if (std::abs(sq - expected_sq) > 1e-5 * terms) return 1;
  return m.shape() == ck::Shape{512, 128} ? 0 : 1;
}

}  // namespace

int main() { return run_doc_sections({{"arrays_that_fuse", &arrays_that_fuse}}); }
