// The nodes of a lazy array expression. Expr is a handle on one of these;
// the code generator (expr_codegen.hpp) walks them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_scalar.hpp"
#include "cudakit/dtype.hpp"

namespace cudakit::detail {

enum class NodeKind : std::uint8_t {
  array,   // a leaf reading an Array
  scalar,  // a leaf holding a number (a kernel parameter, not a literal)
  op,      // an operation on children (unary, binary, where, cast)
};

struct ExprNode {
  NodeKind kind = NodeKind::op;
  // The operation's name as it appears in the cache key and the generated
  // source: "add", "exp", "where", "cast", ...
  std::string op;
  DType dtype = DType::float32;    // result dtype
  DType operand = DType::float32;  // op: the dtype its inputs are converted to
  bool weak = false;               // a scalar-only tree (NEP 50 weak)
  Shape shape;                     // broadcast result shape
  std::vector<std::shared_ptr<const ExprNode>> children;
  Array array;    // kind == array
  Scalar scalar;  // kind == scalar
};

}  // namespace cudakit::detail
