// The output of a compile: the loadable image plus everything learned while
// compiling (log, lowered names of name expressions). This is what the disk
// cache stores.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudakit {

enum class CodeFormat : std::uint8_t {
  cubin,        // machine code for one GPU arch
  ptx,          // virtual ISA, JIT-compiled by the driver at load
  fatbin,       // several of the above
  host_object,  // a shared object built by the CPU backend's host compiler
  ltoir         // NVRTC's LTO-IR (-dlto): linked by nvJitLink, not loadable
};

std::string_view to_string(CodeFormat format) noexcept;

struct CompiledCode {
  CodeFormat format = CodeFormat::cubin;
  std::vector<std::uint8_t> image;  // what gets loaded
  std::string ptx;   // PTX text where the compiler produced it (layouts are read from it)
  std::string log;   // warnings, kept on success
  std::string arch;  // what it was compiled for: "sm_90", "compute_90", "cpu"
  // {name expression, lowered (mangled) symbol} for each name expression.
  std::vector<std::pair<std::string, std::string>> lowered_names;
};

}  // namespace cudakit
