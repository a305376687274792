// The reductions a Communicator's collectives apply across ranks (NCCL's
// ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg). avg is the sum divided by
// the number of ranks, for floating-point dtypes only.
#pragma once

#include <string_view>

namespace cudakit {

enum class ReduceOp { sum, prod, max, min, avg };

// "sum", "prod", "max", "min", "avg".
std::string_view to_string(ReduceOp op) noexcept;

}  // namespace cudakit
