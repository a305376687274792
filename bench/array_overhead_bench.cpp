// Host time of one array expression call, the part of a small operation that
// no kernel can hide: `c.assign(a + b)` on existing arrays, and the same on
// views made per call from raw device addresses (what a Python binding does
// for arrays that another library owns). The arrays are small so the device
// keeps up; the calls are timed back to back on the host clock, then the
// device is synchronized. Prints a table and "RESULT <name> <us>" lines.
//   array_overhead_bench [--calls N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"

namespace ck = cudakit;

namespace {

// Median over rounds of the host microseconds per call of `fn`, each round
// `calls` back-to-back calls followed by a device synchronize (not timed).
double host_us_per_call(const ck::Device& device, const std::function<void()>& fn, int calls) {
  for (int k = 0; k < 50; ++k) fn();
  device.synchronize();
  std::vector<double> rounds;
  for (int r = 0; r < 15; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < calls; ++k) fn();
    auto t1 = std::chrono::steady_clock::now();
    device.synchronize();
    rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 200;
  for (int k = 1; k + 1 < argc; ++k)
    if (std::strcmp(argv[k], "--calls") == 0) calls = std::max(1, std::atoi(argv[k + 1]));
  ck::Device device = ck::Device::current();
  const std::int64_t n = 4099;  // not a multiple of any block or vector width
  std::vector<float> ha(static_cast<std::size_t>(n)), hb(ha.size());
  for (std::size_t k = 0; k < ha.size(); ++k) {
    ha[k] = 0.5f + static_cast<float>(k % 97) / 31.0f;
    hb[k] = 1.5f - static_cast<float>(k % 89) / 43.0f;
  }
  ck::Array a = ck::from_host(ha), b = ck::from_host(hb), c = ck::empty({n});
  c.assign(a + b);
  std::vector<float> got = c.to_host<float>();
  for (std::size_t k = 0; k < got.size(); ++k)
    if (got[k] != ha[k] + hb[k]) {
      std::fprintf(stderr, "array_overhead_bench: wrong sum at %zu\n", k);
      return 1;
    }
  const ck::Shape shape{n};
  auto view = [&](const ck::Array& x) {
    return ck::from_pointer(x.address(), shape, {}, ck::DType::float32, device);
  };
  struct Row {
    const char* name;
    double us;
  };
  std::vector<Row> rows;
  rows.push_back({"assign_a_plus_b", host_us_per_call(
                                         device, [&] { c.assign(a + b); }, calls)});
  rows.push_back(
      {"views_assign_a_plus_b", host_us_per_call(
                                    device, [&] { view(c).assign(view(a) + view(b)); }, calls)});
  rows.push_back({"from_pointer", host_us_per_call(
                                      device, [&] { (void)view(a); }, calls)});
  rows.push_back({"build_a_plus_b", host_us_per_call(
                                        device, [&] { (void)(a + b); }, calls)});
  std::printf("array_overhead_bench on %s, n = %lld float32, %d calls a round\n",
              device.describe().c_str(), static_cast<long long>(n), calls);
  std::printf("%-26s %12s\n", "case", "host us/call");
  for (const auto& r : rows) std::printf("%-26s %12.3f\n", r.name, r.us);
  for (const auto& r : rows) std::printf("RESULT %s %.3f\n", r.name, r.us);
  return 0;
}
