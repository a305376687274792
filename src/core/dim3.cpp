#include "cudakit/dim3.hpp"

namespace cudakit {

std::string Dim3::to_string() const {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

}  // namespace cudakit
