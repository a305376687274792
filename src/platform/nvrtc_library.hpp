// NVRTC, the CUDA run-time compiler (libnvrtc), loaded with dlopen on first
// use. NVRTC loads its own libnvrtc-builtins from beside itself; cudakit
// preloads it from the same directory so a copy found through CUDAKIT_NVRTC
// never pairs with builtins of another version.
#pragma once

#include <nvrtc.h>

#include <cstddef>
#include <string>
#include <vector>

#include "platform/library_loader.hpp"
#include "platform/library_search.hpp"

namespace cudakit::detail {

#define CUDAKIT_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)                  \
  X(nvrtcGetErrorString)           \
  X(nvrtcGetNumSupportedArchs)     \
  X(nvrtcGetSupportedArchs)        \
  X(nvrtcCreateProgram)            \
  X(nvrtcDestroyProgram)           \
  X(nvrtcCompileProgram)           \
  X(nvrtcGetPTXSize)               \
  X(nvrtcGetPTX)                   \
  X(nvrtcGetCUBINSize)             \
  X(nvrtcGetCUBIN)                 \
  X(nvrtcGetProgramLogSize)        \
  X(nvrtcGetProgramLog)            \
  X(nvrtcAddNameExpression)        \
  X(nvrtcGetLoweredName)

struct Nvrtc {
#define CUDAKIT_NVRTC_MEMBER(name) decltype(&::name) name = nullptr;
  CUDAKIT_NVRTC_FUNCTIONS(CUDAKIT_NVRTC_MEMBER)
#undef CUDAKIT_NVRTC_MEMBER
  // LTO-IR output (-dlto), NVRTC 12.0 and newer; nullptr where this NVRTC
  // lacks them. Declared here, not from nvrtc.h, which may be older.
  nvrtcResult (*nvrtcGetLTOIRSize)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*nvrtcGetLTOIR)(nvrtcProgram, char*) = nullptr;
  std::string path;  // the file it was loaded from
  int major = 0;     // nvrtcVersion
  int minor = 0;
  std::vector<int> archs;  // nvrtcGetSupportedArchs: 75, 80, ..., ascending
  // The toolkit's include directory (cuda_fp16.h, ...) that belongs with this
  // NVRTC, empty when none was found; passed to every compile as -I.
  std::string include_dir;
};

// Throws NvrtcNotFound listing every path tried.
Nvrtc load_nvrtc(const SearchPlan& plan);
// The process-wide instance, loaded once (thread-safe); throws NvrtcNotFound.
const Nvrtc& nvrtc();

// "NVRTC_ERROR_COMPILATION" for a result.
std::string nvrtc_error_name(nvrtcResult result);

}  // namespace cudakit::detail
