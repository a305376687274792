// Generated CUDA C for scans (prefix sums and their generalisation to any
// associative operation). A multi-block scan takes two launches: per-block
// totals, the last block turning them into running prefixes (atomic ticket,
// as in the reductions), then every block re-reading its chunk and writing
// it with its prefix. Blocks never wait on one another, so the CPU backend
// (which may run blocks one at a time) cannot deadlock.
#pragma once

#include <optional>
#include <string>

namespace cudakit::detail {

inline constexpr unsigned scan_threads = 256;
inline constexpr unsigned scan_items = 8;  // consecutive elements per thread and tile
inline constexpr unsigned scan_tile = scan_threads * scan_items;

struct ScanSpec {
  std::string name;                    // prefix of the kernel names
  std::string value_type;              // C type the scan runs in
  std::string out_type;                // C type written
  std::string scan_expr;               // combines `a` (earlier) and `b` (later)
  std::string map_expr;                // value of input element `i` (long long)
  std::optional<std::string> neutral;  // required for exclusive scans
  bool exclusive = false;
  std::string store_expr = "(ck_out_t)ck_r";  // the value ck_r as written to the output
  std::string params;                         // extra parameters for the map (may be empty)
  std::string preamble;
  // The output of a line is not consecutive (a scan along an axis that is not
  // the innermost, written in the operand's C order): the kernels take where
  // each line starts and its step (see scan_source).
  bool strided_out = false;
  // How NAME_write and NAME_lines declare ck_out: the output pointer, or a
  // view struct with operator[] (an output of any layout, defined in the
  // preamble; see kernel_view.hpp).
  std::string out_param = "ck_out_t* ck_out";
};

// Defines, given the spec:
//   NAME_partials(<params>, VALUE* ck_partials, unsigned int* ck_counter, long long n, long long
//   chunk,
//                 long long ck_offset)
//   NAME_write(<params>, OUT* ck_out, const VALUE* ck_partials, long long n, long long chunk,
//              long long ck_offset)
//   NAME_lines(<params>, OUT* ck_out, long long n_lines, long long line_length)
// They scan i in [ck_offset, ck_offset + n) (and write ck_out at the same i);
// block chunk b covers ck_offset + [b * chunk, min(n, (b + 1) * chunk)); chunk is a
// multiple of scan_tile. NAME_lines scans lines of consecutive i
// independently, one block per line (grid-stride over lines).
//
// With strided_out, element k of a line goes to ck_dst[k * step] instead:
//   NAME_write(..., long long ck_offset, long long ck_out_step): ck_out is the
//     line's first output element (ck_dst), ck_offset the line's first i;
//   NAME_lines(..., long long line_length, long long ck_inner): line l starts
//     at ck_out + (l / ck_inner) * line_length * ck_inner + l % ck_inner and
//     steps by ck_inner (lines in C order of the other axes, the scanned axis
//     followed by ck_inner elements in the output).
std::string scan_source(const ScanSpec& spec);

// A scan along an axis with a thread per column (every position of the other
// axes), each walking its column serially, in the operand's own C order, so
// neighbouring threads read and write neighbouring elements when the axis is
// not the innermost:
//   NAME_columns(<params>, OUT* ck_out, long long n_columns, long long line_length,
//                long long ck_inner)
// column c covers i = (c / ck_inner) * line_length * ck_inner + c % ck_inner + k * ck_inner
// for k in [0, line_length), and writes ck_out at the same i. Inclusive scans
// (what cumsum / cumprod need); spec.exclusive and spec.strided_out are not used.
std::string column_scan_source(const ScanSpec& spec);

}  // namespace cudakit::detail
