// cuRAND's host library (libcurand), loaded with dlopen on first use for the
// tables its quasi-random generators start from: the Sobol direction vectors
// (Joe and Kuo's, 20000 dimensions) and the scramble constants. The
// generators themselves run in kernels (<curand_kernel.h>). The signatures are
// written with plain types (curandStatus_t is an int, the direction-vector
// set an enum), so no CUDA header is needed here.
#pragma once

#include <string>

#include "platform/library_search.hpp"

namespace cudakit::detail {

struct Curand {
  int (*curandGetVersion)(int*) = nullptr;
  int (*curandGetDirectionVectors32)(unsigned int (**)[32], int) = nullptr;
  int (*curandGetDirectionVectors64)(unsigned long long (**)[64], int) = nullptr;
  int (*curandGetScrambleConstants32)(unsigned int**) = nullptr;
  int (*curandGetScrambleConstants64)(unsigned long long**) = nullptr;
  std::string path;  // the file libcurand was loaded from
};

// Throws LibraryNotFound listing every path tried.
Curand load_curand(const SearchPlan& plan);
// The process-wide instance, loaded once (thread-safe); throws LibraryNotFound.
const Curand& curand_library();

}  // namespace cudakit::detail
