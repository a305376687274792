// What the GPU compiler (NVRTC) that cudakit loaded is and offers: its
// version, the archs it compiles for and whether it makes LTO-IR. Needs no
// GPU (NVRTC alone).
#pragma once

#include <string>
#include <vector>

namespace cudakit {

struct GpuCompilerInfo {
  int major = 0;  // nvrtcVersion
  int minor = 0;
  std::vector<int> archs;  // nvrtcGetSupportedArchs: 75, 80, ..., ascending
  bool lto_ir = false;     // nvrtcGetLTOIR is there (CompileOptions::lto_ir works)
  std::string path;        // the libnvrtc file it was loaded from
};

// Loads NVRTC on first use; throws NvrtcNotFound when there is none.
GpuCompilerInfo gpu_compiler_info();

}  // namespace cudakit
