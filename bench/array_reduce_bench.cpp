// Reductions and matrix products: sum and dot of 2^28 float32 (GB/s of bytes
// read) and matmul of 4096^2 float32 (TFLOP/s), against ceilings measured in
// the same run: a device-to-device copy (bytes read + written) and, for
// matmul, the generated tiled kernel for reference. Results are checked
// before they are timed. Prints a table and "RESULT <name> <value>" lines.
//   array_reduce_bench [--quick]   (--quick: small sizes, the default on the CPU backend)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/array.hpp"
#include "cudakit/array_linalg.hpp"
#include "cudakit/array_random.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/event.hpp"

namespace ck = cudakit;

namespace {

// Median time of `fn` in milliseconds: CUDA events around each run on a
// GPU; on the CPU backend the host clock around the run and a synchronize.
double median_ms(const ck::Device& device, const std::function<void()>& fn, int repeats) {
  ck::Stream stream = device.default_stream();
  for (int k = 0; k < 2; ++k) fn();
  device.synchronize();
  std::vector<double> ms;
  for (int k = 0; k < repeats; ++k) {
    if (device.backend_kind() == ck::BackendKind::cuda) {
      ck::Event start(device), stop(device);
      start.record(stream);
      fn();
      stop.record(stream);
      stop.synchronize();
      ms.push_back(ck::elapsed_ms(start, stop));
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      fn();
      device.synchronize();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Row {
  std::string name;
  double value;
  const char* unit;
  double ms;
};

bool close(double got, double want, double rel, const char* what) {
  if (std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want))) return true;
  std::fprintf(stderr, "%s: got %.9g, want %.9g\n", what, got, want);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  ck::Device device = ck::Device::current();
  bool quick = device.backend_kind() == ck::BackendKind::cpu;
  for (int k = 1; k < argc; ++k)
    if (std::strcmp(argv[k], "--quick") == 0) quick = true;
  const std::int64_t n = quick ? (std::int64_t{1} << 22) : (std::int64_t{1} << 28);
  const std::int64_t m = quick ? 256 : 4096;
  const int repeats = quick ? 3 : 20;
  std::printf("array_reduce_bench on %s: sum/dot of %lld float32, matmul %lld^2 float32\n",
              device.describe().c_str(), static_cast<long long>(n), static_cast<long long>(m));
  ck::Generator rng(20261130, device.default_stream());
  std::vector<Row> rows;
  bool ok = true;

  {
    const ck::Array a = rng.uniform(-1.0, 1.0, {n}, ck::DType::float32);
    const ck::Array b = rng.uniform(-1.0, 1.0, {n}, ck::DType::float32);
    const auto ha = a.to_host<float>(), hb = b.to_host<float>();
    double want_sum = 0, want_dot = 0;
    for (std::size_t k = 0; k < ha.size(); ++k) {
      want_sum += ha[k];
      want_dot += double(ha[k]) * hb[k];
    }
    ok &= close(ck::sum(a).item().as_double(), want_sum, 1e-5 * std::sqrt(double(n)), "sum");
    ok &= close(ck::dot(a, b).item().as_double(), want_dot, 1e-5 * std::sqrt(double(n)), "dot");
    const double bytes = 4.0 * static_cast<double>(n);
    ck::Array scratch = ck::empty({n}, ck::DType::float32, device.default_stream());
    const double copy_ms = median_ms(
        device,
        [&] {
          ck::detail::backend_of(device).copy(scratch.data(), a.data(),
                                              static_cast<std::size_t>(n) * 4, nullptr, true);
        },
        repeats);
    rows.push_back({"copy_ceiling", 2 * bytes / (copy_ms * 1e6), "GB/s", copy_ms});
    const double sum_ms = median_ms(
        device, [&] { (void)ck::sum(a); }, repeats);
    rows.push_back({"sum_f32", bytes / (sum_ms * 1e6), "GB/s", sum_ms});
    const double dot_ms = median_ms(
        device, [&] { (void)ck::dot(a, b); }, repeats);
    rows.push_back({"dot_f32", 2 * bytes / (dot_ms * 1e6), "GB/s", dot_ms});
  }

  {
    const ck::Array a = rng.uniform(-1.0, 1.0, {m, m}, ck::DType::float32);
    const ck::Array b = rng.uniform(-1.0, 1.0, {m, m}, ck::DType::float32);
    const double flop = 2.0 * double(m) * double(m) * double(m);
    // Check a few entries against a double reference.
    const auto ha = a.to_host<float>(), hb = b.to_host<float>();
    auto check = [&](const ck::Array& c, double rel, const char* what) {
      const auto hc = c.to_host<float>();
      for (std::int64_t i : {std::int64_t{0}, m / 3, m - 1})
        for (std::int64_t j : {std::int64_t{0}, m / 2, m - 1}) {
          double want = 0;
          for (std::int64_t p = 0; p < m; ++p)
            want += double(ha[static_cast<std::size_t>(i * m + p)]) *
                    hb[static_cast<std::size_t>(p * m + j)];
          ok &= close(hc[static_cast<std::size_t>(i * m + j)], want, rel * std::sqrt(double(m)),
                      what);
        }
    };
    check(ck::matmul(a, b), 1e-5, "matmul");
    const double mm_ms = median_ms(
        device, [&] { (void)ck::matmul(a, b); }, repeats);
    rows.push_back({"matmul_f32", flop / (mm_ms * 1e9), "TFLOP/s", mm_ms});
    if (device.backend_kind() == ck::BackendKind::cuda) {
      ck::set_allow_tf32(true);
      check(ck::matmul(a, b), 3e-3, "matmul tf32");
      const double tf_ms = median_ms(
          device, [&] { (void)ck::matmul(a, b); }, repeats);
      rows.push_back({"matmul_tf32", flop / (tf_ms * 1e9), "TFLOP/s", tf_ms});
      ck::set_allow_tf32(false);
    }
    ck::set_matmul_engine(ck::MatmulEngine::generated);
    check(ck::matmul(a, b), 1e-5, "matmul generated");
    const double gen_ms = median_ms(
        device, [&] { (void)ck::matmul(a, b); }, quick ? 1 : 5);
    rows.push_back({"matmul_f32_generated", flop / (gen_ms * 1e9), "TFLOP/s", gen_ms});
    ck::set_matmul_engine(ck::MatmulEngine::automatic);
  }

  std::printf("%-24s %12s %12s\n", "case", "time (ms)", "rate");
  for (const auto& r : rows)
    std::printf("%-24s %12.4f %9.4g %s\n", r.name.c_str(), r.ms, r.value, r.unit);
  for (const auto& r : rows) std::printf("RESULT %s %.4g\n", r.name.c_str(), r.value);
  if (!ok) {
    std::fprintf(stderr, "array_reduce_bench: a result was wrong\n");
    return 1;
  }
  return 0;
}
