#include "backend/cpu/element_reduce.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cudakit/dtype.hpp"

namespace cudakit::detail::cpu {
namespace {

// Integer sums and products wrap around, as on a GPU: computed in the
// unsigned type, where overflow is defined.
template <class T>
struct Arithmetic {
  using type = T;
};
template <class T>
requires std::is_integral_v<T>
struct Arithmetic<T> {
  using type = std::make_unsigned_t<T>;
};

template <class T>
T apply(T a, T b, ReduceOp op) {
  using Arith = typename Arithmetic<T>::type;
  switch (op) {
    case ReduceOp::prod:
      return static_cast<T>(static_cast<Arith>(static_cast<Arith>(a) * static_cast<Arith>(b)));
    case ReduceOp::max:
      return std::max(a, b);
    case ReduceOp::min:
      return std::min(a, b);
    case ReduceOp::sum:
    case ReduceOp::avg:
      break;
  }
  return static_cast<T>(static_cast<Arith>(static_cast<Arith>(a) + static_cast<Arith>(b)));
}

// Elements are read and written through memcpy: a host buffer of a device
// allocation carries no alignment promise for the element type here.
template <class T, class Compute = T>
void combine(void* acc, const void* in, std::size_t count, ReduceOp op) {
  auto* a = static_cast<std::byte*>(acc);
  const auto* b = static_cast<const std::byte*>(in);
  for (std::size_t i = 0; i < count; ++i) {
    T x, y;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b + i * sizeof(T), sizeof(T));
    T r;
    if constexpr (std::is_same_v<Compute, T>)
      r = apply(x, y, op);
    else
      r = T(apply(static_cast<Compute>(x), static_cast<Compute>(y), op));
    std::memcpy(a + i * sizeof(T), &r, sizeof(T));
  }
}

template <class T, class Compute = T>
void divide(void* acc, std::size_t count, int divisor) {
  auto* a = static_cast<std::byte*>(acc);
  for (std::size_t i = 0; i < count; ++i) {
    T x;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    T r = T(static_cast<Compute>(x) / static_cast<Compute>(divisor));
    std::memcpy(a + i * sizeof(T), &r, sizeof(T));
  }
}

}  // namespace

void combine_elements(void* acc, const void* in, std::size_t count, ScalarType type, ReduceOp op) {
  switch (type) {
    case ScalarType::i8:
      return combine<std::int8_t>(acc, in, count, op);
    case ScalarType::u8:
      return combine<std::uint8_t>(acc, in, count, op);
    case ScalarType::i32:
      return combine<std::int32_t>(acc, in, count, op);
    case ScalarType::u32:
      return combine<std::uint32_t>(acc, in, count, op);
    case ScalarType::i64:
      return combine<std::int64_t>(acc, in, count, op);
    case ScalarType::u64:
      return combine<std::uint64_t>(acc, in, count, op);
    case ScalarType::f16:
      return combine<Half, float>(acc, in, count, op);
    case ScalarType::bf16:
      return combine<BFloat16, float>(acc, in, count, op);
    case ScalarType::f32:
      return combine<float>(acc, in, count, op);
    case ScalarType::f64:
      return combine<double>(acc, in, count, op);
    default:
      return;  // the core admits no other type
  }
}

void divide_elements(void* acc, std::size_t count, ScalarType type, int divisor) {
  switch (type) {
    case ScalarType::f16:
      return divide<Half, float>(acc, count, divisor);
    case ScalarType::bf16:
      return divide<BFloat16, float>(acc, count, divisor);
    case ScalarType::f32:
      return divide<float>(acc, count, divisor);
    case ScalarType::f64:
      return divide<double>(acc, count, divisor);
    default:
      return;  // avg is refused for integers by the core
  }
}

}  // namespace cudakit::detail::cpu
