// Reduction kernels from C expressions, with PyCUDA's semantics:
//   ReductionKernel dot(DType::float32, "0", "a + b", "x[i] * y[i]",
//                       "const float* x, const float* y");
//   Array result = dot(x, y);   // 0-d array
// map_expr is the value of element i (it may use the arguments by name);
// reduce_expr combines two partial results `a` and `b` and must be
// associative; neutral is its identity. The element count is the size of the
// first Array argument. One launch, deterministic for the same input.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_scalar.hpp"
#include "cudakit/struct_value.hpp"

namespace cudakit {

// One argument of a generated kernel: an Array for a pointer parameter, a
// number for a number parameter, a StructValue for a struct by value.
using KernelValue = std::variant<Array, Scalar, StructValue>;

class ReductionKernel {
 public:
  // `arguments` is a C parameter list ("const float* x, float a, int n").
  // ArgumentError when it cannot be parsed, when an expression is empty or
  // when name is not a C identifier.
  ReductionKernel(DType dtype_out, std::string neutral, std::string reduce_expr,
                  std::string map_expr, std::string arguments, std::string name = "reduce_kernel",
                  std::string preamble = {});

  // Runs over the arguments in the order of the parameter list. Arrays must
  // have the pointee's dtype and may have any layout (transposed, stepped,
  // reversed, broadcast): x[i] is element i of x in C order. Numbers are
  // converted to the parameter's type. ArgumentError on a count, kind or
  // dtype mismatch.
  Array operator()(const std::vector<KernelValue>& args) const;
  template <class... Args>
  Array operator()(const Args&... args) const {
    return (*this)(std::vector<KernelValue>{to_value(args)...});
  }

  // The generated source (for error reports and --show-source).
  std::string source() const;
  DType dtype_out() const noexcept { return dtype_out_; }

  struct Param {
    std::string type;  // as written, without the name
    std::string name;
    bool pointer = false;
  };
  const std::vector<Param>& params() const noexcept { return params_; }

 private:
  static KernelValue to_value(const Array& a) { return a; }
  static KernelValue to_value(const Scalar& s) { return s; }
  static KernelValue to_value(const StructValue& s) { return s; }
  template <class T>
  requires(std::is_arithmetic_v<T>) static KernelValue to_value(T v) { return Scalar(v); }

  DType dtype_out_;
  std::string neutral_, reduce_expr_, map_expr_, arguments_, name_, preamble_;
  std::vector<Param> params_;
};

}  // namespace cudakit
