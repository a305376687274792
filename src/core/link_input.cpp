#include "cudakit/link_input.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace cudakit {

std::string_view to_string(LinkInputType type) noexcept {
  switch (type) {
    case LinkInputType::cubin:
      return "cubin";
    case LinkInputType::ptx:
      return "ptx";
    case LinkInputType::fatbin:
      return "fatbin";
    case LinkInputType::object:
      return "object";
    case LinkInputType::library:
      return "library";
    case LinkInputType::ltoir:
      return "ltoir";
  }
  return "unknown";
}

std::optional<LinkInputType> parse_link_input_type(std::string_view name) noexcept {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (LinkInputType type : {LinkInputType::cubin, LinkInputType::ptx, LinkInputType::fatbin,
                             LinkInputType::object, LinkInputType::library, LinkInputType::ltoir})
    if (lower == to_string(type)) return type;
  if (lower == "fatbinary") return LinkInputType::fatbin;
  return std::nullopt;
}

}  // namespace cudakit
