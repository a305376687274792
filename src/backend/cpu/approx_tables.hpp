// The tables of the GPU's approximate functions (the SFU's MUFU.SIN/COS, EX2,
// LG2, RSQ and RCP; see prelude/cudakit_cpu_approx_math.h), measured on an
// H200 and carried in the library compressed (approx_tables/*.bin, written by
// scripts/probes/approx_tables.py). Each is decoded on its first use.
#pragma once

#include "backend/cpu/prelude/cudakit_cpu_abi.h"

namespace cudakit::detail::cpu {

// The decoded table, or nullptr where it cannot be decoded (no libz.so.1 on
// the system): kernels then use the host's functions.
const unsigned* approx_table(cudakit_cpu::ApproxTableId which);
// The same for the module's RuntimeTable (nullptr for a number out of range).
const unsigned* approx_table_for_module(int which);

}  // namespace cudakit::detail::cpu
