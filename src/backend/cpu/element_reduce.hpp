// The arithmetic of the CPU backend's reducing collectives: combining one
// rank's elements into an accumulator, in the element type (16-bit floats
// through float, rounded back at each step, as a GPU adds them).
#pragma once

#include <cstddef>

#include "cudakit/param_layout.hpp"
#include "cudakit/reduce_op.hpp"

namespace cudakit::detail::cpu {

// acc[i] = acc[i] op in[i] for `count` elements of `type` (avg adds).
void combine_elements(void* acc, const void* in, std::size_t count, ScalarType type, ReduceOp op);
// acc[i] /= divisor (the last step of avg; floating types only).
void divide_elements(void* acc, std::size_t count, ScalarType type, int divisor);

}  // namespace cudakit::detail::cpu
