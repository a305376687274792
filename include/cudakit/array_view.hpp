// Arrays passed to kernels as a struct of pointer + shape + strides, so a
// kernel can index any layout (transposes, negative steps, broadcast axes)
// without a copy: ArrayView<T, N> in CUDA C kernel sources, and
// view_arg<N>(array) on the host, whose bytes match that struct exactly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "cudakit/array.hpp"
#include "cudakit/compile_options.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"

namespace cudakit {

// The CUDA C definition of ArrayView<T, N>. Put it before the kernels in the
// source, or add it as a header (add_array_view_header) and
// `#include "cudakit/array_view.cuh"`. It works inside the extern "C" block
// cudakit wraps sources in, and compiles the same for NVRTC and the CPU
// backend. Strides count elements and may be negative or 0.
inline constexpr std::string_view array_view_source() noexcept {
  return R"(// ArrayView<T, N>: an N-dimensional strided view of an array, passed to a
// kernel by value (cudakit::view_arg<N>(array) on the host). Strides count
// elements; they may be negative (reversed axes) or 0 (broadcast axes).
extern "C++" {
#ifndef CUDAKIT_ARRAY_VIEW_CUH
#define CUDAKIT_ARRAY_VIEW_CUH
template <class T, int N>
struct ArrayView {
  T* data;               // element [0, ..., 0]
  long long shape[N];
  long long strides[N];  // in elements

  __device__ __forceinline__ long long size() const {
    long long n = 1;
    for (int d = 0; d < N; ++d) n *= shape[d];
    return n;
  }
  // The element at (i0, i1, ...): one index per dimension.
  template <class... I>
  __device__ __forceinline__ T& operator()(I... index) const {
    static_assert(sizeof...(I) == N, "ArrayView<T, N>(...) takes one index per dimension");
    const long long at[N] = {static_cast<long long>(index)...};
    long long offset = 0;
    for (int d = 0; d < N; ++d) offset += at[d] * strides[d];
    return data[offset];
  }
  // The j-th element in C (row-major) order, 0 <= j < size().
  __device__ __forceinline__ T& operator[](long long j) const {
    long long offset = 0;
    for (int d = N - 1; d >= 0; --d) {
      offset += (j % shape[d]) * strides[d];
      j /= shape[d];
    }
    return data[offset];
  }
};
// A 0-d array: one element.
template <class T>
struct ArrayView<T, 0> {
  T* data;
  __device__ __forceinline__ long long size() const { return 1; }
  __device__ __forceinline__ T& operator()() const { return *data; }
  __device__ __forceinline__ T& operator[](long long) const { return *data; }
};
#endif
}
)";
}

// The name to #include when the definition is given as a header.
inline constexpr const char* array_view_header_name = "cudakit/array_view.cuh";

// Adds array_view_source() to `options` as the header "cudakit/array_view.cuh".
inline void add_array_view_header(CompileOptions& options) {
  options.headers.emplace_back(array_view_header_name, std::string(array_view_source()));
}

// NumPy's old limit on dimensions; also bounds the size of a view argument.
inline constexpr int max_view_ndim = 32;

// The bytes of an ArrayView<T, N> for one array: the pointer of element
// [0, ..., 0], then N extents and N strides as 64-bit integers (elements).
template <int N>
struct ArrayViewArg {
  static_assert(N >= 0 && N <= max_view_ndim, "ArrayView dimensions: 0 to 32");
  static constexpr std::size_t size_bytes = 8 + 16 * static_cast<std::size_t>(N);
  alignas(8) unsigned char bytes[size_bytes];
  DType dtype;
  // "ArrayView<float32, 2>", for launch error messages.
  const char* type_name;
};

