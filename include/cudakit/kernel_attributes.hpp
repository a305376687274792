// What the compiler decided for one kernel: registers, shared and local
// memory, and the largest block it can run.
#pragma once

#include <cstddef>

namespace cudakit {

struct KernelAttributes {
  int registers = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t local_bytes = 0;  // per thread (spills, local arrays)
  std::size_t const_bytes = 0;
  int max_threads_per_block = 0;
  std::size_t max_dynamic_shared_bytes = 0;
  int ptx_version = 0;     // 90 for PTX ISA 9.0; 0 when unknown
  int binary_version = 0;  // 90 for sm_90; 0 when unknown
};

}  // namespace cudakit
