// Joining arrays: concatenate along an existing axis, stack along a new one
// (NumPy's rules: shapes agree except on the axis, dtypes promote).
#pragma once

#include <vector>

#include "cudakit/array.hpp"

namespace cudakit {

Array concatenate(const std::vector<Array>& arrays, int axis = 0);
Array stack(const std::vector<Array>& arrays, int axis = 0);

}  // namespace cudakit
