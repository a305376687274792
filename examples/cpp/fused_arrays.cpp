// Device arrays: an expression of several operators runs as ONE generated
// kernel, a reduction fuses its map, and random numbers come from a seeded
// counter-based generator (the same numbers on the GPU and the CPU backend).
// Checks every result against a host computation and exits non-zero on a
// wrong one.
#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <iostream>
#include <vector>

namespace ck = cudakit;

int main() {
  const std::int64_t n = 1'000'003;  // not a multiple of any block size
  ck::Generator rng(42);
  ck::Array a = rng.random({n}, ck::DType::float32), b = rng.random({n}, ck::DType::float32);
  ck::Array x = rng.standard_normal({n}, ck::DType::float32);
  ck::Array y = rng.standard_normal({n}, ck::DType::float32);

  const auto launches_before = ck::array_kernel_launches();
  ck::Array r = a * b + x * y;  // one generated kernel, not three
  const auto fused_launches = ck::array_kernel_launches() - launches_before;
  double sq = ck::sum((a - b) * (a - b)).item().as_double();  // map fused into the reduction

  auto ha = a.to_host<float>(), hb = b.to_host<float>(), hx = x.to_host<float>(),
       hy = y.to_host<float>(), hr = r.to_host<float>();
  double worst = 0, ref_sq = 0;
  for (std::size_t i = 0; i < ha.size(); ++i) {
    double ref = double(ha[i]) * hb[i] + double(hx[i]) * hy[i];
    worst = std::max(worst, std::fabs(hr[i] - ref) / (1.0 + std::fabs(ref)));
    ref_sq += (double(ha[i]) - hb[i]) * (double(ha[i]) - hb[i]);
  }
  const double sq_error = std::fabs(sq - ref_sq) / ref_sq;

  // A matrix product (cuBLAS on a GPU, a generated tiled kernel elsewhere).
  ck::Array m1 = rng.random({129, 67}, ck::DType::float32),
            m2 = rng.random({67, 93}, ck::DType::float32);
  auto hm = ck::matmul(m1, m2).to_host<float>();
  auto h1 = m1.to_host<float>(), h2 = m2.to_host<float>();
  double worst_mm = 0;
  for (int i = 0; i < 129; ++i)
    for (int j = 0; j < 93; ++j) {
      double ref = 0;
      for (int k = 0; k < 67; ++k) ref += double(h1[i * 67 + k]) * h2[k * 93 + j];
      worst_mm = std::max(worst_mm, std::fabs(hm[i * 93 + j] - ref) / (1.0 + std::fabs(ref)));
    }

  std::cout << "on " << ck::Device::current().describe() << "\n"
            << "r = a*b + x*y: " << r << "\n"
            << "kernel launches for a*b + x*y: " << fused_launches << "\n"
            << "sum((a-b)^2) = " << sq << " (relative error " << sq_error << ")\n"
            << "matmul 129x67 @ 67x93: max relative error " << worst_mm << "\n";
  const bool ok = fused_launches == 1 && worst < 1e-6 && sq_error < 1e-5 && worst_mm < 1e-5;
  std::cout << (ok ? "ok" : "WRONG RESULT") << "\n";
  return ok ? 0 : 1;
}