namespace detail {

// Static names for launch errors (ArgInfo keeps a plain pointer).
inline const char* array_view_type_name(DType dtype, int ndim) noexcept {
  static const auto names = [] {
    std::array<std::array<std::string, max_view_ndim + 1>, dtype_count> table;
    for (int d = 0; d < dtype_count; ++d)
      for (int n = 0; n <= max_view_ndim; ++n)
        table[static_cast<std::size_t>(d)][static_cast<std::size_t>(n)] =
            "ArrayView<" + std::string(to_string(static_cast<DType>(d))) + ", " +
            std::to_string(n) + ">";
    return table;
  }();
  return names[static_cast<std::size_t>(dtype)][static_cast<std::size_t>(ndim)].c_str();
}

template <int N>
ArrayViewArg<N> pack_array_view(const Array& array, const std::string& context) {
  if (!array.valid()) throw ArgumentError(context, "the array is null (default-constructed)");
  if (array.ndim() != N)
    throw ArgumentError(context,
                        "the array has " + std::to_string(array.ndim()) + " dimension" +
                            (array.ndim() == 1 ? "" : "s") + " (shape " +
                            shape_to_string(array.shape()) + "), the view " + std::to_string(N),
                        "use view_arg<" + std::to_string(array.ndim()) +
                            ">, or reshape / expand_dims the array first");
  ArrayViewArg<N> v{};
  const std::uint64_t address = array.address();
  std::memcpy(v.bytes, &address, 8);
  for (int d = 0; d < N; ++d) {
    const std::int64_t extent = array.shape()[static_cast<std::size_t>(d)];
    const std::int64_t stride = array.strides()[static_cast<std::size_t>(d)];
    std::memcpy(v.bytes + 8 + 8 * static_cast<std::size_t>(d), &extent, 8);
    std::memcpy(v.bytes + 8 + 8 * static_cast<std::size_t>(N + d), &stride, 8);
  }
  v.dtype = array.dtype();
  v.type_name = array_view_type_name(array.dtype(), N);
  return v;
}

}  // namespace detail

// The array as an ArrayView<T, N> kernel argument: `k.launch(cfg,
// view_arg<2>(a.T()), view_arg<2>(out))`. ArgumentError when the array's
// ndim is not N; a kernel parameter of another N fails the launch's size
// check. The launch does not order work across streams: launch on the
// array's stream (a.stream_ref()).
template <int N>
ArrayViewArg<N> view_arg(const Array& array) {
  return detail::pack_array_view<N>(array, "view_arg<" + std::to_string(N) + ">");
}

// The same, also checking the element type against the array's dtype
// (T: bool, the integer types, Half, BFloat16, float, double,
// std::complex<float>, std::complex<double>); a non-const T needs a writable
// array. Use it to catch a dtype mismatch that the launch cannot see (an
// ArrayView<float, 2> and an ArrayView<int, 2> have the same size).
template <class T, int N>
ArrayViewArg<N> view_arg(const Array& array) {
  constexpr DType want = dtype_of<std::remove_const_t<T>>();
  const std::string context = std::string("view_arg<") + (std::is_const_v<T> ? "const " : "") +
                              std::string(to_string(want)) + ", " + std::to_string(N) + ">";
  ArrayViewArg<N> v = detail::pack_array_view<N>(array, context);
  if (array.dtype() != want)
    throw ArgumentError(context,
                        "the array is " + std::string(to_string(array.dtype())) +
                            ", the view's element type " + std::string(to_string(want)),
                        "use astype() for a converted copy, or the matching element type");
  if (!std::is_const_v<T> && array.readonly())
    throw ArgumentError(context, "the array is read-only and the view's element type is not const",
                        "declare the kernel parameter ArrayView<const T, N> and use "
                        "view_arg<const T, N>");
  return v;
}

// An ArrayViewArg is passed as the struct it packs.
template <int N>
struct KernelArg<ArrayViewArg<N>> {
  static ArgInfo info(const ArrayViewArg<N>& v) noexcept {
    return {ParamKind::aggregate, ScalarType::unknown, ArrayViewArg<N>::size_bytes, v.type_name};
  }
  static const void* address(const ArrayViewArg<N>& v, std::uint64_t&) noexcept { return v.bytes; }
};

}  // namespace cudakit
