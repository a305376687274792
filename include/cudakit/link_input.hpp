// What a link is made of (separate compilation): the kinds of input the
// driver's linker takes, one input, and the linker's options. The Linker
// (cudakit/linker.hpp) collects inputs; a backend links them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudakit {

// The driver's CUjitInputType, by what the input holds.
enum class LinkInputType : std::uint8_t {
  cubin,    // machine code for one arch (relocatable when compiled with -rdc=true)
  ptx,      // PTX text (relocatable when compiled with -rdc=true)
  fatbin,   // a fat binary (several cubins / PTX)
  object,   // a host object file holding device code (nvcc -c -rdc=true)
  library,  // an archive of such objects (.a), e.g. libcudadevrt.a
  ltoir,    // LTO-IR (NVRTC's or nvcc's -dlto): a link holding it goes through nvJitLink
};

std::string_view to_string(LinkInputType type) noexcept;
// "cubin", "ptx", "fatbin", "object", "library", "ltoir" (any case); nullopt otherwise.
std::optional<LinkInputType> parse_link_input_type(std::string_view name) noexcept;

// One input: bytes in memory, or a file the linker reads (`path` set).
struct LinkInput {
  LinkInputType type = LinkInputType::ptx;
  std::vector<std::uint8_t> data;  // PTX without its terminator; empty for a file
  std::string name;                // shown in the linker's messages
  std::filesystem::path path;      // non-empty: the input is this file
};

// The linker's options (the CU_JIT_* options cuLinkCreate takes).
struct LinkOptions {
  bool verbose_log = false;     // CU_JIT_LOG_VERBOSE: the info log reports each kernel's resources
  bool debug = false;           // CU_JIT_GENERATE_DEBUG_INFO
  bool line_info = false;       // CU_JIT_GENERATE_LINE_INFO
  int optimization_level = -1;  // CU_JIT_OPTIMIZATION_LEVEL 0-4; -1: the driver's default (4)
};

}  // namespace cudakit
