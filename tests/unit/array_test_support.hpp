// Shared by the array tests: the backend under test (CPU, or the GPU in the
// gpu-labelled registration of the same program), random inputs and host
// references.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"

namespace array_test {

namespace ck = cudakit;

// The backend of this run (tests/backend_fixture.hpp: CUDAKIT_TEST_BACKEND,
// set by ctest for each registration of a cudakit_add_backend_test program).
inline ck::BackendKind backend_under_test() { return ck::test::backend_under_test(); }

// Makes the backend's device 0 current for each test; skips (GPU run), with
// the reason, when there is no GPU.
class ArrayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = ck::test::backend_unavailable_reason(backend_under_test())) GTEST_SKIP() << *why;
    device_.emplace(ck::Device::get(backend_under_test(), 0));
    scope_.emplace(*device_);
  }
  const ck::Device& device() const { return *device_; }
  std::mt19937_64 rng{std::random_device{}()};

  // Uniform values in [lo, hi), never all zeros.
  std::vector<double> random_doubles(std::size_t n, double lo = -4.0, double hi = 4.0) {
    std::uniform_real_distribution<double> d(lo, hi);
    std::vector<double> v(n);
    for (auto& x : v) {
      x = d(rng);
      if (x == 0) x = 0.5;
    }
    return v;
  }
  template <class T>
  std::vector<T> random_values(std::size_t n, double lo = -4.0, double hi = 4.0) {
    std::vector<T> v(n);
    auto d = random_doubles(n, lo, hi);
    for (std::size_t k = 0; k < n; ++k) {
      if constexpr (std::is_same_v<T, bool>)
        v[k] = d[k] > 0;
      else if constexpr (std::is_integral_v<T>) {
        T x = static_cast<T>(std::llround(d[k]));
        v[k] = x == 0 ? T(1) : x;
      } else
        v[k] = static_cast<T>(d[k]);
    }
    return v;
  }

 private:
  std::optional<ck::Device> device_;
  std::optional<ck::DeviceScope> scope_;
};

// Bytes -> doubles for any real dtype (for comparing against references).
inline std::vector<double> to_doubles(const ck::Array& a) {
  std::vector<double> out(static_cast<std::size_t>(a.size()));
  for (std::int64_t k = 0; k < a.size(); ++k)
    out[static_cast<std::size_t>(k)] = a.item(k).as_double();
  return out;
}

}  // namespace array_test

#include "array/array_util.hpp"

namespace array_test {

// An array of `dtype` holding `values` (converted as a C cast would).
inline ck::Array make_array(const std::vector<double>& values, ck::DType dtype,
                            const ck::Shape& shape) {
  std::vector<unsigned char> bytes(values.size() * ck::itemsize(dtype));
  for (std::size_t k = 0; k < values.size(); ++k) {
    ck::Scalar s = ck::is_integer(dtype) || ck::is_bool(dtype)
                       ? ck::Scalar(static_cast<long long>(values[k]))
                       : ck::Scalar(values[k]);
    s.store(dtype, bytes.data() + k * ck::itemsize(dtype));
  }
  return ck::from_host(bytes.data(), shape, dtype);
}

// Every element as a double, C order, in one copy.
inline std::vector<double> host_doubles(const ck::Array& a) {
  std::vector<unsigned char> bytes(a.nbytes());
  a.copy_to_host(bytes.data(), bytes.size());
  std::vector<double> out(static_cast<std::size_t>(a.size()));
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = ck::detail::scalar_from_bytes(bytes.data() + k * a.itemsize(), a.dtype()).as_double();
  return out;
}

// `v` as it reads back after being stored in `dtype`.
inline double round_to(double v, ck::DType dtype) {
  unsigned char bytes[16] = {};
  ck::Scalar s = ck::is_integer(dtype) ? ck::Scalar(static_cast<long long>(v)) : ck::Scalar(v);
  if (ck::is_integer(dtype) && (std::isnan(v) || std::isinf(v))) return 0;
  s.store(dtype, bytes);
  return ck::detail::scalar_from_bytes(bytes, dtype).as_double();
}

// Relative tolerance for comparing a computed `dtype` value with a double reference.
inline double tolerance(ck::DType dtype) {
  switch (dtype) {
    case ck::DType::float16:
      return 2e-3;
    case ck::DType::bfloat16:
      return 1.6e-2;
    case ck::DType::float32:
      return 2e-6;
    case ck::DType::float64:
      return 1e-13;
    default:
      return 0;
  }
}

inline void expect_close(const std::vector<double>& got, const std::vector<double>& want,
                         ck::DType dtype, const std::string& what, double extra = 1.0) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double tol = tolerance(dtype) * extra;
  int reported = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    bool ok = (std::isnan(got[k]) && std::isnan(want[k])) || got[k] == want[k] ||
              std::fabs(got[k] - want[k]) <= tol * std::max(1.0, std::fabs(want[k]));
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << " element " << k << ": got " << got[k] << ", want " << want[k];
  }
}

}  // namespace array_test
