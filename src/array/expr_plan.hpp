// The analysed form of an expression, between the tree and the generated
// source: deduplicated array operands with their broadcast, coalesced
// strides and access class; scalar parameters; the index type. The cache key
// is a function of the plan alone, and so is the source.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/detail/expr_node.hpp"

namespace cudakit::detail {

enum class Access : std::uint8_t {
  contiguous,  // element i is at offset i (in the plan's coalesced shape)
  uniform,     // every element reads offset 0 (a broadcast single value)
  strided,     // offset from the multi-index and the operand's strides
};

struct PlanOperand {
  Array array;
  Strides strides;  // in the coalesced shape, elements; 0 on broadcast axes
  Access access = Access::strided;
  int strided_row = -1;  // row in the layout struct when strided
};

struct Plan {
  Shape shape;  // coalesced iteration shape
  std::int64_t size = 0;
  std::vector<PlanOperand> inputs;          // array leaves, deduplicated
  std::map<const ExprNode*, int> input_of;  // array leaf -> input index
  std::vector<const ExprNode*> scalars;     // scalar leaves, in parameter order
  std::map<const ExprNode*, int> scalar_of;
  std::optional<PlanOperand> out;  // the destination (elementwise kernels)
  int strided_rows = 0;
  bool index64 = false;
  int vector_width = 1;  // elements per vector load/store, 1 = none
  std::string key;
};

// Builds the plan for evaluating `root` over `shape` (logical axis order
// `axis_order`, empty for C order), writing to `out` when given.
Plan make_plan(const ExprNode& root, const Shape& shape, const Array* out,
               const std::vector<int>& axis_order, bool allow_vector);

// The statements that compute the element (variables named with `prefix`),
// ending in a value of the root's compute type held in the returned name.
struct ElementCode {
  std::string statements;  // indented by `indent`
  std::string value;
};
// `loads[k]` is how array input k is read here: "m_in0[i]", "m_v0.v[k]", ...
ElementCode render_element(const Plan& plan, const ExprNode& root, const std::string& prefix,
                           const std::string& indent, const std::vector<std::string>& loads);

// Parameter declarations (comma separated) for the plan's inputs and
// scalars, and the layout struct parameter when any operand is strided.
std::string render_params(const Plan& plan, const std::string& prefix);
// The layout struct definition ("" when nothing is strided).
std::string render_layout_struct(const Plan& plan, const std::string& prefix);
// Statements computing the offsets of the strided operands from flat index `index`.
std::string render_offsets(const Plan& plan, const std::string& prefix, const std::string& index,
                           const std::string& indent);
// The argument values matching render_params.
void pack_params(const Plan& plan, ArgPack& args);

// C type of the compute value of a dtype.
std::string compute_c_type(DType dtype);
// Converts a stored element expression to its compute type, and back.
std::string load_convert(DType dtype, const std::string& text);
std::string store_convert(DType dtype, const std::string& text);

}  // namespace cudakit::detail
