// Shared pieces of the reduction, scan and linalg tests: a fixture that runs
// on a chosen backend's device, random inputs, and host references in double.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"

namespace cudakit_test {

using cudakit::Array;
using cudakit::Shape;

inline std::uint32_t fresh_seed() {
  static std::random_device device;
  return device();
}

// Uniform values in [lo, hi), never exactly zero.
template <class T>
std::vector<T> random_values(std::size_t n, double lo, double hi, std::uint32_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> out(n);
  for (auto& v : out) {
    double x = dist(engine);
    if (x == 0.0) x = 0.5;
    if constexpr (std::is_integral_v<T>) {
      T t = static_cast<T>(std::floor(x));
      v = t == 0 ? T{1} : t;
    } else {
      v = static_cast<T>(x);
    }
  }
  return out;
}

// The values grouped by output element: for every output (C order over the
// kept axes), the input values in C order over the reduced axes.
inline std::vector<std::vector<double>> group_by_output(const std::vector<double>& x,
                                                        const Shape& shape,
                                                        const std::vector<int>& reduced_axes) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), false);
  for (int a : reduced_axes) reduced[static_cast<std::size_t>(a < 0 ? a + ndim : a)] = true;
  std::int64_t n_out = 1;
  for (int d = 0; d < ndim; ++d)
    if (!reduced[static_cast<std::size_t>(d)]) n_out *= shape[static_cast<std::size_t>(d)];
  std::vector<std::vector<double>> groups(static_cast<std::size_t>(n_out));
  std::vector<std::int64_t> index(static_cast<std::size_t>(ndim), 0);
  for (std::size_t flat = 0; flat < x.size(); ++flat) {
    std::int64_t out = 0;
    for (int d = 0; d < ndim; ++d)
      if (!reduced[static_cast<std::size_t>(d)])
        out = out * shape[static_cast<std::size_t>(d)] + index[static_cast<std::size_t>(d)];
    groups[static_cast<std::size_t>(out)].push_back(x[flat]);
    for (int d = ndim - 1; d >= 0; --d) {
      if (++index[static_cast<std::size_t>(d)] < shape[static_cast<std::size_t>(d)]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
  return groups;
}

inline std::vector<double> reference(const std::vector<double>& x, const Shape& shape,
                                     const std::vector<int>& axes,
                                     const std::function<double(const std::vector<double>&)>& f) {
  std::vector<double> out;
  for (const auto& g : group_by_output(x, shape, axes)) out.push_back(f(g));
  return out;
}

inline double ref_sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}
inline double ref_mean(const std::vector<double>& v) {
  return ref_sum(v) / static_cast<double>(v.size());
}
inline double ref_var(const std::vector<double>& v) {
  const double m = ref_mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

// Every element of a result as double, C order.
inline std::vector<double> as_doubles(const Array& a) {
  std::vector<double> out;
  for (std::int64_t k = 0; k < a.size(); ++k) out.push_back(a.item(k).as_double());
  return out;
}

// Every element of a complex result, C order.
inline std::vector<std::complex<double>> as_complexes(const Array& a) {
  std::vector<std::complex<double>> out;
  for (std::int64_t k = 0; k < a.size(); ++k) out.push_back(a.item(k).as_complex());
  return out;
}

// |got - want| <= rel * max(1, |want|) + eps32 * |scale| for each output;
// `scale` (optional) is the same reduction over |x|: a float32 sum's rounding
// error grows with the sum of magnitudes, not with a (possibly cancelled)
// result, so one float32 epsilon of it is allowed on top.
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want,
                         double rel, const char* what, const std::vector<double>& scale = {}) {
  ASSERT_EQ(got.size(), want.size()) << what;
  constexpr double eps32 = 1.1920928955078125e-07;
  for (std::size_t k = 0; k < got.size(); ++k) {
    double tol = rel * std::max(1.0, std::fabs(want[k]));
    if (k < scale.size()) tol += eps32 * std::fabs(scale[k]);
    ASSERT_NEAR(got[k], want[k], tol) << what << " at output " << k;
  }
}

inline std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }
inline std::vector<double> magnitudes(const std::vector<float>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (float x : v) out.push_back(std::fabs(static_cast<double>(x)));
  return out;
}

}  // namespace cudakit_test
