// nvJitLink (libnvJitLink), loaded with dlopen on first use: the linker of
// LTO-IR (NVRTC's or nvcc's -dlto), which the driver's linker does not
// take. It also links PTX, cubins, fatbins, objects and libraries with it.
// The signatures are written with plain types (nvJitLinkResult is an int,
// the input type an int, the handle a pointer), so no CUDA header is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/library_search.hpp"

namespace cudakit::detail {

// nvJitLinkInputType's numbers.
enum class NvJitLinkInput : int {
  cubin = 1,
  ptx = 2,
  ltoir = 3,
  fatbin = 4,
  object = 5,
  library = 6
};

struct NvJitLink {
  using Handle = void*;
  int (*nvJitLinkCreate)(Handle*, std::uint32_t, const char**) = nullptr;
  int (*nvJitLinkDestroy)(Handle*) = nullptr;
  int (*nvJitLinkAddData)(Handle, int, const void*, std::size_t, const char*) = nullptr;
  int (*nvJitLinkAddFile)(Handle, int, const char*) = nullptr;
  int (*nvJitLinkComplete)(Handle) = nullptr;
  int (*nvJitLinkGetLinkedCubinSize)(Handle, std::size_t*) = nullptr;
  int (*nvJitLinkGetLinkedCubin)(Handle, void*) = nullptr;
  int (*nvJitLinkGetErrorLogSize)(Handle, std::size_t*) = nullptr;
  int (*nvJitLinkGetErrorLog)(Handle, char*) = nullptr;
  int (*nvJitLinkGetInfoLogSize)(Handle, std::size_t*) = nullptr;
  int (*nvJitLinkGetInfoLog)(Handle, char*) = nullptr;
  std::string path;  // the file libnvJitLink was loaded from
};

// Throws LibraryNotFound listing every path tried.
NvJitLink load_nvjitlink(const SearchPlan& plan);
// The process-wide instance, loaded once (thread-safe); throws LibraryNotFound.
const NvJitLink& nvjitlink_library();

}  // namespace cudakit::detail
