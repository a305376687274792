// Direct probes of the vendor libraries for `cudakit doctor` and `info`.
// They dlopen libcuda and libnvrtc themselves, independently of the backend,
// so a broken installation can still be described precisely (which file,
// which version, which status code) instead of only "the backend failed".
// They search exactly where the library does: the plans of
// platform/library_search.hpp (CUDAKIT_LIBCUDA, CUDAKIT_NVRTC, ...).
#pragma once

#include <string>
#include <vector>

#include "platform/library_search.hpp"

namespace cudakit::cli {

struct DriverProbe {
  bool loaded = false;
  std::string path;                   // the file the loader actually opened
  std::string load_error;             // dlerror() when not loaded
  bool explicit_location = false;     // CUDAKIT_LIBCUDA named the location
  std::vector<std::string> searched;  // the plan's candidates, in order
  int version = 0;                    // cuDriverGetVersion: 13000 = CUDA 13.0
  int init_status = -1;               // cuInit(0); 0 = success, -1 = not attempted
  std::string init_status_name;       // "CUDA_ERROR_NO_DEVICE"
  std::string init_status_text;       // the driver's description
  // Distinct libcuda files installed in the usual places (a mix of package
  // manager and runfile installs shows up here as more than one).
  std::vector<std::string> installed_copies;
};

struct NvrtcProbe {
  bool loaded = false;
  std::string path;
  std::string load_error;
  bool explicit_location = false;     // CUDAKIT_NVRTC named the location
  std::vector<std::string> searched;  // the plan's candidates, in order
  int major = 0;
  int minor = 0;
  std::vector<int> archs;  // 75, 80, 86, 89, 90, ...
};

// By default each probe follows the library's own plan; tests pass others.
DriverProbe probe_driver(const detail::SearchPlan& plan = detail::cuda_driver_search_plan());
NvrtcProbe probe_nvrtc(const detail::SearchPlan& plan = detail::nvrtc_search_plan());

// "13.0" from 13000.
std::string format_cuda_version(int version);
// "sm_75 sm_80 ... sm_120" from the arch list.
std::string format_archs(const std::vector<int>& archs);

// A toolkit directory looks real: it has include/cuda.h or bin/nvcc.
bool looks_like_toolkit(const std::string& dir);
// Full path of `program` on PATH, empty if not found.
std::string find_on_path(const std::string& program);

}  // namespace cudakit::cli
