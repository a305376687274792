// Where each vendor library is looked for: the one search plan that the
// library's loaders, `cudakit doctor` and the benchmarks all use, so they
// always agree on which file a setting selects. No CUDA type appears here,
// so programs that only describe the search (doctor) need no CUDA header.
#pragma once

#include <string>
#include <vector>

#include "platform/library_loader.hpp"

namespace cudakit::detail {

// The environment variables that name a library's location (a file or a
// directory). When one is set, its plan holds only that location.
inline constexpr const char* kLibcudaLocationVariable = "CUDAKIT_LIBCUDA";
inline constexpr const char* kNvrtcLocationVariable = "CUDAKIT_NVRTC";
inline constexpr const char* kCublasLocationVariable = "CUDAKIT_CUBLAS";
inline constexpr const char* kCurandLocationVariable = "CUDAKIT_CURAND";
inline constexpr const char* kNcclLocationVariable = "CUDAKIT_NCCL";
inline constexpr const char* kNvJitLinkLocationVariable = "CUDAKIT_NVJITLINK";

// The sonames tried in each location, newest first.
const std::vector<std::string>& cuda_driver_sonames();
const std::vector<std::string>& nvrtc_sonames();
const std::vector<std::string>& cublas_sonames();
const std::vector<std::string>& curand_sonames();
const std::vector<std::string>& nccl_sonames();
const std::vector<std::string>& nvjitlink_sonames();

// Where libcuda is looked for: CUDAKIT_LIBCUDA (a file or a directory; when
// set, nothing else), then the dynamic loader's path, then the usual driver
// directories of Linux distributions, containers and WSL.
SearchPlan cuda_driver_search_plan();
// Where libnvrtc is looked for: CUDAKIT_NVRTC (a file or a directory; when
// set, nothing else), $CUDA_PATH/lib64, $CUDA_HOME/lib64, the toolkit found
// when cudakit was built, /usr/local/cuda/lib64, then the loader's path.
SearchPlan nvrtc_search_plan();
// Where libcublas is looked for: CUDAKIT_CUBLAS (a file or a directory; when
// set, nothing else), then the same places as NVRTC.
SearchPlan cublas_search_plan();
// Where libcurand (its host library: the Sobol generators' tables) is looked
// for: CUDAKIT_CURAND (a file or a directory; when set, nothing else), then
// the same places as NVRTC.
SearchPlan curand_search_plan();
// Where libnccl is looked for: CUDAKIT_NCCL (a file or a directory; when
// set, nothing else), then the same places as NVRTC (pip's nvidia-nccl and
// distribution packages put it on the loader's path).
SearchPlan nccl_search_plan();
// Where libnvJitLink (the linker of LTO-IR) is looked for: CUDAKIT_NVJITLINK
// (a file or a directory; when set, nothing else), then the same places as NVRTC.
SearchPlan nvjitlink_search_plan();

// The CUDA toolkit's root directories, in the order they are looked at:
// $CUDA_PATH, $CUDA_HOME, $CUDA_ROOT, the toolkit of the nvcc on PATH (and
// the one a link to it points into), the toolkit cudakit was built with,
// /usr/local/cuda. Each once; whether they exist is not checked. NVRTC's and
// cuBLAS's plans, the toolkit's static libraries (libcudadevrt.a) and the
// toolkit's headers are all looked for under these.
std::vector<std::string> cuda_toolkit_roots();
// The library directories of those roots: lib64, lib and targets/<arch>/lib.
std::vector<std::string> cuda_toolkit_library_directories();

// The directories of the usual driver installs that hold a libcuda.so.1
// (doctor lists the distinct copies found there).
const std::vector<std::string>& cuda_driver_directories();

}  // namespace cudakit::detail
