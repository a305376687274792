// Checks on operand values that NumPy makes and dtypes cannot express, run
// when an expression node is built: only values known on the host (scalars)
// are checked, since reading an array's values would stall its stream.
#pragma once

#include "cudakit/detail/expr_node.hpp"

namespace cudakit::detail {

// ArgumentError "Integers to negative integer powers are not allowed." (NumPy's
// ValueError) for an integer power whose exponent is a negative scalar. An
// array exponent is not read: there a negative exponent gives 0, or +-1 for
// a base of +-1 (CuPy's result).
void check_operand_values(const ExprNode& node);

}  // namespace cudakit::detail
