// Array: an n-dimensional, NumPy-like view of device memory (dtype, shape,
// strides, offset) sharing an owning buffer from the memory pool, bound to
// the stream its work is ordered on. Copies of an Array are views of the same
// memory (like NumPy references); copy() makes new memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cudakit/array_scalar.hpp"
#include "cudakit/device.hpp"
#include "cudakit/dtype.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/pinned_buffer.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

class Expr;

// Extents, and strides counted in ELEMENTS (strides_bytes() gives bytes).
using Shape = std::vector<std::int64_t>;
using Strides = std::vector<std::int64_t>;

enum class Order : std::uint8_t { C, F };

// One entry of an index expression: a[2, 1:10:3, newaxis, ...].
struct Slice {
  std::optional<std::int64_t> start;
  std::optional<std::int64_t> stop;
  std::int64_t step = 1;
  Slice() = default;
  Slice(std::optional<std::int64_t> start_, std::optional<std::int64_t> stop_,
        std::int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};
struct NewAxis {};
struct Ellipsis {};
inline constexpr NewAxis newaxis{};
inline constexpr Ellipsis ellipsis{};
using Index = std::variant<std::int64_t, Slice, NewAxis, Ellipsis>;

namespace detail {
// The memory an Array views: owned (from the pool, given back when the last
// view goes) or borrowed (from_pointer; `owner` keeps the real owner alive).
struct ArrayStorage {
  Device device;
  std::uint64_t address = 0;
  std::size_t bytes = 0;
  bool pooled = false;           // deallocate to MemoryPool::of(device)
  void* alloc_stream = nullptr;  // the stream it was allocated for
  // Keeps that stream alive until the block is back in the pool: the pool
  // lists the block under it, and must hear of its end (forget_stream) after.
  std::optional<Stream> alloc_stream_keeper;
  std::shared_ptr<void> owner;  // borrowed memory: whoever owns it
  ArrayStorage(Device d, std::uint64_t a, std::size_t b) : device(d), address(a), bytes(b) {}
  ArrayStorage(const ArrayStorage&) = delete;
  ArrayStorage& operator=(const ArrayStorage&) = delete;
  ~ArrayStorage();
};
}  // namespace detail

class Array {
 public:
  // A null array (valid() is false); every operation on it is an ArgumentError.
  Array() = default;
  // Evaluates an expression into new memory (one fused kernel).
  Array(const Expr& expr);  // NOLINT: implicit on purpose, `Array c = a * b + 1;`

  // ---- what it is -------------------------------------------------------------
  bool valid() const noexcept { return static_cast<bool>(storage_); }
  DType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  // Extent of `axis` (negative counts from the end); ArgumentError when out of range.
  std::int64_t shape(int axis) const;
  // In elements.
  const Strides& strides() const noexcept { return strides_; }
  // In bytes, as __cuda_array_interface__ and DLPack (in elements) want them.
  std::vector<std::int64_t> strides_bytes() const;
  // Element offset of element [0, ..., 0] from the start of the storage.
  std::int64_t offset() const noexcept { return offset_; }
  int ndim() const noexcept { return static_cast<int>(shape_.size()); }
  std::int64_t size() const noexcept;
  std::size_t itemsize() const noexcept { return cudakit::itemsize(dtype_); }
  std::size_t nbytes() const noexcept { return static_cast<std::size_t>(size()) * itemsize(); }
  const Device& device() const;
  // The stream the array's work is ordered on (the device's default stream
  // unless one was given).
  Stream stream() const;
  // The same as a handle for launches, without making a Stream (null: the
  // device's default stream).
  StreamRef stream_ref() const noexcept { return stream_ ? StreamRef(*stream_) : StreamRef{}; }
  void set_stream(const Stream& stream);
  bool readonly() const noexcept { return readonly_; }
  void set_readonly(bool readonly) noexcept { readonly_ = readonly; }
  bool owns_data() const noexcept;

