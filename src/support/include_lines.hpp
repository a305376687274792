// include_lines: the one reader of a source's #include lines, and the one
// list of the C++ standard headers, for the compile paths of both backends.
#pragma once

#include <string_view>
#include <vector>

namespace cudakit::detail {

struct IncludeLine {
  std::string_view name;  // what is between the delimiters
  bool angled = false;    // <name>, else "name"
};

// The #include lines of `text`, in order (a `#` and `include` may have
// blanks around them; lines without a closed <...> or "..." are skipped).
// The names view `text`.
std::vector<IncludeLine> include_lines(std::string_view text);

// Whether `name` is one of the C++ standard library's headers that device
// code includes (<cmath>, <type_traits>, <complex>, ...): headers of
// templates, which may not be read with C linkage, and which the CPU
// backend's host compiler reads before CUDA's macros.
bool is_standard_cxx_header(std::string_view name);

}  // namespace cudakit::detail
