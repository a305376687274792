// Helpers of the communicator tests: ranks over the CPU backend's virtual
// devices, fresh random input per rank and dtype, and the host reference of
// each reduction (in double for floats, with a bound that scales with the
// terms' sizes; wrapped integers exactly).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cudakit/communicator.hpp"

namespace comm_test {

using cudakit::BFloat16;
using cudakit::Half;
using cudakit::ReduceOp;

template <class T>
constexpr bool is_half = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class T>
double as_double(T v) {
  if constexpr (is_half<T>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

template <class T>
T from_double(double v) {
  if constexpr (is_half<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

template <class T>
double epsilon() {
  if constexpr (std::is_same_v<T, Half>) return 1.0 / 1024;
  if constexpr (std::is_same_v<T, BFloat16>) return 1.0 / 128;
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::epsilon();
  return 0;
}

// Values that keep `op` meaningful: products near 1, integers small enough
// that a product of four ranks stays in int8 (sums still wrap in 8 bits).
template <class T>
std::vector<T> random_values(std::mt19937_64& rng, std::size_t n, ReduceOp op) {
  std::vector<T> out(n);
  for (auto& v : out) {
    if constexpr (is_half<T> || std::is_floating_point_v<T>) {
      std::uniform_real_distribution<double> d(op == ReduceOp::prod ? 0.5 : -1.0,
                                               op == ReduceOp::prod ? 1.5 : 1.0);
      v = from_double<T>(d(rng));
    } else {
      const long long lo = std::is_signed_v<T> ? (op == ReduceOp::prod ? -3 : -100) : 0;
      const long long hi = op == ReduceOp::prod ? 3 : 100;
      v = static_cast<T>(std::uniform_int_distribution<long long>(lo, hi)(rng));
    }
  }
  return out;
}

// The reduction of element i over ranks, and how far a correct result may be.
struct Expected {
  double value;
  double tolerance;
};

template <class T>
Expected reduce_reference(const std::vector<std::vector<T>>& in, std::size_t i, ReduceOp op) {
  const std::size_t n = in.size();
  if constexpr (is_half<T> || std::is_floating_point_v<T>) {
    double acc = as_double(in[0][i]), magnitude = std::abs(acc);
    for (std::size_t r = 1; r < n; ++r) {
      const double x = as_double(in[r][i]);
      magnitude += std::abs(x);
      if (op == ReduceOp::sum || op == ReduceOp::avg) acc += x;
      if (op == ReduceOp::prod) acc *= x;
      if (op == ReduceOp::max) acc = std::max(acc, x);
      if (op == ReduceOp::min) acc = std::min(acc, x);
    }
    const double steps = static_cast<double>(n + 1) * epsilon<T>();
    if (op == ReduceOp::max || op == ReduceOp::min) return {acc, 0};
    if (op == ReduceOp::prod) return {acc, steps * std::abs(acc) * 2};
    if (op == ReduceOp::avg) return {acc / static_cast<double>(n), steps * magnitude / n};
    return {acc, steps * magnitude};
  } else {
    // Integers wrap around in their own width, as on a GPU.
    using U = std::make_unsigned_t<T>;
    U acc = static_cast<U>(in[0][i]);
    for (std::size_t r = 1; r < n; ++r) {
      const U x = static_cast<U>(in[r][i]);
      if (op == ReduceOp::sum) acc = static_cast<U>(acc + x);
      if (op == ReduceOp::prod) acc = static_cast<U>(acc * x);
      if (op == ReduceOp::max) acc = static_cast<U>(std::max<T>(static_cast<T>(acc), in[r][i]));
      if (op == ReduceOp::min) acc = static_cast<U>(std::min<T>(static_cast<T>(acc), in[r][i]));
    }
    return {static_cast<double>(static_cast<T>(acc)), 0};
  }
}

template <class T>
::testing::AssertionResult close(T got, Expected want) {
  const double g = as_double(got);
  if (std::abs(g - want.value) <= want.tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << g << ", expected " << want.value << " within " << want.tolerance;
}

// The ranks of Communicator::local over the first `n` CPU devices, each
// with a stream of its own device.
struct Ranks {
  std::vector<cudakit::Device> devices;
  std::vector<cudakit::Communicator> comms;
  std::vector<cudakit::Stream> streams;

  explicit Ranks(int n, std::chrono::milliseconds timeout = {}) {
    for (int r = 0; r < n; ++r)
      devices.push_back(cudakit::Device::get(cudakit::BackendKind::cpu, r));
    comms = cudakit::Communicator::local(devices, timeout);
    for (const auto& d : devices) streams.push_back(d.create_stream());
  }
  int size() const { return static_cast<int>(devices.size()); }
  void synchronize() const {
    for (const auto& s : streams) s.synchronize();
  }
};

}  // namespace comm_test
