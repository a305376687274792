// Integer-array indexing: take (gather) and put (scatter), as NumPy's
// np.take / np.put with mode='raise' (an out-of-range index is an
// ArgumentError before anything is written).
#pragma once

#include <optional>

#include "cudakit/array.hpp"

namespace cudakit {

// Elements of `a` at `indices` along `axis` (over the flattened array when
// axis is nullopt). Negative indices count from the end.
Array take(const Array& a, const Array& indices, std::optional<int> axis = std::nullopt);
// a.flat[indices[k]] = values[k % values.size()]; `a` must be contiguous.
void put(Array& a, const Array& indices, const Array& values);

}  // namespace cudakit
