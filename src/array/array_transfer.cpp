// Moving array elements between the device and the host, in C order.
#include <cstring>
#include <vector>

#include "array/array_util.hpp"
#include "backend/backend.hpp"
#include "cudakit/array.hpp"

namespace cudakit {

using detail::array_error;

namespace detail {
Scalar scalar_from_bytes(const void* bytes, DType dtype) {
  auto get = [&](auto v) {
    std::memcpy(&v, bytes, sizeof v);
    return v;
  };
  switch (dtype) {
    case DType::bool_:
      return Scalar::typed(get(bool{}), dtype);
    case DType::int8:
      return Scalar::typed(get(std::int8_t{}), dtype);
    case DType::int16:
      return Scalar::typed(get(std::int16_t{}), dtype);
    case DType::int32:
      return Scalar::typed(get(std::int32_t{}), dtype);
    case DType::int64:
      return Scalar::typed(get(std::int64_t{}), dtype);
    case DType::uint8:
      return Scalar::typed(get(std::uint8_t{}), dtype);
    case DType::uint16:
      return Scalar::typed(get(std::uint16_t{}), dtype);
    case DType::uint32:
      return Scalar::typed(get(std::uint32_t{}), dtype);
    case DType::uint64:
      return Scalar::typed(get(std::uint64_t{}), dtype);
    case DType::float16:
      return Scalar(get(Half{}));
    case DType::bfloat16:
      return Scalar(get(BFloat16{}));
    case DType::float32:
      return Scalar::typed(get(float{}), dtype);
    case DType::float64:
      return Scalar::typed(get(double{}), dtype);
    case DType::complex64:
      return Scalar::typed(get(std::complex<float>{}), dtype);
    case DType::complex128:
      return Scalar::typed(get(std::complex<double>{}), dtype);
  }
  return {};
}
}  // namespace detail

namespace {
void check_bytes(const Array& a, std::size_t bytes, const char* context) {
  detail::check_valid(a, context);
  if (bytes != a.nbytes())
    array_error(context, "the host buffer has " + std::to_string(bytes) + " bytes but the array " +
                             shape_to_string(a.shape()) + " " + std::string(to_string(a.dtype())) +
                             " has " + std::to_string(a.nbytes()));
}
}  // namespace

void Array::copy_to_host(void* dst, std::size_t bytes) const {
  check_bytes(*this, bytes, "Array::copy_to_host");
  if (bytes == 0) return;
  Stream s = stream();
  if (!is_c_contiguous()) {
    copy().copy_to_host(dst, bytes);
    return;
  }
  // Ordered after the work queued on the array's stream, then waited for.
  detail::backend_of(device()).copy(dst, data(), bytes, s.native(), true);
  s.synchronize();
}

void Array::copy_to_host_async(void* dst, std::size_t bytes) const {
  check_bytes(*this, bytes, "Array::copy_to_host_async");
  if (bytes == 0) return;
  // A non-contiguous array is packed first on the same stream; the
  // temporary's memory returns to the pool stream-ordered, so it stays valid
  // until the copy has run.
  Array src = is_c_contiguous() ? *this : copy();
  detail::backend_of(device()).copy(dst, src.data(), bytes, stream().native(), true);
}

void Array::copy_from_host(const void* src, std::size_t bytes) {
  check_bytes(*this, bytes, "Array::copy_from_host");
  if (readonly()) array_error("Array::copy_from_host", "the array is read-only");
  if (bytes == 0) return;
  Stream s = stream();
  if (!is_c_contiguous()) {
    Array packed = from_host(src, shape(), dtype(), s);
    assign(Expr(packed));
    s.synchronize();
    return;
  }
  detail::backend_of(device()).copy(data(), src, bytes, s.native(), true);
  s.synchronize();
}

void Array::copy_from_host_async(const void* src, std::size_t bytes) {
  check_bytes(*this, bytes, "Array::copy_from_host_async");
  if (readonly()) array_error("Array::copy_from_host_async", "the array is read-only");
  if (bytes == 0) return;
  if (!is_c_contiguous()) {
    Array packed = empty(shape(), dtype(), stream());
    packed.copy_from_host_async(src, bytes);
    assign(Expr(packed));
    return;
  }
  detail::backend_of(device()).copy(data(), src, bytes, stream().native(), true);
}

Scalar Array::item(std::int64_t flat_index) const {
  detail::check_valid(*this, "Array::item");
  // NumPy: a negative index counts from the end.
  const std::int64_t index = flat_index < 0 ? flat_index + size() : flat_index;
  if (index < 0 || index >= size())
    array_error("Array::item", "index " + std::to_string(flat_index) +
                                   " is out of bounds for size " + std::to_string(size()));
  std::int64_t offset = 0, rest = index;
  for (std::size_t d = shape_.size(); d-- > 0;) {
    offset += (rest % shape_[d]) * strides_[d];
    rest /= shape_[d];
  }
  unsigned char bytes[16] = {};
  Stream s = stream();
  std::uint64_t at =
      address() + static_cast<std::uint64_t>(offset * static_cast<std::int64_t>(itemsize()));
  detail::backend_of(device()).copy(bytes,
                                    reinterpret_cast<const void*>(static_cast<std::uintptr_t>(at)),
                                    itemsize(), s.native(), true);
  s.synchronize();
  return detail::scalar_from_bytes(bytes, dtype_);
}

}  // namespace cudakit
