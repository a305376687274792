// Random arrays from a counter-based generator (Philox4x32-10): element e of
// a draw is a pure function of (seed, offset, e), so a seed gives the same
// numbers on the GPU and on the CPU backend (bit for bit for uniform and
// integers; normal and lognormal go through the platform's log / sin / cos,
// which may differ in the last bit), independent of the launch shape.
//
// Each draw of n values advances the generator's offset by the counters it
// used, so successive draws differ; two generators with the same seed give
// the same sequence of draws. Counter layout (for reproducing the numbers
// elsewhere): float32 and 32-bit-range integers take one 32-bit word each,
// four per counter; float64, normal float64 pairs and wide integer ranges
// take two words (two values per counter). Key = seed, counter = (offset +
// e / per_counter, 0).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>

#include "cudakit/array.hpp"

namespace cudakit {

class Generator {
 public:
  explicit Generator(std::uint64_t seed = 0);
  // Draws go to `stream` (and its device) instead of the current device's default stream.
  Generator(std::uint64_t seed, const Stream& stream);
  Generator(const Generator& other);
  Generator& operator=(const Generator& other);

  std::uint64_t seed() const noexcept { return seed_; }
  // Counters used so far; set_offset(k) replays from there.
  std::uint64_t offset() const;
  void set_offset(std::uint64_t offset);

  // Uniform in [0, 1) (24 random bits for float32, 53 for float64).
  Array random(const Shape& shape, DType dtype = DType::float64);
  // Uniform in [low, high). ArgumentError unless dtype is float32 or float64.
  Array uniform(double low, double high, const Shape& shape, DType dtype = DType::float64);
  // Normal (Box-Muller) with the given mean and standard deviation.
  Array normal(double mean, double stddev, const Shape& shape, DType dtype = DType::float64);
  Array standard_normal(const Shape& shape, DType dtype = DType::float64);
  // exp(normal(mean, sigma)).
  Array lognormal(double mean, double sigma, const Shape& shape, DType dtype = DType::float64);
  // Integers in [low, high) (NumPy's Generator.integers); any integer dtype.
  // ArgumentError when high <= low or the range does not fit the dtype.
  // Ranges up to 2^32 use one 32-bit word per value (bias below range/2^32).
  Array integers(std::int64_t low, std::int64_t high, const Shape& shape,
                 DType dtype = DType::int64);

 private:
  Array draw(int distribution, const Shape& shape, DType dtype, const void* p0, const void* p1,
             bool integer);
  std::uint64_t seed_;
  std::uint64_t offset_ = 0;
  std::optional<Stream> stream_;
  mutable std::mutex mutex_;
};

// The process-wide generator the convenience functions use (seed 0 until seeded).
Generator& default_generator();
void seed(std::uint64_t seed);

}  // namespace cudakit
