// Making arrays: fresh memory from the pool, filled or copied from the host,
// and views of memory someone else owns.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "array/array_util.hpp"
#include "backend/backend.hpp"
#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/memory_pool.hpp"

namespace cudakit {

using detail::array_error;

namespace {

Array allocate(const Shape& shape, DType dtype, const Stream& stream, Order order,
               const char* context) {
  const std::int64_t count = detail::checked_shape_size(shape, itemsize(dtype), context);
  const Device& device = stream.device();
  std::size_t bytes = static_cast<std::size_t>(count) * itemsize(dtype);
  std::size_t request = std::max<std::size_t>(bytes, 1);
  std::uint64_t address = MemoryPool::of(device).allocate(request, stream.native());
  auto storage = std::make_shared<detail::ArrayStorage>(device, address, request);
  storage->pooled = true;
  storage->alloc_stream = stream.native();
  // The default stream is never destroyed: nothing to keep alive.
  if (stream.native()) storage->alloc_stream_keeper = stream;
  return Array(storage, dtype, shape, contiguous_strides(shape, order), 0, stream);
}

}  // namespace

Array empty(const Shape& shape, DType dtype, Order order) {
  return allocate(shape, dtype, Device::current().default_stream(), order, "empty");
}
Array empty(const Shape& shape, DType dtype, const Stream& stream, Order order) {
  return allocate(shape, dtype, stream, order, "empty");
}
Array zeros(const Shape& shape, DType dtype) {
  return zeros(shape, dtype, Device::current().default_stream());
}
Array zeros(const Shape& shape, DType dtype, const Stream& stream) {
  Array a = allocate(shape, dtype, stream, Order::C, "zeros");
  if (a.nbytes() > 0)
    detail::backend_of(a.device()).fill(a.address(), 0, 1, a.nbytes(), stream.native(), true);
  return a;
}
Array ones(const Shape& shape, DType dtype) { return full(shape, 1, dtype); }
Array ones(const Shape& shape, DType dtype, const Stream& stream) {
  return full(shape, 1, dtype, stream);
}
Array full(const Shape& shape, const Scalar& value, DType dtype) {
  return full(shape, value, dtype, Device::current().default_stream());
}
Array full(const Shape& shape, const Scalar& value, DType dtype, const Stream& stream) {
  Array a = allocate(shape, dtype, stream, Order::C, "full");
  a.fill(value);
  return a;
}
Array empty_like(const Array& a) {
  detail::check_valid(a, "empty_like");
  return empty(a.shape(), a.dtype(), a.stream());
}
Array zeros_like(const Array& a) {
  detail::check_valid(a, "zeros_like");
  return zeros(a.shape(), a.dtype(), a.stream());
}
Array ones_like(const Array& a) {
  detail::check_valid(a, "ones_like");
  return ones(a.shape(), a.dtype(), a.stream());
}
Array full_like(const Array& a, const Scalar& value) {
  detail::check_valid(a, "full_like");
  return full(a.shape(), value, a.dtype(), a.stream());
}

namespace {
Array from_doubles(const std::vector<double>& values, DType dtype) {
  std::vector<unsigned char> host(values.size() * itemsize(dtype));
  for (std::size_t k = 0; k < values.size(); ++k)
    Scalar::typed(values[k], DType::float64).store(dtype, host.data() + k * itemsize(dtype));
  return from_host(host.data(), Shape{static_cast<std::int64_t>(values.size())}, dtype);
}
}  // namespace

Array arange(double start, double stop, double step, DType dtype) {
  if (step == 0) array_error("arange", "step must not be zero");
  double len = std::ceil((stop - start) / step);
  if (!std::isfinite(len)) array_error("arange", "the range is not finite");
  auto n = static_cast<std::size_t>(std::max(0.0, len));
  std::vector<double> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = start + static_cast<double>(k) * step;
  return from_doubles(v, dtype);
}

Array arange(std::int64_t stop, DType dtype) {
  auto n = static_cast<std::size_t>(std::max<std::int64_t>(0, stop));
  std::vector<unsigned char> host(n * itemsize(dtype));
  for (std::size_t k = 0; k < n; ++k)
    Scalar::typed(static_cast<std::int64_t>(k), DType::int64)
        .store(dtype, host.data() + k * itemsize(dtype));
  return from_host(host.data(), Shape{static_cast<std::int64_t>(n)}, dtype);
}

Array linspace(double start, double stop, std::int64_t num, bool endpoint, DType dtype) {
  if (num < 0)
    array_error("linspace", "number of samples, " + std::to_string(num) + ", must be non-negative");
  std::int64_t div = endpoint ? num - 1 : num;
  std::vector<double> v(static_cast<std::size_t>(num));
  double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  for (std::int64_t k = 0; k < num; ++k)
    v[static_cast<std::size_t>(k)] = start + static_cast<double>(k) * step;
  if (endpoint && num > 1) v.back() = stop;
  return from_doubles(v, dtype);
}

void detail::check_host_length(std::size_t length, const Shape& shape, DType dtype,
                               const char* context) {
  const std::int64_t count = checked_shape_size(shape, itemsize(dtype), context);
  if (static_cast<std::uint64_t>(count) != length)
    array_error(context,
                "the host data has " + std::to_string(length) + " elements but shape " +
                    shape_to_string(shape) + " needs " + std::to_string(count),
                "pass as many values as the shape holds, or the shape of the data");
}

Array from_host(const void* data, const Shape& shape, DType dtype) {
  return from_host(data, shape, dtype, Device::current().default_stream());
}

Array from_host(const void* data, const Shape& shape, DType dtype, const Stream& stream) {
  Array a = allocate(shape, dtype, stream, Order::C, "from_host");
  if (a.nbytes() > 0) {
    if (!data) array_error("from_host", "the host pointer is null");
    a.copy_from_host(data, a.nbytes());
  }
  return a;
}

Array from_pointer(std::uint64_t address, const Shape& shape,
                   const std::vector<std::int64_t>& strides_bytes, DType dtype,
                   const Device& device, std::shared_ptr<void> owner, bool readonly,
                   std::optional<Stream> stream) {
  const std::int64_t count = detail::checked_shape_size(shape, itemsize(dtype), "from_pointer");
  Strides strides;
  if (strides_bytes.empty()) {
    strides = contiguous_strides(shape);
  } else {
    if (strides_bytes.size() != shape.size())
      array_error("from_pointer", std::to_string(strides_bytes.size()) + " strides for " +
                                      std::to_string(shape.size()) + " dimensions");
    auto item = static_cast<std::int64_t>(itemsize(dtype));
    for (auto s : strides_bytes) {
      if (s % item != 0)
        array_error("from_pointer",
                    "stride " + std::to_string(s) + " bytes is not a multiple of the item size " +
                        std::to_string(item) + " of " + std::string(to_string(dtype)));
      strides.push_back(s / item);
    }
  }
  if (address == 0 && count > 0) array_error("from_pointer", "null address for a non-empty array");
  auto storage = std::make_shared<detail::ArrayStorage>(device, address, 0);
  storage->owner = std::move(owner);
  if (stream && !(stream->device() == device))
    array_error("from_pointer", "the stream is on " + stream->device().describe() +
                                    ", the memory on " + device.describe());
  return Array(storage, dtype, shape, strides, 0, stream, readonly);
}

void Array::fill(const Scalar& value) {
  detail::check_valid(*this, "Array::fill");
  if (readonly()) array_error("Array::fill", "the array is read-only");
  if (value.is_weak() && !value.fits(dtype_))
    array_error("Array::fill", "Python integer " + value.to_string() + " out of bounds for " +
                                   std::string(cudakit::to_string(dtype_)));
  if (size() == 0) return;
  unsigned char bytes[16] = {};
  value.store(dtype_, bytes);
  std::size_t item = itemsize();
  // A memset when the element is a repeated 1-, 2- or 4-byte pattern.
  if (is_c_contiguous()) {
    for (unsigned unit : {1u, 2u, 4u}) {
      if (item % unit != 0) continue;
      bool repeats = true;
      for (std::size_t k = unit; k < item && repeats; ++k) repeats = bytes[k] == bytes[k % unit];
      if (!repeats) continue;
      std::uint32_t pattern = 0;
      std::memcpy(&pattern, bytes, unit);
      detail::backend_of(device()).fill(address(), pattern, unit, nbytes() / unit,
                                        stream().native(), true);
      return;
    }
  }
  assign(Expr(Scalar::typed(value, dtype_)));
}

Array Array::copy(Order order) const {
  detail::check_valid(*this, "Array::copy");
  Array out = empty(shape_, dtype_, stream(), order);
  if (size() > 0 && is_c_contiguous() && order == Order::C) {
    detail::backend_of(device()).copy(out.data(), data(), nbytes(), stream().native(), true);
    return out;
  }
  detail::eval_into(Expr(*this), out, Casting::unsafe, "Array::copy");
  return out;
}

Array Array::astype(DType dtype) const {
  detail::check_valid(*this, "Array::astype");
  Array out = empty(shape_, dtype, stream());
  detail::eval_into(Expr(*this), out, Casting::unsafe, "Array::astype");
  return out;
}

}  // namespace cudakit