  // Device address of element [0, ..., 0] (a host address on the CPU backend).
  std::uint64_t address() const;
  void* data() const { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address())); }
  const std::shared_ptr<detail::ArrayStorage>& storage() const noexcept { return storage_; }

  bool is_c_contiguous() const noexcept;
  bool is_f_contiguous() const noexcept;
  bool is_contiguous() const noexcept { return is_c_contiguous(); }
  // Whether two arrays may touch the same bytes.
  bool may_share_memory(const Array& other) const noexcept;

  // ---- views (no copy) --------------------------------------------------------
  // NumPy basic indexing: a.index({1, Slice(0, 10, 2), newaxis, ellipsis}).
  Array index(std::span<const Index> indices) const;
  Array index(std::initializer_list<Index> indices) const {
    return index(std::span<const Index>(indices.begin(), indices.size()));
  }
  // a[i] along axis 0 (negative i counts from the end).
  Array operator[](std::int64_t i) const { return index({Index{i}}); }
  // a[start:stop:step] along `axis`.
  Array slice(int axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
              std::int64_t step = 1) const;
  // A view when the strides allow, a copy otherwise; one extent may be -1.
  Array reshape(const Shape& shape, Order order = Order::C) const;
  Array ravel(Order order = Order::C) const;
  Array flatten() const;  // always a copy
  Array transpose() const;
  Array transpose(const std::vector<int>& axes) const;
  Array T() const { return transpose(); }
  Array swapaxes(int a, int b) const;
  Array squeeze() const;
  Array squeeze(int axis) const;
  Array expand_dims(int axis) const;
  Array broadcast_to(const Shape& shape) const;
  // The same bytes seen as another dtype of the same itemsize.
  Array view(DType dtype) const;

  // ---- copies and conversion --------------------------------------------------
  Array copy(Order order = Order::C) const;
  Array astype(DType dtype) const;  // always a new array
  void fill(const Scalar& value);
  // Writes `value` (broadcast to this shape, converted to this dtype) into this
  // array's memory: `a.assign(b * 2)`, `a.index({Slice(0, 5)}).assign(0)`.
  void assign(const Expr& value);
  // Evaluates in place as one kernel; aliasing is handled.
  Array& operator+=(const Expr& rhs);
  Array& operator-=(const Expr& rhs);
  Array& operator*=(const Expr& rhs);
  Array& operator/=(const Expr& rhs);
  Array& operator%=(const Expr& rhs);
  Array& operator&=(const Expr& rhs);
  Array& operator|=(const Expr& rhs);
  Array& operator^=(const Expr& rhs);
  Array& operator<<=(const Expr& rhs);
  Array& operator>>=(const Expr& rhs);

  // ---- to and from the host ---------------------------------------------------
  // C-order copy of the elements; ArgumentError unless dtype_of<T>() == dtype().
  template <class T>
  std::vector<T> to_host() const {
    check_host_type(dtype_of<T>());
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
      std::vector<unsigned char> bytes(static_cast<std::size_t>(size()));
      copy_to_host(bytes.data(), bytes.size());
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> out(static_cast<std::size_t>(size()));
      copy_to_host(out.data(), out.size() * sizeof(T));
      return out;
    }
  }
  // Synchronous: returns when `bytes` (== nbytes()) are in `dst`, C order.
  void copy_to_host(void* dst, std::size_t bytes) const;
  // Ordered on the array's stream; `dst` should be pinned for real overlap
  // (pageable memory is staged through a pinned buffer). Synchronize the
  // stream before reading `dst`.
  void copy_to_host_async(void* dst, std::size_t bytes) const;
  // Starts a copy into new pinned host memory and returns it at once;
  // synchronize the array's stream before reading it.
  template <class T>
  PinnedBuffer<T> to_host_async() const {
    check_host_type(dtype_of<T>());
    PinnedBuffer<T> out(static_cast<std::size_t>(size()));
    copy_to_host_async(out.data(), out.bytes());
    return out;
  }
  void copy_from_host(const void* src, std::size_t bytes);
  void copy_from_host_async(const void* src, std::size_t bytes);
  // Host copy of the element at a C-order flat position (slow: for printing and tests);
  // a negative position counts from the end, as in NumPy.
  Scalar item(std::int64_t flat_index = 0) const;

  // numpy-like text: "array([1., 2., 3.], dtype=float32)" with "..." past 1000 elements.
  std::string to_string() const;

  // ---- internal: used by the expression engine and the interop layer ---------
  Array(std::shared_ptr<detail::ArrayStorage> storage, DType dtype, Shape shape, Strides strides,
        std::int64_t offset, std::optional<Stream> stream = std::nullopt, bool readonly = false);
  void check_host_type(DType requested) const;

 private:
  std::shared_ptr<detail::ArrayStorage> storage_;
  DType dtype_ = DType::float32;
  Shape shape_;
  Strides strides_;
  std::int64_t offset_ = 0;
  std::optional<Stream> stream_;
  bool readonly_ = false;
};

