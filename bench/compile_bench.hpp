// The compile and cache benchmark (PERF.md P3): a cold compile through
// cudakit against raw NVRTC in the same run, a memory-cache hit, and a
// disk-cache hit in a fresh process. Used by bench/compile_bench and by
// `cudakit bench compile`.
#pragma once

#include <ostream>
#include <string>

namespace cudakit {

// Prints the table to `out`; 0 on success. Options (argv form):
//   --repeats N   cold compiles per path (default 7)
//   --fresh N     fresh processes per disk-hit row (default 11)
//   --arch ARCH   target of the cold compiles (default sm_90)
int run_compile_bench(int argc, char** argv);
int run_compile_bench(std::ostream& out);
int run_compile_bench(int argc, char** argv, std::ostream& out);

// The file the raw-NVRTC baseline loads, found with the library's own search
// plan (CUDAKIT_NVRTC, CUDA_PATH, ...); empty, with `why` set, when none loads.
std::string raw_nvrtc_path(std::string& why);

}  // namespace cudakit
