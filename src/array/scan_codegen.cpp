#include "array/scan_codegen.hpp"

#include "array/coherent_load.hpp"

namespace cudakit::detail {

namespace {

std::string param_prefix(const ScanSpec& spec) {
  return spec.params.empty() ? std::string() : spec.params + ", ";
}

// One tile [ck_base, min(ck_base + tile, ck_end)) of a block's range: each
// thread scans its consecutive items serially, the block scans the thread
// totals (Hillis-Steele), and the running carry of earlier tiles is folded
// in. Needs no neutral element: threads past the end never feed valid ones.
std::string tile_code(const ScanSpec& spec, bool write) {
  std::string s;
  s += "    {\n";
  s += "      ck_value_t ck_local[CK_ITEMS];\n";
  s += "      const long long ck_first = ck_base + (long long)threadIdx.x * CK_ITEMS;\n";
  s += "      int ck_count = 0;\n";
  s += "      for (int ck_j = 0; ck_j < CK_ITEMS; ++ck_j) {\n";
  s += "        const long long i = ck_first + ck_j;\n";
  s += "        if (i < ck_end) {\n";
  s += "          const ck_value_t ck_v = (ck_value_t)(" + spec.map_expr + ");\n";
  s += "          ck_local[ck_j] = ck_j == 0 ? ck_v : ck_scan_op(ck_local[ck_j - 1], ck_v);\n";
  s += "          ck_count = ck_j + 1;\n";
  s += "        }\n";
  s += "      }\n";
  s += "      if (ck_count > 0) ck_totals[threadIdx.x] = ck_local[ck_count - 1];\n";
  s += "      __syncthreads();\n";
  s += "      for (unsigned int ck_off = 1; ck_off < CK_THREADS; ck_off <<= 1) {\n";
  s += "        ck_value_t ck_left = ck_totals[0];\n";
  s += "        if (threadIdx.x >= ck_off) ck_left = ck_totals[threadIdx.x - ck_off];\n";
  s += "        __syncthreads();\n";
  s += "        if (threadIdx.x >= ck_off && ck_count > 0)\n";
  s += "          ck_totals[threadIdx.x] = ck_scan_op(ck_left, ck_totals[threadIdx.x]);\n";
  s += "        __syncthreads();\n";
  s += "      }\n";
  if (write) {
    s += "      // What precedes this thread's first item: the carry, then earlier threads.\n";
    s += "      const bool ck_has_prefix = ck_has_carry || threadIdx.x > 0;\n";
    s += "      ck_value_t ck_prefix = ck_carry;\n";
    s += "      if (threadIdx.x > 0)\n";
    s += "        ck_prefix = ck_has_carry ? ck_scan_op(ck_carry, ck_totals[threadIdx.x - 1])\n";
    s += "                                 : ck_totals[threadIdx.x - 1];\n";
    s += "      for (int ck_j = 0; ck_j < ck_count; ++ck_j) {\n";
    if (spec.exclusive) {
      s += "        ck_value_t ck_r;\n";
      s += "        if (ck_j == 0) ck_r = ck_has_prefix ? ck_prefix : (ck_value_t)(CK_NEUTRAL);\n";
      s += "        else ck_r = ck_has_prefix ? ck_scan_op(ck_prefix, ck_local[ck_j - 1]) : "
           "ck_local[ck_j - 1];\n";
    } else {
      s += "        const ck_value_t ck_r = ck_has_prefix ? ck_scan_op(ck_prefix, ck_local[ck_j]) "
           ": ck_local[ck_j];\n";
    }
    if (spec.strided_out)
      s += "        ck_dst[(ck_first + ck_j - ck_line_start) * ck_out_step] = " + spec.store_expr +
           ";\n";
    else
      s += "        ck_out[ck_first + ck_j] = " + spec.store_expr + ";\n";
    s += "      }\n";
  }
  s += "      // The tile's total is the last non-empty thread's.\n";
  s += "      long long ck_valid = (ck_end - ck_base + CK_ITEMS - 1) / CK_ITEMS;\n";
  s += "      if (ck_valid > CK_THREADS) ck_valid = CK_THREADS;\n";
  s += "      const ck_value_t ck_tile_total = ck_totals[ck_valid - 1];\n";
  s += "      ck_carry = ck_has_carry ? ck_scan_op(ck_carry, ck_tile_total) : ck_tile_total;\n";
  s += "      ck_has_carry = true;\n";
  s += "      __syncthreads();  // ck_totals is reused by the next tile\n";
  s += "    }\n";
  return s;
}

std::string scan_head(const ScanSpec& spec) {
  std::string s;
  if (!spec.preamble.empty()) s += spec.preamble + "\n";
  s += "typedef " + spec.value_type + " ck_value_t;\n";
  s += "typedef " + spec.out_type + " ck_out_t;\n";
  s += "#define CK_THREADS " + std::to_string(scan_threads) + "\n";
  s += "#define CK_ITEMS " + std::to_string(scan_items) + "\n";
  s += "#define CK_TILE (CK_THREADS * CK_ITEMS)\n";
  if (spec.neutral) s += "#define CK_NEUTRAL (" + *spec.neutral + ")\n";
  s += "\n" + coherent_load_source("ck_load_cg", "ck_value_t");
  s += "\n__device__ __forceinline__ ck_value_t ck_scan_op(ck_value_t a, ck_value_t b) {\n";
  s += "  return (" + spec.scan_expr + ");\n}\n\n";

  return s;
}

}  // namespace

std::string scan_source(const ScanSpec& spec) {
  std::string s = scan_head(spec);
  // Phase 1: chunk totals; the last block turns them into inclusive prefixes.
  s += "// Phase 1: each block's chunk total; the last block to finish turns the\n"
       "// totals into running (inclusive) prefixes, in block order.\n";
  s += "extern \"C\" __global__ void " + spec.name + "_partials(" + param_prefix(spec) +
       "ck_value_t* ck_partials, unsigned int* ck_counter, long long n, long long chunk,\n"
       "    long long ck_offset) {\n";
  s += "  __shared__ ck_value_t ck_totals[CK_THREADS];\n";
  s += "  __shared__ int ck_is_last;\n";
  s += "  const long long ck_local = (long long)blockIdx.x * chunk;\n";
  s += "  const long long ck_begin = ck_offset + ck_local;\n";
  s += "  const long long ck_end = ck_offset + ((ck_local + chunk < n) ? ck_local + chunk : n);\n";
  s += "  ck_value_t ck_carry = ck_value_t();\n";
  s += "  bool ck_has_carry = false;\n";
  s += "  for (long long ck_base = ck_begin; ck_base < ck_end; ck_base += CK_TILE)\n";
  s += tile_code(spec, false);
  s += "  if (threadIdx.x == 0) {\n";
  s += "    ck_partials[blockIdx.x] = ck_carry;\n";
  s += "    __threadfence();\n";
  s += "    ck_is_last = atomicAdd(ck_counter, 1u) == gridDim.x - 1;\n";
  s += "  }\n";
  s += "  __syncthreads();\n";
  s += "  if (ck_is_last && threadIdx.x == 0) {\n";
  s += "    __threadfence();\n";
  s += "    ck_value_t ck_running = ck_load_cg(ck_partials);\n";
  s += "    for (unsigned int ck_b = 1; ck_b < gridDim.x; ++ck_b) {\n";
  s += "      ck_running = ck_scan_op(ck_running, ck_load_cg(ck_partials + ck_b));\n";
  s += "      ck_partials[ck_b] = ck_running;\n";
  s += "    }\n";
  s += "    *ck_counter = 0u;  // ready for the next launch on this stream\n";
  s += "  }\n";
  s += "}\n\n";

  // Phase 2: rescan with the carry-in and write.
  s += "// Phase 2: every block rescans its chunk starting from the prefix of the\n"
       "// chunks before it, and writes.\n";
  s += "extern \"C\" __global__ void " + spec.name + "_write(" + param_prefix(spec) +
       spec.out_param +
       ", const ck_value_t* ck_partials, long long n, long long chunk,\n"
       "    long long ck_offset" +
       (spec.strided_out ? std::string(", long long ck_out_step") : std::string()) + ") {\n";
  s += "  __shared__ ck_value_t ck_totals[CK_THREADS];\n";
  s += "  const long long ck_local = (long long)blockIdx.x * chunk;\n";
  s += "  const long long ck_begin = ck_offset + ck_local;\n";
  s += "  const long long ck_end = ck_offset + ((ck_local + chunk < n) ? ck_local + chunk : n);\n";
  s += "  bool ck_has_carry = blockIdx.x > 0;\n";
  s += "  ck_value_t ck_carry = ck_has_carry ? ck_partials[blockIdx.x - 1] : ck_value_t();\n";
  if (spec.strided_out) {
    s += "  ck_out_t* const ck_dst = ck_out;  // the line's first element\n";
    s += "  const long long ck_line_start = ck_offset;\n";
  }
  s += "  for (long long ck_base = ck_begin; ck_base < ck_end; ck_base += CK_TILE)\n";
  s += tile_code(spec, true);
  s += "}\n\n";

  // Lines.
  s += "// Independent lines of consecutive i (a scan along one axis): a block per line.\n";
  s += "extern \"C\" __global__ void " + spec.name + "_lines(" + param_prefix(spec) +
       spec.out_param + ", long long n_lines, long long line_length" +
       (spec.strided_out ? std::string(", long long ck_inner") : std::string()) + ") {\n";
  s += "  __shared__ ck_value_t ck_totals[CK_THREADS];\n";
  s += "  for (long long ck_line = blockIdx.x; ck_line < n_lines; ck_line += gridDim.x) {\n";
  s += "    const long long ck_begin = ck_line * line_length;\n";
  s += "    const long long ck_end = ck_begin + line_length;\n";
  if (spec.strided_out) {
    s += "    // The line's place in the output: its other axes' offset, then a step\n"
         "    // of ck_inner elements along the scanned axis.\n";
    s += "    ck_out_t* const ck_dst =\n"
         "        ck_out + (ck_line / ck_inner) * line_length * ck_inner + ck_line % ck_inner;\n";
    s += "    const long long ck_line_start = ck_begin;\n";
    s += "    const long long ck_out_step = ck_inner;\n";
  }
  s += "    ck_value_t ck_carry = ck_value_t();\n";
  s += "    bool ck_has_carry = false;\n";
  s += "    for (long long ck_base = ck_begin; ck_base < ck_end; ck_base += CK_TILE)\n";
  s += tile_code(spec, true);
  s += "  }\n";
  s += "}\n";
  return s;
}

std::string column_scan_source(const ScanSpec& spec) {
  std::string s = scan_head(spec);
  s += "// A thread per column, walking it serially: neighbouring threads touch\n"
       "// neighbouring elements when the scanned axis is not the innermost.\n";
  s += "extern \"C\" __global__ void " + spec.name + "_columns(" + param_prefix(spec) +
       "ck_out_t* ck_out, long long n_columns, long long line_length,\n"
       "    long long ck_inner) {\n";
  s += "  const long long ck_threads = (long long)gridDim.x * blockDim.x;\n";
  s += "  for (long long ck_col = (long long)blockIdx.x * blockDim.x + threadIdx.x; ck_col < "
       "n_columns;\n"
       "       ck_col += ck_threads) {\n";
  s += "    const long long ck_base = (ck_col / ck_inner) * line_length * ck_inner + ck_col % "
       "ck_inner;\n";
  s += "    ck_value_t ck_carry = ck_value_t();\n";
  s += "    for (long long ck_k0 = 0; ck_k0 < line_length; ck_k0 += CK_ITEMS) {\n";
  s += "      // CK_ITEMS loads in flight before the combines that depend on each other.\n";
  s += "      ck_value_t ck_v[CK_ITEMS];\n";
  s += "      // Fully unrolled with constant indices, so ck_v stays in registers.\n";
  s += "      #pragma unroll\n";
  s += "      for (int ck_j = 0; ck_j < CK_ITEMS; ++ck_j) {\n";
  s += "        if (ck_k0 + ck_j < line_length) {\n";
  s += "          const long long i = ck_base + (ck_k0 + ck_j) * ck_inner;\n";
  s += "          ck_v[ck_j] = (ck_value_t)(" + spec.map_expr + ");\n";
  s += "        }\n";
  s += "      }\n";
  s += "      #pragma unroll\n";
  s += "      for (int ck_j = 0; ck_j < CK_ITEMS; ++ck_j) {\n";
  s += "        if (ck_k0 + ck_j >= line_length) break;\n";
  s += "        const long long i = ck_base + (ck_k0 + ck_j) * ck_inner;\n";
  s += "        const bool ck_first_item = ck_k0 + ck_j == 0;\n";
  s += "        const ck_value_t ck_r = ck_first_item ? ck_v[ck_j] : ck_scan_op(ck_carry, "
       "ck_v[ck_j]);\n";
  s += "        ck_carry = ck_r;\n";
  s += "        ck_out[i] = " + spec.store_expr + ";\n";
  s += "      }\n";
  s += "    }\n";
  s += "  }\n";
  s += "}\n";
  return s;
}

}  // namespace cudakit::detail