std::ostream& operator<<(std::ostream& os, const Array& array);

// C-order (or F-order) strides in elements for `shape`.
Strides contiguous_strides(const Shape& shape, Order order = Order::C);
// Product of the extents (1 for a 0-d shape).
std::int64_t shape_size(const Shape& shape) noexcept;
// "(2, 3)" as NumPy writes shapes.
std::string shape_to_string(const Shape& shape);
// NumPy broadcasting of two / many shapes; ArgumentError naming both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b);
Shape broadcast_shapes(std::span<const Shape> shapes);

// ---- creation: on the current device's default stream, or on `stream` -------
Array empty(const Shape& shape, DType dtype = DType::float32, Order order = Order::C);
Array empty(const Shape& shape, DType dtype, const Stream& stream, Order order = Order::C);
Array zeros(const Shape& shape, DType dtype = DType::float32);
Array zeros(const Shape& shape, DType dtype, const Stream& stream);
Array ones(const Shape& shape, DType dtype = DType::float32);
Array ones(const Shape& shape, DType dtype, const Stream& stream);
Array full(const Shape& shape, const Scalar& value, DType dtype);
Array full(const Shape& shape, const Scalar& value, DType dtype, const Stream& stream);
Array empty_like(const Array& a);
Array zeros_like(const Array& a);
Array ones_like(const Array& a);
Array full_like(const Array& a, const Scalar& value);
// [start, stop) by step, NumPy's length rule; dtype float64 unless given.
Array arange(double start, double stop, double step = 1.0, DType dtype = DType::float64);
Array arange(std::int64_t stop, DType dtype = DType::int64);
// `num` evenly spaced values from start to stop (inclusive when endpoint).
Array linspace(double start, double stop, std::int64_t num = 50, bool endpoint = true,
               DType dtype = DType::float64);
// Copies host data (C order) to a new array of that shape.
Array from_host(const void* data, const Shape& shape, DType dtype);
Array from_host(const void* data, const Shape& shape, DType dtype, const Stream& stream);
namespace detail {
// ArgumentError unless `length` host elements fill `shape` exactly.
void check_host_length(std::size_t length, const Shape& shape, DType dtype, const char* context);
}  // namespace detail
template <class T>
Array from_host(std::span<const T> data, const Shape& shape) {
  detail::check_host_length(data.size(), shape, dtype_of<T>(), "from_host");
  return from_host(data.data(), shape, dtype_of<T>());
}
template <class T>
Array from_host(const std::vector<T>& data) {
  return from_host(data.data(), Shape{static_cast<std::int64_t>(data.size())}, dtype_of<T>());
}
template <class T>
Array from_host(const std::vector<T>& data, const Shape& shape) {
  return from_host(std::span<const T>(data), shape);
}
// A view of memory cudakit does not own (__cuda_array_interface__, DLPack):
// strides in BYTES (empty: C-contiguous), each a multiple of the itemsize.
// `owner` is kept alive as long as any view of the array exists.
Array from_pointer(std::uint64_t address, const Shape& shape,
                   const std::vector<std::int64_t>& strides_bytes, DType dtype,
                   const Device& device, std::shared_ptr<void> owner = {}, bool readonly = false,
                   std::optional<Stream> stream = std::nullopt);

// An Array passed to Kernel::launch is the device pointer of its element [0...].
template <>
struct KernelArg<Array> {
  static ArgInfo info(const Array&) noexcept {
    return {ParamKind::pointer, ScalarType::unknown, sizeof(void*), "Array"};
  }
  static const void* address(const Array& array, std::uint64_t& slot) noexcept {
    slot = array.valid() ? array.address() : 0;
    return &slot;
  }
};

}  // namespace cudakit
