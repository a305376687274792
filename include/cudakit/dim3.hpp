// Grid and block extents, as CUDA's dim3: up to three dimensions, unused ones 1.
#pragma once

#include <cstddef>
#include <string>

namespace cudakit {

struct Dim3 {
  unsigned x = 1;
  unsigned y = 1;
  unsigned z = 1;

  constexpr Dim3() = default;
  constexpr Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}

  constexpr std::size_t volume() const noexcept {
    return std::size_t(x) * std::size_t(y) * std::size_t(z);
  }
  friend constexpr bool operator==(const Dim3&, const Dim3&) = default;
  // "256x1x1"
  std::string to_string() const;
};

}  // namespace cudakit
