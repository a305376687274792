// Array expression bandwidth: a + b (10M and 2^28 float32) and a*b + x*y
// (2^28), in GB/s of bytes read + written, against two ceilings measured in
// the same run: a device-to-device copy and a hand-written float4 add kernel.
// Prints a table and machine-readable "RESULT <name> <GB/s>" lines.
//   array_bench [--quick]   (--quick: 2^20-element sizes, the default on the CPU backend)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/event.hpp"
#include "cudakit/program.hpp"

namespace ck = cudakit;

namespace {

// Median device time of `fn` in milliseconds (CUDA events around each run).
double median_ms(const ck::Device& device, const std::function<void()>& fn, int repeats) {
  ck::Stream stream = device.default_stream();
  for (int k = 0; k < 3; ++k) fn();
  std::vector<double> ms;
  for (int k = 0; k < repeats; ++k) {
    if (device.backend_kind() == ck::BackendKind::cpu) {
      // Host clock on the CPU backend (its work runs on host threads anyway).
      device.synchronize();
      auto t0 = std::chrono::steady_clock::now();
      fn();
      device.synchronize();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      continue;
    }
    ck::Event start(device), stop(device);
    start.record(stream);
    fn();
    stop.record(stream);
    stop.synchronize();
    ms.push_back(ck::elapsed_ms(start, stop));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

ck::Array random_array(std::int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(0.5f, 2.0f);
  std::vector<float> host(static_cast<std::size_t>(n));
  for (auto& x : host) x = d(rng);
  return ck::from_host(host);
}

bool check(const ck::Array& got, const std::function<float(std::int64_t)>& want) {
  for (std::int64_t k : {std::int64_t{0}, got.size() / 3, got.size() - 1}) {
    float g = static_cast<float>(got.item(k).as_double());
    if (std::fabs(g - want(k)) > 1e-5f * std::fabs(want(k))) {
      std::fprintf(stderr, "wrong result at %lld: %g, want %g\n", static_cast<long long>(k), g,
                   want(k));
      return false;
    }
  }
  return true;
}

const char* kRawAdd = R"(
extern "C" __global__ void raw_add(const float4* a, const float4* b, float4* c, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
})";

struct Row {
  std::string name;
  double bytes;
  double ms;
};

}  // namespace

int main(int argc, char** argv) {
  ck::Device device = ck::Device::current();
  bool quick = device.backend_kind() == ck::BackendKind::cpu;
  for (int k = 1; k < argc; ++k)
    if (std::strcmp(argv[k], "--quick") == 0) quick = true;
  const std::int64_t small = quick ? (1 << 18) : 10'000'000;
  const std::int64_t big = quick ? (1 << 20) : (std::int64_t{1} << 28);
  const int repeats = quick ? 5 : 30;
  std::printf("array_bench on %s, sizes %lld and %lld float32\n", device.describe().c_str(),
              static_cast<long long>(small), static_cast<long long>(big));
  std::mt19937 rng(1234);
  std::vector<Row> rows;
  bool ok = true;

  for (std::int64_t n : {small, big}) {
    ck::Array a = random_array(n, rng), b = random_array(n, rng), c = ck::empty({n});
    auto ha = [&](std::int64_t k) { return static_cast<float>(a.item(k).as_double()); };
    auto hb = [&](std::int64_t k) { return static_cast<float>(b.item(k).as_double()); };
    c.assign(a + b);
    ok &= check(c, [&](std::int64_t k) { return ha(k) + hb(k); });
    double bytes = 3.0 * 4.0 * static_cast<double>(n);
    std::string tag = n == 10'000'000                ? "10M"
                      : n == (std::int64_t{1} << 28) ? "2p28"
                                                     : std::to_string(n);
    rows.push_back({"array_add_" + tag, bytes,
                    median_ms(
                        device, [&] { c.assign(a + b); }, repeats)});
    if (n == big) {
      // Ceilings on the same data: copy (read + write n floats) and a raw float4 add.
      rows.push_back({"copy_" + tag, 2.0 * 4.0 * static_cast<double>(n),
                      median_ms(
                          device,
                          [&] {
                            ck::detail::backend_of(device).copy(
                                c.data(), a.data(), static_cast<std::size_t>(n) * 4, nullptr, true);
                          },
                          repeats)});
      if (device.backend_kind() == ck::BackendKind::cuda) {
        ck::Kernel raw = ck::compile(kRawAdd).kernel("raw_add");
        long long n4 = n / 4;
        auto cfg = ck::grid_for(static_cast<std::size_t>(n4), 256);
        cfg.grid.x = std::min<unsigned>(
            cfg.grid.x, static_cast<unsigned>(device.properties().multiprocessor_count * 8));
        rows.push_back({"raw_add_" + tag, bytes,
                        median_ms(
                            device, [&] { raw.launch(cfg, a, b, c, n4); }, repeats)});
      }
      ck::Array x = random_array(n, rng), y = random_array(n, rng);
      c.assign(a * b + x * y);
      auto hx = [&](std::int64_t k) { return static_cast<float>(x.item(k).as_double()); };
      auto hy = [&](std::int64_t k) { return static_cast<float>(y.item(k).as_double()); };
      ok &= check(c, [&](std::int64_t k) { return ha(k) * hb(k) + hx(k) * hy(k); });
      rows.push_back({"array_fused_ab_xy_" + tag, 5.0 * 4.0 * static_cast<double>(n),
                      median_ms(
                          device, [&] { c.assign(a * b + x * y); }, repeats)});
    }
  }

  std::printf("%-26s %12s %10s\n", "case", "time (ms)", "GB/s");
  for (const auto& r : rows)
    std::printf("%-26s %12.4f %10.1f\n", r.name.c_str(), r.ms, r.bytes / (r.ms * 1e6));
  for (const auto& r : rows)
    std::printf("RESULT %s %.1f\n", r.name.c_str(), r.bytes / (r.ms * 1e6));
  if (!ok) {
    std::fprintf(stderr, "array_bench: a result was wrong\n");
    return 1;
  }
  return 0;
}
