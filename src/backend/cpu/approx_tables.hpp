// The tables of the GPU's approximate functions (MUFU.SIN/COS and MUFU.EX2,
// see prelude/cudakit_cpu_approx_math.h), measured on an H200 and carried in
// the library compressed (approx_tables/*.bin, written by
// scripts/probes/approx_tables.py). Decoded on first use.
#pragma once

namespace cudakit::detail::cpu {

enum class ApproxTable { kHalfTurn = 0, kFraction = 1 };

// The decoded table, or nullptr where it cannot be decoded (no libz.so.1 on
// the system): kernels then use the host's sinf/cosf (see the prelude).
const unsigned* approx_table(ApproxTable which);
// The same for the module's RuntimeTable (which: 0 half turn, 1 fraction).
const unsigned* approx_table_for_module(int which);

}  // namespace cudakit::detail::cpu
