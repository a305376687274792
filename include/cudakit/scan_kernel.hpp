// Scan kernels from a user's associative operation, with PyCUDA's semantics:
// InclusiveScanKernel(dtype, "a + b") computes out[i] = in[0] op ... op in[i];
// ExclusiveScanKernel(dtype, "a + b", "0") computes out[i] = neutral op in[0]
// op ... op in[i - 1]. `a` is the earlier value, `b` the later one; the
// operation must be associative (it need not be commutative).
#pragma once

#include <optional>
#include <string>

#include "cudakit/array.hpp"

namespace cudakit {

class ScanKernel {
 public:
  // Scans `input` (any shape and strides, taken in C order) into a new
  // C-contiguous array of the same shape and the kernel's dtype.
  Array operator()(const Array& input) const;
  // Scans into `output` (same size, any layout, filled in its C order; may
  // be `input` itself for an in-place scan). Written directly, except when it
  // overlaps `input` in another layout (then through a temporary).
  void operator()(const Array& input, Array& output) const;

  DType dtype() const noexcept { return dtype_; }
  const std::string& name() const noexcept { return name_; }

 protected:
  ScanKernel(DType dtype, std::string scan_expr, std::optional<std::string> neutral,
             std::string name, std::string preamble, bool exclusive);

 private:
  DType dtype_;
  std::string scan_expr_;
  std::optional<std::string> neutral_;
  std::string name_;
  std::string preamble_;
  bool exclusive_;
};

class InclusiveScanKernel : public ScanKernel {
 public:
  // ArgumentError for an empty scan_expr or a name that is not a C identifier.
  InclusiveScanKernel(DType dtype, std::string scan_expr,
                      std::optional<std::string> neutral = std::nullopt, std::string name = "scan",
                      std::string preamble = {})
      : ScanKernel(dtype, std::move(scan_expr), std::move(neutral), std::move(name),
                   std::move(preamble), false) {}
};

class ExclusiveScanKernel : public ScanKernel {
 public:
  // The neutral element is required (it is out[0]).
  ExclusiveScanKernel(DType dtype, std::string scan_expr, std::string neutral,
                      std::string name = "scan", std::string preamble = {})
      : ScanKernel(dtype, std::move(scan_expr), std::move(neutral), std::move(name),
                   std::move(preamble), true) {}
};

}  // namespace cudakit
