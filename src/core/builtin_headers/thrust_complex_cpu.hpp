// thrust::complex<T> for every backend: the same class as
// cuda::std::complex<T> (the CPU backend's portable one, the toolkit's
// libcu++ under NVRTC), with thrust's names for the functions on it. The
// toolkit's own thrust/complex.h declares host stream operators, which NVRTC
// refuses ("host functions are not allowed in JIT mode").
#pragma once

extern "C++" {
#include <cuda/std/complex>

namespace thrust {
using ::cuda::std::abs;
using ::cuda::std::acos;
using ::cuda::std::acosh;
using ::cuda::std::arg;
using ::cuda::std::asin;
using ::cuda::std::asinh;
using ::cuda::std::atan;
using ::cuda::std::atanh;
using ::cuda::std::complex;
using ::cuda::std::conj;
using ::cuda::std::cos;
using ::cuda::std::cosh;
using ::cuda::std::exp;
using ::cuda::std::imag;
using ::cuda::std::log;
using ::cuda::std::log10;
using ::cuda::std::norm;
using ::cuda::std::polar;
using ::cuda::std::pow;
using ::cuda::std::proj;
using ::cuda::std::real;
using ::cuda::std::sin;
using ::cuda::std::sinh;
using ::cuda::std::sqrt;
using ::cuda::std::tan;
using ::cuda::std::tanh;
}  // namespace thrust
}  // extern "C++"
