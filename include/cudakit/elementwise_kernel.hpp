// PyCUDA's ElementwiseKernel: a loop body over `i` written as a string,
// compiled once and run over arrays (a thread per index where the device
// allows, a grid-stride loop beyond):
//   ElementwiseKernel k("float a, float *x, float *y, float *z", "z[i] = a * x[i] + y[i]", "axpy");
//   k({2.5, x, y, z});
// Array arguments are checked against the declared pointer types and may
// have any layout (x[i] is element i in C order, as in CuPy); numbers are
// converted to the declared scalar types (a double never reaches a `float`
// parameter as 8 bytes).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/compile_options.hpp"
#include "cudakit/struct_value.hpp"

namespace cudakit {

class ElementwiseKernel {
 public:
  // `arguments`: a C parameter list ("float a, const double *x, int m");
  // `operation`: statements using `i` (the element index), `n` (the first
  // array's size, unless an argument is named n) and the arguments;
  // `preamble`: code placed before the kernel (helpers, #defines);
  // `loop_prep` / `after_loop`: statements each thread runs once before / after
  // its loop over the indices (PyCUDA's): variables loop_prep declares are
  // visible in the operation and in after_loop; both may use `tid`
  // (threadIdx.x), `total_threads` and `cta_start` (blockIdx.x * blockDim.x),
  // unless an argument has that name.
  ElementwiseKernel(std::string arguments, std::string operation,
                    std::string name = "elementwise_kernel", std::string preamble = {},
                    CompileOptions options = {}, std::string loop_prep = {},
                    std::string after_loop = {});

  // An array (pointer parameter), a number, or a struct by value (a
  // parameter of a struct type such as float3).
  using Arg = std::variant<Array, Scalar, StructValue>;
  // Which indices run: i = start, start + step, ... while before stop (step
  // may be negative). PyCUDA's `range=`.
  struct Range {
    std::int64_t start = 0;
    std::int64_t stop = 0;
    std::int64_t step = 1;
  };

  // Runs over every element of the first array argument on its stream.
  void operator()(std::initializer_list<Arg> args) const {
    run(std::vector<Arg>(args), std::nullopt);
  }
  void operator()(const std::vector<Arg>& args) const { run(args, std::nullopt); }
  // PyCUDA's range= (explicit indices) ...
  void operator()(const std::vector<Arg>& args, const Range& range) const { run(args, range); }
  // ... and slice= (Python slice rules against the first array's size).
  void operator()(const std::vector<Arg>& args, const Slice& slice) const;
  // On `stream` instead of the first array's.
  void run(const std::vector<Arg>& args, std::optional<Range> range,
           const Stream* stream = nullptr) const;

  const std::string& name() const noexcept;
  // The generated source for 32- or 64-bit indices.
  std::string source(bool index64 = false) const;

  struct Param {
    std::string name;
    std::string type;  // as declared, e.g. "const float *"
    bool pointer = false;
    std::optional<DType> dtype;  // element / value type when it is one cudakit knows
    // A value parameter of a type that is no number (float3, a struct): it
    // takes a StructValue.
    bool by_value_struct = false;
  };
  const std::vector<Param>& params() const noexcept;

 private:
  struct State;
  std::shared_ptr<const State> state_;
};

}  // namespace cudakit
