// A C ABI over cudakit's array operations, so that a Python benchmark can run
// cudakit, CuPy and PyTorch on the SAME device memory in the SAME process
// (all three share the primary context) and time them with the same events.
// Every function works on C-contiguous 1-D (or square 2-D for matmul) data
// given by device address and returns 0, or -1 with the message in
// ck_last_error().
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_linalg.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/cudakit.hpp"
#include "cudakit/detail/expr_codegen.hpp"

namespace ck = cudakit;

namespace {

thread_local std::string last_error;

ck::Array view(std::uint64_t address, const ck::Shape& shape) {
  return ck::from_pointer(address, shape, {}, ck::DType::float32, ck::Device::current());
}

template <class F>
int guarded(F&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
    return -1;
  }
}

}  // namespace

extern "C" {

const char* ck_last_error() { return last_error.c_str(); }

int ck_init() {
  return guarded([] { ck::Device::current().make_current(); });
}

int ck_synchronize() {
  return guarded([] { ck::Device::current().synchronize(); });
}

// out = a + b
int ck_add(std::uint64_t a, std::uint64_t b, std::uint64_t out, std::int64_t n) {
  return guarded([&] {
    ck::Shape s{n};
    view(out, s).assign(view(a, s) + view(b, s));
  });
}

// out = a * b + x * y
int ck_mul_add(std::uint64_t a, std::uint64_t b, std::uint64_t x, std::uint64_t y,
               std::uint64_t out, std::int64_t n) {
  return guarded([&] {
    ck::Shape s{n};
    view(out, s).assign(view(a, s) * view(b, s) + view(x, s) * view(y, s));
  });
}

// *result = sum(a) (device to host copy included when result is not null)
int ck_sum(std::uint64_t a, std::int64_t n, double* result) {
  return guarded([&] {
    ck::Array r = ck::sum(view(a, ck::Shape{n}));
    if (result) *result = r.item().as_double();
  });
}

int ck_dot(std::uint64_t a, std::uint64_t b, std::int64_t n, double* result) {
  return guarded([&] {
    ck::Shape s{n};
    ck::Array r = ck::dot(view(a, s), view(b, s));
    if (result) *result = r.item().as_double();
  });
}

// c = a @ b for n x n float32
int ck_matmul(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t n) {
  return guarded([&] {
    ck::Shape s{n, n};
    ck::Array r = ck::matmul(view(a, s), view(b, s));
    view(c, s).assign(r);
  });
}

// Number of kernels launched so far by the array layer (fusion check).
std::int64_t ck_array_launches() {
  return static_cast<std::int64_t>(ck::detail::array_kernel_launches());
}

}  // extern "C"
