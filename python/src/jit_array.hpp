// The C++ object behind cudakit.cuda's DeviceNDArray (its `_array`): a
// cudakit::Array, so device arrays share the pool and streams with the C++
// layer and cudakit.gpuarray.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/error.hpp"

namespace cudakit::python {

class JitArray {
 public:
  explicit JitArray(Array array) : array_(std::move(array)) {}

  static JitArray empty(const std::vector<std::int64_t>& shape, const std::string& dtype,
                        bool fortran) {
    return JitArray(cudakit::empty(Shape(shape.begin(), shape.end()), parse(dtype),
                                   fortran ? Order::F : Order::C));
  }
  // From host memory laid out in C order (the Python side makes it so).
  static JitArray from_host(std::uintptr_t address, const std::vector<std::int64_t>& shape,
                            const std::string& dtype) {
    if (shape.empty()) {
      // A 0-d array: cudakit::from_host would make it 1-d; keep it 0-d.
      JitArray scalar = empty(shape, dtype, false);
      scalar.copy_from_host(address, scalar.array_.nbytes());
      return scalar;
    }
    return JitArray(cudakit::from_host(reinterpret_cast<const void*>(address),
                                       Shape(shape.begin(), shape.end()), parse(dtype)));
  }
  void copy_to_host(std::uintptr_t address, std::size_t bytes) const {
    array_.copy_to_host(reinterpret_cast<void*>(address), bytes);
  }
  void copy_from_host(std::uintptr_t address, std::size_t bytes) {
    array_.copy_from_host(reinterpret_cast<const void*>(address), bytes);
  }
  std::uint64_t address() const { return array_.address(); }
  std::vector<std::int64_t> shape() const { return {array_.shape().begin(), array_.shape().end()}; }
  std::vector<std::int64_t> strides() const {
    return {array_.strides().begin(), array_.strides().end()};
  }
  std::string dtype() const { return std::string(to_string(array_.dtype())); }
  JitArray copy() const { return JitArray(array_.copy()); }
  JitArray reshape(const std::vector<std::int64_t>& shape, bool fortran) const {
    return JitArray(
        array_.reshape(Shape(shape.begin(), shape.end()), fortran ? Order::F : Order::C));
  }
  JitArray transpose() const { return JitArray(array_.transpose()); }
  JitArray slice(int axis, std::int64_t start, std::int64_t stop, std::int64_t step) const {
    return JitArray(array_.slice(axis, start, stop, step));
  }
  JitArray take(int axis, std::int64_t index) const {
    // One index on `axis`: a view with that axis removed.
    std::vector<Index> indices(static_cast<std::size_t>(axis), Index{Slice{}});
    indices.push_back(Index{index});
    return JitArray(array_.index(indices));
  }
  bool c_contiguous() const { return array_.is_c_contiguous(); }
  bool f_contiguous() const { return array_.is_f_contiguous(); }
  void fill_zero() { array_.fill(Scalar(0)); }
  // Writes `source` (same shape) through this array's strides.
  void assign(const JitArray& source) { array_.assign(source.array_); }
  const Array& array() const { return array_; }

 private:
  static DType parse(const std::string& name) {
    auto d = parse_dtype(name);
    if (!d) throw ArgumentError("device array", "unsupported dtype '" + name + "'");
    return *d;
  }
  Array array_;
};

}  // namespace cudakit::python
