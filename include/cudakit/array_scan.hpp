// Prefix scans of arrays and expressions: cumsum and cumprod, over the
// flattened array or along one axis, with the map fused into the scan.
// Results follow NumPy: integer and bool inputs give int64 (uint64 for
// unsigned). Any length works; large arrays are scanned by many blocks in
// two launches (block totals, then the rescan with each block's prefix).
#pragma once

#include <optional>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"

namespace cudakit {

// axis nullopt: the flattened operand (C order), a 1-D result. Otherwise a
// C-contiguous array of the operand's shape, scanned along `axis` (negative
// counts from the end); ArgumentError when it is out of range. The operand
// may have any layout.
Array cumsum(const Expr& a, std::optional<int> axis = std::nullopt);
Array cumprod(const Expr& a, std::optional<int> axis = std::nullopt);

}  // namespace cudakit
