// Every operation over every dtype it accepts: elementwise functions and
// operators, reductions, arg-reductions, scans and creation functions, run
// on fresh random data against a host reference; and every kernel that ran
// compiled with NVRTC for sm_90, so a generated-code bug for one dtype (an
// argmax of int8 that does not compile) cannot hide in a dtype no other
// test uses.
//
// To keep the run short, the elementwise operations of one dtype are fused
// into one kernel: element i of the result is operation (i mod count) of
// a[i] (and b[i]), cast to float64 (complex128 for complex inputs), selected
// by a chain of where(); each operation's own code is generated for the
// dtype exactly as when it stands alone.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "array/expr_types.hpp"
#include "array/reduce_source_hook.hpp"
#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "unit/array_test_support.hpp"

namespace {

namespace ck = cudakit;
using ck::DType;
using C = std::complex<double>;
using array_test::make_array;

const DType all_dtypes[] = {DType::bool_,   DType::int8,      DType::int16,     DType::int32,
                            DType::int64,   DType::uint8,     DType::uint16,    DType::uint32,
                            DType::uint64,  DType::float16,   DType::bfloat16,  DType::float32,
                            DType::float64, DType::complex64, DType::complex128};

std::string dtype_name(const testing::TestParamInfo<DType>& info) {
  return std::string(ck::to_string(info.param));
}

// ---- host reference --------------------------------------------------------------

// `v` wrapped to an integer dtype as a C cast does (two's complement).
std::int64_t wrap(std::int64_t v, DType d) {
  switch (d) {
    case DType::bool_:
      return v != 0;
    case DType::int8:
      return static_cast<std::int8_t>(v);
    case DType::int16:
      return static_cast<std::int16_t>(v);
    case DType::int32:
      return static_cast<std::int32_t>(v);
    case DType::uint8:
      return static_cast<std::uint8_t>(v);
    case DType::uint16:
      return static_cast<std::uint16_t>(v);
    case DType::uint32:
      return static_cast<std::uint32_t>(v);
    default:
      return v;  // int64, uint64 (as its bits)
  }
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
std::int64_t py_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
double py_fmod_floor(double a, double b) {
  double r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// NumPy's order of complex numbers: real part, then imaginary part.
bool c_less(C a, C b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}
double sign_of(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }

// One elementwise operation: how to build it and its reference on the
// operand class the typing gives (integer, real or complex).
struct Op {
  std::string name;  // NumPy's name, as the typing tables know it
  bool binary = false;
  bool small_b = false;  // the second operand is an exponent or shift: 0..3
  std::function<ck::Expr(const ck::Expr&, const ck::Expr&)> build;
  std::function<std::int64_t(std::int64_t, std::int64_t)> integer;  // empty: not for integers
  std::function<double(double, double)> real;                       // empty: not for reals
  std::function<C(C, C)> complex;                                   // empty: not for complex
};

std::vector<Op> elementwise_ops() {
  using E = ck::Expr;
  std::vector<Op> ops;
  auto unary = [&](std::string name, std::function<E(const E&)> f,
                   std::function<std::int64_t(std::int64_t)> i, std::function<double(double)> r,
                   std::function<C(C)> c) {
    Op op;
    op.name = std::move(name);
    op.build = [f](const E& a, const E&) { return f(a); };
    if (i) op.integer = [i](std::int64_t a, std::int64_t) { return i(a); };
    if (r) op.real = [r](double a, double) { return r(a); };
    if (c) op.complex = [c](C a, C) { return c(a); };
    ops.push_back(std::move(op));
  };
  auto binary = [&](std::string name, std::function<E(const E&, const E&)> f,
                    std::function<std::int64_t(std::int64_t, std::int64_t)> i,
                    std::function<double(double, double)> r, std::function<C(C, C)> c,
                    bool small_b = false) {
    Op op;
    op.name = std::move(name);
    op.binary = true;
    op.small_b = small_b;
    op.build = std::move(f);
    op.integer = std::move(i);
    op.real = std::move(r);
    op.complex = std::move(c);
    ops.push_back(std::move(op));
  };
  using I = std::int64_t;
  unary(
      "negative", [](const E& a) { return -a; }, [](I a) { return -a; },
      [](double a) { return -a; }, [](C a) { return -a; });
  unary(
      "absolute", [](const E& a) { return ck::abs(a); }, [](I a) { return a < 0 ? -a : a; },
      [](double a) { return std::fabs(a); }, [](C a) { return C(std::abs(a)); });
  unary(
      "sign", [](const E& a) { return ck::sign(a); }, [](I a) { return I(a > 0) - I(a < 0); },
      sign_of, [](C a) { return a == C(0) ? C(0) : a / std::abs(a); });
  unary(
      "square", [](const E& a) { return ck::square(a); }, [](I a) { return a * a; },
      [](double a) { return a * a; }, [](C a) { return a * a; });
  unary(
      "reciprocal", [](const E& a) { return ck::reciprocal(a); }, [](I a) { return I(1) / a; },
      [](double a) { return 1.0 / a; }, [](C a) { return C(1) / a; });
  unary(
      "invert", [](const E& a) { return ~a; }, [](I a) { return ~a; }, nullptr, nullptr);
  unary(
      "logical_not", [](const E& a) { return ck::logical_not(a); }, [](I a) { return I(a == 0); },
      [](double a) { return double(a == 0); }, [](C a) { return C(a == C(0)); });
  unary(
      "isnan", [](const E& a) { return ck::isnan(a); }, [](I) { return I(0); },
      [](double a) { return double(std::isnan(a)); },
      [](C a) { return C(std::isnan(a.real()) || std::isnan(a.imag())); });
  unary(
      "isfinite", [](const E& a) { return ck::isfinite(a); }, [](I) { return I(1); },
      [](double a) { return double(std::isfinite(a)); },
      [](C a) { return C(std::isfinite(a.real()) && std::isfinite(a.imag())); });
  unary(
      "conjugate", [](const E& a) { return ck::conj(a); }, [](I a) { return a; },
      [](double a) { return a; }, [](C a) { return std::conj(a); });
  unary(
      "floor", [](const E& a) { return ck::floor(a); }, [](I a) { return a; },
      [](double a) { return std::floor(a); }, nullptr);
  unary(
      "ceil", [](const E& a) { return ck::ceil(a); }, [](I a) { return a; },
      [](double a) { return std::ceil(a); }, nullptr);
  unary(
      "trunc", [](const E& a) { return ck::trunc(a); }, [](I a) { return a; },
      [](double a) { return std::trunc(a); }, nullptr);
  unary(
      "rint", [](const E& a) { return ck::rint(a); }, [](I a) { return a; },
      [](double a) { return std::nearbyint(a); },
      [](C a) { return C(std::nearbyint(a.real()), std::nearbyint(a.imag())); });
  unary(
      "fabs", [](const E& a) { return ck::fabs(a); }, nullptr,
      [](double a) { return std::fabs(a); }, nullptr);
  // Transcendental functions: NumPy computes them in a float dtype.
  struct Fn {
    const char* name;
    E (*build)(const E&);
    double (*real)(double);
    C (*complex)(C);
  };
  const Fn functions[] = {
      {"exp", [](const E& a) { return ck::exp(a); }, [](double x) { return std::exp(x); },
       [](C z) { return std::exp(z); }},
      {"exp2", [](const E& a) { return ck::exp2(a); }, [](double x) { return std::exp2(x); },
       [](C z) { return std::pow(C(2), z); }},
      {"expm1", [](const E& a) { return ck::expm1(a); }, [](double x) { return std::expm1(x); },
       [](C z) { return std::exp(z) - C(1); }},
      {"log", [](const E& a) { return ck::log(a); }, [](double x) { return std::log(x); },
       [](C z) { return std::log(z); }},
      {"log2", [](const E& a) { return ck::log2(a); }, [](double x) { return std::log2(x); },
       [](C z) { return std::log(z) / std::log(2.0); }},
      {"log10", [](const E& a) { return ck::log10(a); }, [](double x) { return std::log10(x); },
       [](C z) { return std::log10(z); }},
      {"log1p", [](const E& a) { return ck::log1p(a); }, [](double x) { return std::log1p(x); },
       [](C z) { return std::log(C(1) + z); }},
      {"sqrt", [](const E& a) { return ck::sqrt(a); }, [](double x) { return std::sqrt(x); },
       [](C z) { return std::sqrt(z); }},
      {"cbrt", [](const E& a) { return ck::cbrt(a); }, [](double x) { return std::cbrt(x); },
       nullptr},
      {"sin", [](const E& a) { return ck::sin(a); }, [](double x) { return std::sin(x); },
       [](C z) { return std::sin(z); }},
      {"cos", [](const E& a) { return ck::cos(a); }, [](double x) { return std::cos(x); },
       [](C z) { return std::cos(z); }},
      {"tan", [](const E& a) { return ck::tan(a); }, [](double x) { return std::tan(x); },
       [](C z) { return std::tan(z); }},
      {"arcsin", [](const E& a) { return ck::arcsin(a); }, [](double x) { return std::asin(x); },
       [](C z) { return std::asin(z); }},
      {"arccos", [](const E& a) { return ck::arccos(a); }, [](double x) { return std::acos(x); },
       [](C z) { return std::acos(z); }},
      {"arctan", [](const E& a) { return ck::arctan(a); }, [](double x) { return std::atan(x); },
       [](C z) { return std::atan(z); }},
      {"sinh", [](const E& a) { return ck::sinh(a); }, [](double x) { return std::sinh(x); },
       [](C z) { return std::sinh(z); }},
      {"cosh", [](const E& a) { return ck::cosh(a); }, [](double x) { return std::cosh(x); },
       [](C z) { return std::cosh(z); }},
      {"tanh", [](const E& a) { return ck::tanh(a); }, [](double x) { return std::tanh(x); },
       [](C z) { return std::tanh(z); }},
      {"arcsinh", [](const E& a) { return ck::arcsinh(a); }, [](double x) { return std::asinh(x); },
       [](C z) { return std::asinh(z); }},
      {"arccosh", [](const E& a) { return ck::arccosh(a); }, [](double x) { return std::acosh(x); },
       [](C z) { return std::acosh(z); }},
      {"arctanh", [](const E& a) { return ck::arctanh(a); }, [](double x) { return std::atanh(x); },
       [](C z) { return std::atanh(z); }},
  };
  for (const Fn& f : functions)
    unary(f.name, f.build, nullptr, f.real, f.complex ? std::function<C(C)>(f.complex) : nullptr);

  binary(
      "add", [](const E& a, const E& b) { return a + b; }, [](I a, I b) { return a + b; },
      [](double a, double b) { return a + b; }, [](C a, C b) { return a + b; });
  binary(
      "subtract", [](const E& a, const E& b) { return a - b; }, [](I a, I b) { return a - b; },
      [](double a, double b) { return a - b; }, [](C a, C b) { return a - b; });
  binary(
      "multiply", [](const E& a, const E& b) { return a * b; }, [](I a, I b) { return a * b; },
      [](double a, double b) { return a * b; }, [](C a, C b) { return a * b; });
  binary(
      "true_divide", [](const E& a, const E& b) { return a / b; }, nullptr,
      [](double a, double b) { return a / b; }, [](C a, C b) { return a / b; });
  binary(
      "floor_divide", [](const E& a, const E& b) { return ck::floor_divide(a, b); }, floor_div,
      [](double a, double b) { return std::floor(a / b); }, nullptr);
  binary(
      "remainder", [](const E& a, const E& b) { return a % b; }, py_mod, py_fmod_floor, nullptr);
  binary(
      "fmod", [](const E& a, const E& b) { return ck::fmod(a, b); }, [](I a, I b) { return a % b; },
      [](double a, double b) { return std::fmod(a, b); }, nullptr);
  binary(
      "power", [](const E& a, const E& b) { return ck::power(a, b); },
      [](I a, I b) {
        I r = 1;
        for (I k = 0; k < b; ++k) r *= a;
        return r;
      },
      [](double a, double b) { return std::pow(a, b); }, [](C a, C b) { return std::pow(a, b); },
      true);
  binary(
      "arctan2", [](const E& a, const E& b) { return ck::arctan2(a, b); }, nullptr,
      [](double a, double b) { return std::atan2(a, b); }, nullptr);
  binary(
      "hypot", [](const E& a, const E& b) { return ck::hypot(a, b); }, nullptr,
      [](double a, double b) { return std::hypot(a, b); }, nullptr);
  binary(
      "copysign", [](const E& a, const E& b) { return ck::copysign(a, b); }, nullptr,
      [](double a, double b) { return std::copysign(a, b); }, nullptr);
  auto pick = [](bool first) { return first; };
  (void)pick;
  binary(
      "minimum", [](const E& a, const E& b) { return ck::minimum(a, b); },
      [](I a, I b) { return std::min(a, b); },
      [](double a, double b) { return std::isnan(a) || a < b ? a : b; },
      [](C a, C b) { return c_less(b, a) ? b : a; });
  binary(
      "maximum", [](const E& a, const E& b) { return ck::maximum(a, b); },
      [](I a, I b) { return std::max(a, b); },
      [](double a, double b) { return std::isnan(a) || a > b ? a : b; },
      [](C a, C b) { return c_less(a, b) ? b : a; });
  binary(
      "fmin", [](const E& a, const E& b) { return ck::fmin(a, b); },
      [](I a, I b) { return std::min(a, b); }, [](double a, double b) { return std::fmin(a, b); },
      [](C a, C b) { return c_less(b, a) ? b : a; });
  binary(
      "fmax", [](const E& a, const E& b) { return ck::fmax(a, b); },
      [](I a, I b) { return std::max(a, b); }, [](double a, double b) { return std::fmax(a, b); },
      [](C a, C b) { return c_less(a, b) ? b : a; });
  binary(
      "equal", [](const E& a, const E& b) { return a == b; }, [](I a, I b) { return I(a == b); },
      [](double a, double b) { return double(a == b); }, [](C a, C b) { return C(a == b); });
  binary(
      "not_equal", [](const E& a, const E& b) { return a != b; },
      [](I a, I b) { return I(a != b); }, [](double a, double b) { return double(a != b); },
      [](C a, C b) { return C(a != b); });
  binary(
      "less", [](const E& a, const E& b) { return a < b; }, [](I a, I b) { return I(a < b); },
      [](double a, double b) { return double(a < b); }, [](C a, C b) { return C(c_less(a, b)); });
  binary(
      "less_equal", [](const E& a, const E& b) { return a <= b; },
      [](I a, I b) { return I(a <= b); }, [](double a, double b) { return double(a <= b); },
      [](C a, C b) { return C(!c_less(b, a)); });
  binary(
      "greater", [](const E& a, const E& b) { return a > b; }, [](I a, I b) { return I(a > b); },
      [](double a, double b) { return double(a > b); }, [](C a, C b) { return C(c_less(b, a)); });
  binary(
      "greater_equal", [](const E& a, const E& b) { return a >= b; },
      [](I a, I b) { return I(a >= b); }, [](double a, double b) { return double(a >= b); },
      [](C a, C b) { return C(!c_less(a, b)); });
  binary(
      "logical_and", [](const E& a, const E& b) { return ck::logical_and(a, b); },
      [](I a, I b) { return I(a && b); }, [](double a, double b) { return double(a && b); },
      [](C a, C b) { return C(a != C(0) && b != C(0)); });
  binary(
      "logical_or", [](const E& a, const E& b) { return ck::logical_or(a, b); },
      [](I a, I b) { return I(a || b); }, [](double a, double b) { return double(a || b); },
      [](C a, C b) { return C(a != C(0) || b != C(0)); });
  binary(
      "logical_xor", [](const E& a, const E& b) { return ck::logical_xor(a, b); },
      [](I a, I b) { return I((a != 0) != (b != 0)); },
      [](double a, double b) { return double((a != 0) != (b != 0)); },
      [](C a, C b) { return C((a != C(0)) != (b != C(0))); });
  binary(
      "bitwise_and", [](const E& a, const E& b) { return a & b; }, [](I a, I b) { return a & b; },
      nullptr, nullptr);
  binary(
      "bitwise_or", [](const E& a, const E& b) { return a | b; }, [](I a, I b) { return a | b; },
      nullptr, nullptr);
  binary(
      "bitwise_xor", [](const E& a, const E& b) { return a ^ b; }, [](I a, I b) { return a ^ b; },
      nullptr, nullptr);
  binary(
      "left_shift", [](const E& a, const E& b) { return a << b; },
      [](I a, I b) { return I(static_cast<std::uint64_t>(a) << b); }, nullptr, nullptr, true);
  binary(
      "right_shift", [](const E& a, const E& b) { return a >> b; }, [](I a, I b) { return a >> b; },
      nullptr, nullptr, true);
  return ops;
}

// Random inputs for `dtype`: never zero (so division and remainder are
// defined), small enough that integer results do not overflow.
struct Inputs {
  ck::Array a, b, small;  // small: exponents and shift counts, 0..3
};

class DtypeMatrix : public array_test::ArrayTest, public testing::WithParamInterface<DType> {
 protected:
  void SetUp() override {
    ArrayTest::SetUp();
    if (IsSkipped()) return;
    // Every kernel source the array layer generates is kept for NVRTC.
    ck::detail::set_source_observer([this](const std::string& name, const std::string& source) {
      sources_[name + " #" + std::to_string(sources_.size())] = source;
    });
  }
  void TearDown() override { ck::detail::set_source_observer({}); }

  ck::Array random_array(DType d, std::int64_t n, double lo, double hi) {
    if (ck::is_complex(d)) {
      auto re = random_doubles(static_cast<std::size_t>(n), lo, hi);
      auto im = random_doubles(static_cast<std::size_t>(n), lo, hi);
      const ck::Array real = make_array(re, DType::float64, {n});
      const ck::Array imag = make_array(im, DType::float64, {n});
      return ck::Array(ck::eval(ck::Expr(real) + ck::Expr(imag) * ck::Expr(C(0, 1)))).astype(d);
    }
    if (ck::is_bool(d)) {
      auto v = random_doubles(static_cast<std::size_t>(n), -1, 1);
      for (auto& x : v) x = x > 0 ? 1 : 0;
      return make_array(v, d, {n});
    }
    if (ck::is_integer(d)) {
      auto v = random_doubles(static_cast<std::size_t>(n), lo, hi);
      for (auto& x : v) {
        x = std::round(x);
        if (x == 0) x = 1;
        if (!ck::is_signed_integer(d)) x = std::fabs(x);
      }
      return make_array(v, d, {n});
    }
    return make_array(random_doubles(static_cast<std::size_t>(n), lo, hi), d, {n});
  }

  Inputs inputs(DType d, std::int64_t n) {
    Inputs in;
    in.a = random_array(d, n, -9, 9);
    in.b = ck::is_bool(d) ? ck::full({n}, true, d) : random_array(d, n, -9, 9);
    in.small = ck::is_bool(d) ? ck::full({n}, true, d) : random_array(d, n, 0.51, 3.49);
    return in;
  }

  // Compiles every kernel collected so far (and `extra`) for sm_90.
  void compile_collected_for_gpu(const std::map<std::string, std::string>& extra = {}) {
    auto all = sources_;
    all.insert(extra.begin(), extra.end());
    ASSERT_FALSE(all.empty());
    ck::CompileOptions options;
    options.arch = "sm_90";
    options.use_cache = false;
    options.no_extern_c = true;  // as the array layer compiles: the prelude has overloads
    // PTX for sm_90: NVRTC's whole front end and code generator, without
    // ptxas (the slowest part, and one no generated-code bug reaches).
    options.ptx_only = true;
    for (const auto& [name, source] : all) {
      SCOPED_TRACE(name);
      try {
        (void)ck::compile_only(source, options, ck::BackendKind::cuda);
      } catch (const ck::NvrtcNotFound& e) {
        GTEST_SKIP() << "NVRTC is not installed: " << e.what();
      } catch (const ck::CompileError& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }

  std::map<std::string, std::string> sources_;
};

// Every element of `a` as a complex number (real dtypes: imaginary part 0).
std::vector<C> host_values(const ck::Array& a) {
  std::vector<unsigned char> bytes(a.nbytes());
  a.copy_to_host(bytes.data(), bytes.size());
  std::vector<C> out(static_cast<std::size_t>(a.size()));
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = ck::detail::scalar_from_bytes(bytes.data() + k * a.itemsize(), a.dtype()).as_complex();
  return out;
}

// `v` as stored in `d` and read back (the reference's rounding to the
// result dtype).
C stored_as(C v, DType d) {
  if (ck::is_complex(d)) {
    if (d == DType::complex64) return C(static_cast<float>(v.real()), static_cast<float>(v.imag()));
    return v;
  }
  return C(array_test::round_to(v.real(), d), 0);
}

bool close(C got, C want, DType d) {
  auto near = [&](double g, double w) {
    if (std::isnan(w)) return std::isnan(g);
    if (std::isinf(w)) return g == w;
    if (!ck::is_inexact(d)) return g == w;
    const double tol = array_test::tolerance(
        ck::is_complex(d) ? (d == DType::complex64 ? DType::float32 : DType::float64) : d);
    // Transcendental functions of another libm differ by a few ulps.
    // Complex parts are compared on the scale of the whole number.
    const double scale = ck::is_complex(d) ? std::abs(want) : std::fabs(w);
    return std::fabs(g - w) <= 8 * tol * std::max(1.0, scale);
  };
  return near(got.real(), want.real()) && near(got.imag(), want.imag());
}

// The reference of `op` on element values a and b (already of the input
// dtype), computed as NumPy types it: inputs converted to the operand dtype,
// the operation in that class, the result stored in the result dtype.
C reference(const Op& op, C a, C b, const ck::detail::OpTyping& typing) {
  const DType operand = typing.operand;
  a = stored_as(a, operand);
  b = stored_as(b, operand);
  C r;
  if (ck::is_complex(operand)) {
    r = op.complex(a, b);
  } else if (ck::is_inexact(operand)) {
    r = C(op.real(a.real(), b.real()), 0);
  } else {
    // Integers and bools: exact, wrapped to the operand's width, then the
    // unsigned 64-bit values read as such.
    const auto ia = static_cast<std::int64_t>(a.real()), ib = static_cast<std::int64_t>(b.real());
    // ~ of a bool is not: NumPy's invert of bool is logical not.
    std::int64_t v = op.name == "invert" && ck::is_bool(operand)
                         ? std::int64_t(ia == 0)
                         : wrap(op.integer(ia, ib), operand);
    if (ck::is_bool(typing.result)) v = v != 0;
    r = C(operand == DType::uint64 ? static_cast<double>(static_cast<std::uint64_t>(v))
                                   : static_cast<double>(v),
          0);
    if (!ck::is_bool(typing.result) && !ck::is_inexact(typing.result))
      r = C(static_cast<double>(wrap(v, typing.result)), 0);
  }
  return stored_as(r, typing.result);
}

bool has_reference(const Op& op, DType operand) {
  if (ck::is_complex(operand)) return static_cast<bool>(op.complex);
  if (ck::is_inexact(operand)) return static_cast<bool>(op.real);
  return static_cast<bool>(op.integer);
}

TEST_P(DtypeMatrix, ElementwiseOperations) {
  const DType d = GetParam();
  const std::vector<Op> all_ops = elementwise_ops();
  // The operations this dtype accepts (the typing is NumPy's; a separate
  // test compares it with NumPy's tables).
  std::vector<const Op*> ops;
  std::vector<ck::detail::OpTyping> typings;
  for (const Op& op : all_ops) {
    const auto typing =
        op.binary ? ck::detail::type_binary(op.name, d, d) : ck::detail::type_unary(op.name, d);
    if (!typing) continue;
    ASSERT_TRUE(has_reference(op, typing->operand))
        << op.name << " is accepted for " << ck::to_string(d) << " but has no reference here";
    ops.push_back(&op);
    typings.push_back(*typing);
  }
  ASSERT_GT(ops.size(), 10u);
  const auto count = static_cast<std::int64_t>(ops.size());
  const std::int64_t n = count * 13 + 5;  // every operation on 13 or 14 elements
  const Inputs in = inputs(d, n);
  std::vector<double> selector(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) selector[static_cast<std::size_t>(i)] = double(i % count);
  const ck::Array which = make_array(selector, DType::int32, {n});
  const DType wide = ck::is_complex(d) ? DType::complex128 : DType::float64;
  ck::Expr chain = ck::Expr(ck::zeros({n}, wide));
  for (std::int64_t k = count; k-- > 0;) {
    const Op& op = *ops[static_cast<std::size_t>(k)];
    const ck::Expr e = op.build(ck::Expr(in.a), ck::Expr(op.small_b ? in.small : in.b));
    ASSERT_EQ(e.dtype(), typings[static_cast<std::size_t>(k)].result) << op.name;
    chain = ck::where(ck::Expr(which) == ck::Expr(static_cast<int>(k)), ck::astype(e, wide), chain);
  }
  ck::Array out = ck::empty({n}, wide);
  sources_["elementwise chain"] = ck::detail::elementwise_source(chain, out);
  out.assign(chain);
  const auto a = host_values(in.a), b = host_values(in.b), small = host_values(in.small),
             got = host_values(out);
  int failures = 0;
  for (std::int64_t i = 0; i < n && failures < 20; ++i) {
    const auto k = static_cast<std::size_t>(i % count), u = static_cast<std::size_t>(i);
    const Op& op = *ops[k];
    const C want = reference(op, a[u], op.small_b ? small[u] : b[u], typings[k]);
    if (!close(got[u], want, typings[k].result)) {
      ++failures;
      ADD_FAILURE() << op.name << "(" << a[u] << (op.binary ? ", " : "")
                    << (op.binary ? (op.small_b ? small[u] : b[u]) : C()) << ") of "
                    << ck::to_string(d) << " -> " << ck::to_string(typings[k].result) << ": got "
                    << got[u] << ", expected " << want;
    }
  }
  compile_collected_for_gpu();
}

TEST_P(DtypeMatrix, Reductions) {
  const DType d = GetParam();
  const std::int64_t rows = 7, cols = 53;
  const ck::Array a = random_array(d, rows * cols, -3, 3).reshape({rows, cols});
  const auto host = host_values(a);
  // Over every element, and along the last axis (another kernel shape).
  // Over every element: one kernel per operation and dtype (the other
  // kernel shapes, along an axis, are the reduction tests' subject).
  for (const bool along_axis : {false}) {
    SCOPED_TRACE(along_axis ? "axis 1" : "all elements");
    const ck::Axes axes = along_axis ? ck::Axes(1) : ck::Axes();
    const std::int64_t outputs = along_axis ? rows : 1, length = along_axis ? cols : rows * cols;
    auto element = [&](std::int64_t o, std::int64_t r) {
      return host[static_cast<std::size_t>(along_axis ? o * cols + r : r)];
    };
    struct Check {
      const char* name;
      ck::Array result;
      std::function<C(std::int64_t)> want;
    };
    std::vector<Check> checks;
    checks.push_back({"sum", ck::sum(a, axes), [&](std::int64_t o) {
                        C s = 0;
                        for (std::int64_t r = 0; r < length; ++r) s += element(o, r);
                        return s;
                      }});
    checks.push_back({"prod", ck::prod(ck::Expr(a), axes), [&](std::int64_t o) {
                        C p = 1;
                        for (std::int64_t r = 0; r < length; ++r) p *= element(o, r);
                        return p;
                      }});
    auto extreme = [&](bool is_min) {
      return [&, is_min](std::int64_t o) {
        C best = element(o, 0);
        for (std::int64_t r = 1; r < length; ++r) {
          const C v = element(o, r);
          if (is_min ? c_less(v, best) : c_less(best, v)) best = v;
        }
        return best;
      };
    };
    auto arg_extreme = [&](bool is_min) {
      return [&, is_min](std::int64_t o) {
        std::int64_t at = 0;
        for (std::int64_t r = 1; r < length; ++r)
          if (is_min ? c_less(element(o, r), element(o, at))
                     : c_less(element(o, at), element(o, r)))
            at = r;
        return C(static_cast<double>(at));
      };
    };
    checks.push_back({"min", ck::min(a, axes), extreme(true)});
    checks.push_back({"max", ck::max(a, axes), extreme(false)});
    const std::optional<int> axis = along_axis ? std::optional<int>(1) : std::nullopt;
    checks.push_back({"argmin", ck::argmin(a, axis), arg_extreme(true)});
    checks.push_back({"argmax", ck::argmax(a, axis), arg_extreme(false)});
    auto mean_of = [&](std::int64_t o) {
      C s = 0;
      for (std::int64_t r = 0; r < length; ++r) s += element(o, r);
      return s / static_cast<double>(length);
    };
    auto var_of = [&](std::int64_t o, int ddof) {
      const C m = mean_of(o);
      double s = 0;
      for (std::int64_t r = 0; r < length; ++r) s += std::norm(element(o, r) - m);
      return s / static_cast<double>(length - ddof);
    };
    checks.push_back({"mean", ck::mean(a, axes), mean_of});
    checks.push_back({"var", ck::var(a, axes), [&](std::int64_t o) { return C(var_of(o, 0)); }});
    checks.push_back({"std ddof=1", ck::std(a, axes, false, 1),
                      [&](std::int64_t o) { return C(std::sqrt(var_of(o, 1))); }});
    checks.push_back({"any", ck::any(a, axes), [&](std::int64_t o) {
                        bool r = false;
                        for (std::int64_t k = 0; k < length; ++k) r = r || element(o, k) != C(0);
                        return C(r);
                      }});
    checks.push_back({"all", ck::all(a, axes), [&](std::int64_t o) {
                        bool r = true;
                        for (std::int64_t k = 0; k < length; ++k) r = r && element(o, k) != C(0);
                        return C(r);
                      }});
    for (const auto& c : checks) {
      SCOPED_TRACE(c.name);
      ASSERT_EQ(c.result.size(), outputs);
      const auto got = host_values(c.result);
      for (std::int64_t o = 0; o < outputs; ++o) {
        C want = c.want(o);
        const DType rd = c.result.dtype();
        // The products of 53 or 371 values overflow integers: compare
        // wrapped, as a C multiply does.
        if (std::string(c.name) == "prod" && !ck::is_inexact(rd)) {
          std::int64_t p = 1;
          for (std::int64_t r = 0; r < length; ++r)
            p = static_cast<std::int64_t>(
                static_cast<std::uint64_t>(p) *
                static_cast<std::uint64_t>(static_cast<std::int64_t>(element(o, r).real())));
          want = C(rd == DType::uint64 ? static_cast<double>(static_cast<std::uint64_t>(p))
                                       : static_cast<double>(wrap(p, rd)));
        } else {
          want = stored_as(want, rd);
        }
        // Sums of rounded float16 values drift from the exact sum.
        DType tol_dtype = rd;
        if ((d == DType::float16 || d == DType::bfloat16) && ck::is_inexact(rd)) tol_dtype = d;
        const C g = got[static_cast<std::size_t>(o)];
        // A product past the dtype's range is inf or nan there.
        const double largest =
            rd == DType::float16                                                      ? 65504.0
            : rd == DType::float32 || rd == DType::bfloat16 || rd == DType::complex64 ? 3.4e38
                                                                                      : 1.7e308;
        const bool overflows = ck::is_inexact(rd) && !(std::abs(want) < largest);
        const bool ok = overflows ? !std::isfinite(std::abs(g))
                        : std::string(c.name) == "prod" && ck::is_inexact(rd)
                            ? std::abs(g - want) <= 1e-2 * std::max(1.0, std::abs(want))
                            : close(g, want, tol_dtype) ||
                                  (ck::is_inexact(rd) &&
                                   std::abs(g - want) <=
                                       50 *
                                           array_test::tolerance(ck::is_complex(rd) ? DType::float32
                                                                                    : tol_dtype) *
                                           std::max(1.0, std::abs(want)));
        EXPECT_TRUE(ok) << c.name << " of " << ck::to_string(d) << " output " << o << ": got " << g
                        << ", expected " << want;
      }
    }
  }
  compile_collected_for_gpu();
}

TEST_P(DtypeMatrix, Scans) {
  const DType d = GetParam();
  const std::int64_t n = 301;
  // Small magnitudes so products stay finite and in range.
  const ck::Array a = random_array(d, n, -1.3, 1.3);
  const auto host = host_values(a);
  const ck::Array sums = ck::cumsum(a), products = ck::cumprod(a);
  const auto got_sums = host_values(sums), got_products = host_values(products);
  C s = 0, p = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    s += host[u];
    p *= host[u];
    const C want_s = stored_as(s, sums.dtype()), want_p = stored_as(p, products.dtype());
    const DType tol = d == DType::float16 || d == DType::bfloat16 ? d : sums.dtype();
    ASSERT_TRUE(close(got_sums[u], want_s, tol) ||
                std::abs(got_sums[u] - want_s) <= 0.05 * std::max(1.0, std::abs(want_s)))
        << "cumsum of " << ck::to_string(d) << " at " << i << ": " << got_sums[u] << " vs "
        << want_s;
    ASSERT_TRUE(close(got_products[u], want_p, tol) ||
                std::abs(got_products[u] - want_p) <= 0.05 * std::max(1.0, std::abs(want_p)))
        << "cumprod of " << ck::to_string(d) << " at " << i << ": " << got_products[u] << " vs "
        << want_p;
  }
  compile_collected_for_gpu();
}

TEST_P(DtypeMatrix, CreationFunctions) {
  const DType d = GetParam();
  const std::int64_t n = 67;
  auto expect_all = [&](const ck::Array& a, C value, const char* what) {
    ASSERT_EQ(a.dtype(), d) << what;
    ASSERT_EQ(a.size(), n) << what;
    for (const C& v : host_values(a)) ASSERT_EQ(v, stored_as(value, d)) << what;
  };
  EXPECT_EQ(ck::empty({n}, d).nbytes(), static_cast<std::size_t>(n) * ck::itemsize(d));
  expect_all(ck::zeros({n}, d), 0, "zeros");
  expect_all(ck::ones({n}, d), 1, "ones");
  expect_all(ck::full({n}, 1, d), 1, "full 1");
  expect_all(ck::zeros_like(ck::ones({n}, d)), 0, "zeros_like");
  if (!ck::is_bool(d)) {
    expect_all(ck::full({n}, 3, d), 3, "full 3");
    expect_all(ck::full_like(ck::zeros({n}, d), 5), 5, "full_like");
    const auto values = host_values(ck::arange(0.0, static_cast<double>(n), 1.0, d));
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(values[static_cast<std::size_t>(i)], stored_as(C(double(i)), d)) << "arange " << i;
    const auto integer_values = host_values(ck::arange(n, d));
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(integer_values[static_cast<std::size_t>(i)], stored_as(C(double(i)), d));
    const ck::Array line = ck::linspace(0, 66, n, true, d);
    const auto lin = host_values(line);
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(lin[static_cast<std::size_t>(i)], stored_as(C(double(i)), d)) << "linspace " << i;
  }
  // from_host: random bytes of the dtype come back unchanged.
  const ck::Array r = random_array(d, n, -9, 9);
  std::vector<unsigned char> bytes(r.nbytes());
  r.copy_to_host(bytes.data(), bytes.size());
  const ck::Array copy = ck::from_host(bytes.data(), {n}, d);
  std::vector<unsigned char> back(copy.nbytes());
  copy.copy_to_host(back.data(), back.size());
  EXPECT_EQ(back, bytes);
  // Fills are memsets where the bytes repeat; the others ran kernels.
  if (!sources_.empty()) compile_collected_for_gpu();
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, DtypeMatrix, testing::ValuesIn(all_dtypes), dtype_name);

}  // namespace
