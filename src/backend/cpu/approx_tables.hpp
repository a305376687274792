// The tables of the GPU's approximate functions (the SFU's MUFU.SIN/COS, EX2,
// LG2, RSQ and RCP; see prelude/cudakit_cpu_approx_math.h), measured on an
// H200 and carried in the library compressed (approx_tables/*.bin, written by
// scripts/probes/approx_tables.py). Each is decoded on its first use.
#pragma once

namespace cudakit::detail::cpu {

// In the order of the module's RuntimeTable::approx_table.
enum class ApproxTable {
  kHalfTurn = 0,    // MUFU.SIN over half a turn, 2^24 entries
  kFraction = 1,    // MUFU.EX2 over [0, 1), 2^23
  kLog2Below = 2,   // MUFU.LG2 over [0.5, 1), 2^23
  kLog2Above = 3,   // MUFU.LG2 over [1, 2), 2^23
  kRsqrt = 4,       // MUFU.RSQ over [1, 4), 2^24
  kReciprocal = 5,  // MUFU.RCP over [1, 2), 2^23
};
constexpr int kApproxTables = 6;

// The decoded table, or nullptr where the tables cannot be decoded (no
// libz.so.1 on the system): kernels then use the host's functions.
const unsigned* approx_table(ApproxTable which);
// The same for the module's RuntimeTable (which: an ApproxTable's number).
const unsigned* approx_table_for_module(int which);

}  // namespace cudakit::detail::cpu
