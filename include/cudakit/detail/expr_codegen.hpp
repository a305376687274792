// The fusion code generator's interface for other array kernels: turn an
// expression into the CUDA C that computes its element at a flat index, plus
// the parameters it needs, so a reduction or scan can fuse the map into its
// own kernel (`sum((a - b) ** 2)` is one launch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudakit/array_expr.hpp"
#include "cudakit/kernel.hpp"

namespace cudakit::detail {

// Kernel arguments built at run time (the count is not known at compile
// time): pointers, scalars and by-value structs, launched through the
// checked launch path (a KernelArgs, counted as an array kernel launch).
class ArgPack {
 public:
  void push_pointer(std::uint64_t address);
  template <class T>
  void push_scalar(T value) {
    args_.scalar(value);
  }
  // A struct passed by value (its bytes as the kernel's struct lays them out).
  void push_aggregate(const void* bytes, std::size_t size);
  void push_raw(ParamKind kind, ScalarType scalar, const void* bytes, std::size_t size,
                const char* type_name);
  void append(const ArgPack& other);
  std::size_t size() const noexcept { return args_.size(); }
  // Launches `kernel` with these arguments (counted by array_kernel_launches()).
  void launch(const Kernel& kernel, const LaunchConfig& config) const;

 private:
  // The launch takes a KernelArgs& and leaves it unchanged.
  mutable KernelArgs args_;
};

struct CodegenOptions {
  // The name of the flat-index variable the element expression reads.
  std::string index_name = "i";
  // Prefix for the generated parameter and helper names (keep distinct when
  // fusing two maps into one kernel).
  std::string prefix = "m";
  // The logical axis order the flat index runs over: empty for C order of the
  // expression's shape; e.g. {1, 0} makes i run over the transpose, so a
  // reduction over axis 0 can read consecutive i for one output element.
  std::vector<int> axis_order;
  // Use 64-bit index arithmetic (needed when any extent product >= 2^31).
  bool index64 = false;
};

// What codegen_map returns.
struct FusedMap {
  // Type definitions and __device__ helpers: emit once, before the kernel.
  std::string preamble;
  // Parameter declarations, comma separated, no leading comma: "const float* m_in0, float m_s0,
  // ..."
  std::string params;
  // A CUDA C expression of the element at flat index `index_name`, of type
  // c_type_name(compute_dtype(dtype)) (float for float16/bfloat16).
  std::string element;
  DType dtype = DType::float32;
  Shape shape;  // in the axis order asked for
  std::int64_t size = 0;
  // Canonical key: ops, dtypes, broadcast/contiguity pattern, ndim, options.
  std::string key;
  ArgPack args;  // the values for `params`, in order
};

FusedMap codegen_map(const Expr& expr, const CodegenOptions& options = {});

// The helper definitions every generated kernel starts with: cudakit_half,
// cudakit_bfloat16, cudakit_complex64/128 and their conversions.
const std::string& codegen_prelude();

// An in-process cache of generated kernels, key -> Kernel per device;
// `make_source` runs only on a miss (and goes through cudakit::compile and
// its disk cache).
Kernel cached_kernel(const Device& device, const std::string& key, const std::string& kernel_name,
                     const std::function<std::string()>& make_source);

// The public counter (cudakit/array_expr.hpp), also under its former name.
using cudakit::array_kernel_launches;

// The generated source for evaluating `expr` into `out` (for tests and
// `--show-source`), and the key that names it.
std::string elementwise_source(const Expr& expr, const Array& out);
std::string elementwise_key(const Expr& expr, const Array& out);

}  // namespace cudakit::detail
