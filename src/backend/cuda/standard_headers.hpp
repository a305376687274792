// Stand-ins for the C and C++ standard headers that device code written for
// nvcc includes (<math.h>, <cstdint>, <limits>, ...), which NVRTC does not
// have. Most map to libcu++ (cuda/std/..., in the toolkit's include/cccl);
// the rest are small texts of their own. NVRTC reads a named header only
// when the source includes it, so a source that includes none of them pays
// nothing for them.
#pragma once

#include <span>

namespace cudakit::detail {

struct StandardHeader {
  const char* name;  // as written in #include <...>
  const char* text;
};

// Every stand-in, by the name a source includes it with.
std::span<const StandardHeader> standard_headers();

// The header NVRTC pre-includes (-include) in every compile: nvcc's implicit
// typedefs uint, ushort, ulong and uchar (which nvcc gets from the host's
// <sys/types.h>). Pre-included, it leaves the user's line numbers as they are.
inline constexpr const char* kNvccTypedefsHeader = "cudakit_nvcc_typedefs.h";
const char* nvcc_typedefs_text();

}  // namespace cudakit::detail
