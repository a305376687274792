// Reading a module image from a file: the format is taken from the content
// (ELF machine, fatbin magic, PTX text), the file name's extension only when
// the content is none of them, so a cubin saved as "kernel.bin" or NVRTC
// output under any name loads as what it is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "cudakit/compiled_code.hpp"

namespace cudakit::detail {

// What a module image holds, judged by its bytes.
struct SniffedFormat {
  std::optional<CodeFormat> format;  // none of the loadable formats when empty
  std::string arch;                  // "sm_90" (cubin), "compute_90" (PTX), "cpu", or ""
  std::string found;                 // for messages: "an ELF cubin for sm_90", "text beginning ..."
  bool rejected = false;             // recognised, but never loadable (an ELF relocatable object)
};

SniffedFormat sniff_code_format(std::span<const std::uint8_t> bytes);

// The file as loadable code; ArgumentError naming the file and what it holds
// when it cannot be read or holds no loadable format.
CompiledCode read_module_file(const std::filesystem::path& path);
// Bytes in memory as loadable code, the format judged by content alone;
// ArgumentError saying what they hold otherwise.
CompiledCode code_from_image(std::span<const std::uint8_t> image);

}  // namespace cudakit::detail
