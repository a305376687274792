// A struct passed by value to a generated kernel (ElementwiseKernel,
// ReductionKernel) whose parameter is declared with a struct type
// ("float3 pt", "my_struct s"): its bytes, laid out as the kernel's type.
// The launch checks their count against the compiled parameter's size.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace cudakit {

struct StructValue {
  std::vector<unsigned char> bytes;
  // What was passed, for messages ("a numpy record (x: float32, y: float32, z: float32)").
  std::string description = "a struct";

  StructValue() = default;
  StructValue(const void* data, std::size_t size, std::string what = "a struct")
      : bytes(static_cast<const unsigned char*>(data),
              static_cast<const unsigned char*>(data) + size),
        description(std::move(what)) {}
};

}  // namespace cudakit
