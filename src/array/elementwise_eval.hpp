// The pieces of evaluating an expression into an array that the general path
// (elementwise.cpp) and the cached fast path (elementwise_fast.cpp) share.
#pragma once

#include <cstdint>
#include <optional>

#include "array/expr_plan.hpp"
#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/launch_config.hpp"

namespace cudakit::detail {

// The plan and the compiled kernel that write `expr` (already of out's dtype
// and broadcastable to its shape) into `out`; no kernel when the plan is empty.
struct ElementwiseLaunch {
  Plan plan;
  std::optional<Kernel> kernel;
  // The launch's name in profiles and NVTX ranges: the expression with its
  // arrays numbered, "add(multiply(in0, in1), 2)".
  std::string label;
};
ElementwiseLaunch elementwise_launch_for(const Expr& expr, const Array& out);

// Launches `l` (a non-empty plan) writing into `out` through the checked
// launch path; returns the launch shape it used.
LaunchConfig launch_elementwise(const ElementwiseLaunch& l, const Array& out);

// The launch shape of an elementwise kernel doing `work` items (vectors or
// elements): a grid covering the work on a GPU, one wave on the CPU backend.
LaunchConfig elementwise_config(const Device& device, std::int64_t work, StreamRef stream);

// The checks of evaluating `expr` into `out` (valid, writable, same device,
// broadcastable, castable under `casting`): ArgumentError naming `context`.
void check_eval(const Expr& expr, const Array& out, Casting casting, const char* context);

// Evaluates `expr` into `out` when it is of the common shape (C-contiguous
// operands of out's shape, scalars) and returns true; false leaves the work
// to the general path. A hit costs a tree walk, a key of a few dozen bytes
// and a hash lookup instead of a plan and its strings.
bool eval_fast(const Expr& expr, Array& out, Casting casting, const char* context);
// Calls that eval_fast served from its cache since the process started (for tests).
std::uint64_t elementwise_fast_hits() noexcept;

// Counts one array kernel launch (array_kernel_launches()) made without ArgPack.
void note_array_launch() noexcept;

}  // namespace cudakit::detail
