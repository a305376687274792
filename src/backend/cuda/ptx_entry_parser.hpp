// Reads kernel parameter lists from PTX text. Every kernel NVRTC compiles
// keeps its PTX, and its `.entry` line is the one place that states each
// parameter's size and alignment as the compiler laid them out, so launch
// arguments are checked against it rather than against a guess from the source.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/param_layout.hpp"

namespace cudakit::detail {

struct PtxEntry {
  std::string name;    // the entry's symbol (mangled for C++ linkage)
  ParamLayout layout;  // sizes, alignment, offsets; names and types empty
};

// Every `.entry` in the PTX, in order. Throws ArgumentError when an entry's
// parameter list cannot be read (it names the entry and the text).
std::vector<PtxEntry> parse_ptx_entries(std::string_view ptx);
// The layout of one entry; nullopt when the PTX has no entry of that name.
std::optional<ParamLayout> find_ptx_entry(std::string_view ptx, std::string_view name);
// The `.version` directive as major*10+minor (PTX ISA 9.0 -> 90); 0 if absent.
int ptx_isa_version(std::string_view ptx);
// The `.target` directive's first arch ("sm_90"); empty if absent.
std::string ptx_target(std::string_view ptx);

}  // namespace cudakit::detail
