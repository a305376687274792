// Best-effort resource usage read from PTX text, for `cudakit compile
// --resource-usage` when there is no device to ask. PTX registers are virtual
// (ptxas allocates the real ones), so the register figure is an upper-bound
// style estimate; shared and local sizes are exact for static declarations.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudakit::cli {

struct PtxKernelResources {
  std::string name;                   // the .entry symbol
  std::size_t virtual_registers = 0;  // sum over .reg declarations (predicates excluded)
  std::size_t predicate_registers = 0;
  std::size_t shared_bytes = 0;      // static .shared declared in or used by the entry
  bool uses_dynamic_shared = false;  // references an .extern .shared array
  std::size_t local_bytes = 0;       // .local (stack frame, spills)
  std::size_t param_bytes = 0;       // sum of .param sizes
};

// Every .entry of `ptx`, in order of appearance.
std::vector<PtxKernelResources> parse_ptx_resources(std::string_view ptx);

}  // namespace cudakit::cli
