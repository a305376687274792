#include "cudakit/compiled_code.hpp"

namespace cudakit {

std::string_view to_string(CodeFormat format) noexcept {
  switch (format) {
    case CodeFormat::cubin:
      return "cubin";
    case CodeFormat::ptx:
      return "ptx";
    case CodeFormat::fatbin:
      return "fatbin";
    case CodeFormat::host_object:
      return "host object";
    case CodeFormat::ltoir:
      return "ltoir";
  }
  return "unknown";
}

}  // namespace cudakit
