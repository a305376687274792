// Complex math of array expressions against std::complex (whose branch cuts
// and special values are C99's, as NumPy's are), and integer powers. The
// same source runs on the CPU backend and, in the gpu build, on the GPU,
// where NVRTC's device math library does the real-valued work.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "array/expr_checks.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/detail/expr_node.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "unit/array_test_support.hpp"

namespace array_test {
namespace {

using ck::DType;
using ck::Expr;

// References are computed one precision up.
template <class T>
using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;

// 64 units in the last place: the functions are within a few ulp of the
// reference on the host; device math adds a few more.
template <class T>
double complex_tolerance() {
  return 64.0 * std::numeric_limits<T>::epsilon() / 2;
}

class ArrayComplexMath : public ArrayTest {
 protected:
  // Random values of magnitude 10^[-3, max_log10] in every direction, with
  // points exactly on the axes (signed zeros: the branch cuts) and near
  // +-1 and +-i (the branch points).
  template <class T>
  std::vector<std::complex<T>> inputs(std::size_t n, double max_log10) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::complex<T>> v(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double mag = std::pow(10.0, -3.0 + (max_log10 + 3.0) * u(rng));
      const double angle = 2 * M_PI * u(rng);
      double x = mag * std::cos(angle), y = mag * std::sin(angle);
      const double zero = (k / 2) % 2 ? -0.0 : 0.0;
      if (k % 7 == 0) y = zero;                 // on the real axis
      if (k % 11 == 0 && k % 7 != 0) x = zero;  // on the imaginary axis (never 0 itself)
      if (k % 13 == 0) {
        const double near = k % 26 ? 1.0 : -1.0;
        x = near + (u(rng) - 0.5) * 1e-3;
        y = (u(rng) - 0.5) * 1e-3;
        if (k % 39 == 0) std::swap(x, y);
      }
      v[k] = {static_cast<T>(x), static_cast<T>(y)};
    }
    return v;
  }

  template <class T, class W>
  void expect_close(const std::vector<std::complex<T>>& in, const std::vector<std::complex<T>>& got,
                    const std::vector<std::complex<W>>& want, const std::string& what,
                    double extra = 1.0) {
    ASSERT_EQ(got.size(), want.size()) << what;
    const double tol = complex_tolerance<T>() * extra;
    int reported = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
      const std::complex<W> g(got[k].real(), got[k].imag());
      const bool nan_both = (std::isnan(got[k].real()) || std::isnan(got[k].imag())) &&
                            (std::isnan(want[k].real()) || std::isnan(want[k].imag()));
      const double err = static_cast<double>(std::abs(g - want[k]));
      const double scale = static_cast<double>(std::abs(want[k]));
      const bool ok = nan_both || err <= tol * scale + std::numeric_limits<T>::min();
      if (!ok && reported++ < 5)
        ADD_FAILURE() << what << " of (" << in[k].real() << ", " << in[k].imag() << "): got ("
                      << got[k].real() << ", " << got[k].imag() << "), want ("
                      << static_cast<double>(want[k].real()) << ", "
                      << static_cast<double>(want[k].imag()) << "), relative error " << err / scale;
    }
  }

  // f over random complex64 and complex128 inputs against ref in the wider type.
  template <class F, class Ref>
  void expect_unary(const std::string& name, F f, Ref ref, double max_log10) {
    run_unary<float>(name + " complex64", f, ref, max_log10, 1001);
    run_unary<double>(name + " complex128", f, ref, max_log10, 777);
  }

  template <class T, class F, class Ref>
  void run_unary(const std::string& name, F f, Ref ref, double max_log10, std::size_t n) {
    const auto in = inputs<T>(n, max_log10);
    const ck::Array a = ck::from_host(in);
    const ck::Array r = f(Expr(a));
    ASSERT_EQ(r.dtype(), a.dtype()) << name;
    const auto got = r.template to_host<std::complex<T>>();
    std::vector<std::complex<Wide<T>>> want(n);
    for (std::size_t k = 0; k < n; ++k)
      want[k] = ref(std::complex<Wide<T>>(in[k].real(), in[k].imag()));
    expect_close(in, got, want, name);
  }
};

// Functions of the exponential family: |z| up to 20 keeps the results finite.
constexpr double kExpRange = 1.3;
// Logarithms, roots and inverse functions: any magnitude (see also LargeMagnitudes).
constexpr double kWideRange = 6.0;

#define CUDAKIT_COMPLEX_UNARY_TEST(TEST_NAME, FN, REF, RANGE)                                \
  TEST_F(ArrayComplexMath, TEST_NAME) {                                                      \
    expect_unary(                                                                            \
        #FN, [](const Expr& e) { return ck::Array(ck::FN(e)); }, [](auto z) { return REF; }, \
        RANGE);                                                                              \
  }

CUDAKIT_COMPLEX_UNARY_TEST(ExpMatchesStdComplex, exp, std::exp(z), kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(Exp2IsExpOfZTimesLn2, exp2, std::exp(z* std::log(decltype(z.real())(2))),
                           kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(Expm1KeepsDigitsNearZero, expm1,
                           (decltype(z)(std::expm1(z.real()) * std::cos(z.imag()) -
                                            2 * std::sin(z.imag() / 2) * std::sin(z.imag() / 2),
                                        std::exp(z.real()) * std::sin(z.imag()))),
                           kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(LogMatchesStdComplex, log, std::log(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(Log2IsLogOverLn2, log2, std::log(z) / std::log(decltype(z.real())(2)),
                           kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(Log10MatchesStdComplex, log10, std::log10(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(
    Log1pKeepsDigitsNearZero, log1p,
    (std::fabs(z.real()) < 0.5 && std::fabs(z.imag()) < 0.5
         ? decltype(z)(std::log1p(z.real() * (2 + z.real()) + z.imag() * z.imag()) / 2,
                       std::atan2(z.imag(), 1 + z.real()))
         : std::log(decltype(z)(1 + z.real(), z.imag()))),
    kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(SqrtMatchesStdComplex, sqrt, std::sqrt(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(SinMatchesStdComplex, sin, std::sin(z), kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(CosMatchesStdComplex, cos, std::cos(z), kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(TanMatchesStdComplex, tan, std::tan(z), kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(SinhMatchesStdComplex, sinh, std::sinh(z), kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(CoshMatchesStdComplex, cosh, std::cosh(z), kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(TanhMatchesStdComplex, tanh, std::tanh(z), kExpRange)
CUDAKIT_COMPLEX_UNARY_TEST(ArcsinMatchesStdComplex, arcsin, std::asin(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(ArccosMatchesStdComplex, arccos, std::acos(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(ArctanMatchesStdComplex, arctan, std::atan(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(ArcsinhMatchesStdComplex, arcsinh, std::asinh(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(ArccoshMatchesStdComplex, arccosh, std::acosh(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(ArctanhMatchesStdComplex, arctanh, std::atanh(z), kWideRange)
CUDAKIT_COMPLEX_UNARY_TEST(ReciprocalIsOneOverZ, reciprocal, decltype(z)(1) / z, kWideRange)

#undef CUDAKIT_COMPLEX_UNARY_TEST

// Each function on the two sides of its branch cut, as C99 / NumPy put them:
// the sign of the zero part picks the side.
TEST_F(ArrayComplexMath, BranchCutsFollowTheSignOfZero) {
  using Z = std::complex<double>;
  const std::vector<Z> cut_real = {{-4.0, 0.0}, {-4.0, -0.0}, {2.5, 0.0}, {2.5, -0.0},
                                   {-2.5, 0.0}, {-2.5, -0.0}, {0.5, 0.0}, {0.5, -0.0}};
  const std::vector<Z> cut_imag = {{0.0, 2.5}, {-0.0, 2.5}, {0.0, -2.5}, {-0.0, -2.5}};
  const ck::Array re = ck::from_host(cut_real), im = ck::from_host(cut_imag);
  struct Case {
    const char* name;
    std::function<Expr(const Expr&)> f;
    std::function<Z(Z)> ref;
    const ck::Array* in;
    const std::vector<Z>* values;
  };
  const std::vector<Case> cases = {
      {"sqrt", [](const Expr& e) { return ck::sqrt(e); }, [](Z z) { return std::sqrt(z); }, &re,
       &cut_real},
      {"log", [](const Expr& e) { return ck::log(e); }, [](Z z) { return std::log(z); }, &re,
       &cut_real},
      {"arcsin", [](const Expr& e) { return ck::arcsin(e); }, [](Z z) { return std::asin(z); }, &re,
       &cut_real},
      {"arccos", [](const Expr& e) { return ck::arccos(e); }, [](Z z) { return std::acos(z); }, &re,
       &cut_real},
      {"arctanh", [](const Expr& e) { return ck::arctanh(e); }, [](Z z) { return std::atanh(z); },
       &re, &cut_real},
      {"arccosh", [](const Expr& e) { return ck::arccosh(e); }, [](Z z) { return std::acosh(z); },
       &re, &cut_real},
      {"arcsinh", [](const Expr& e) { return ck::arcsinh(e); }, [](Z z) { return std::asinh(z); },
       &im, &cut_imag},
      {"arctan", [](const Expr& e) { return ck::arctan(e); }, [](Z z) { return std::atan(z); }, &im,
       &cut_imag},
  };
  for (const Case& c : cases) {
    const auto got = ck::Array(c.f(Expr(*c.in))).to_host<Z>();
    for (std::size_t k = 0; k < got.size(); ++k) {
      const Z z = (*c.values)[k], want = c.ref(z);
      EXPECT_NEAR(got[k].real(), want.real(), 1e-14 * (1 + std::abs(want))) << c.name << z;
      EXPECT_NEAR(got[k].imag(), want.imag(), 1e-14 * (1 + std::abs(want))) << c.name << z;
      EXPECT_EQ(std::signbit(got[k].real()), std::signbit(want.real())) << c.name << z;
      EXPECT_EQ(std::signbit(got[k].imag()), std::signbit(want.imag())) << c.name << z;
    }
  }
}

// Infinities, NaNs and signed zeros where C99 Annex G fixes the result
// (the cases whose sign it leaves unspecified are left out).
TEST_F(ArrayComplexMath, SpecialValuesFollowC99AnnexG) {
  using Z = std::complex<double>;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    const char* name;
    std::function<Expr(const Expr&)> f;
    std::function<Z(Z)> ref;
    std::vector<Z> inputs;
  };
  const std::vector<Case> cases = {
      {"exp",
       [](const Expr& e) { return ck::exp(e); },
       [](Z z) { return std::exp(z); },
       {{inf, 0.0}, {-inf, 1.0}, {1.0, inf}, {nan, 0.0}, {nan, 1.0}}},
      {"log",
       [](const Expr& e) { return ck::log(e); },
       [](Z z) { return std::log(z); },
       {{-inf, 1.0}, {inf, 1.0}, {inf, inf}, {-inf, inf}, {nan, inf}, {1.0, nan}, {inf, nan}}},
      {"sqrt",
       [](const Expr& e) { return ck::sqrt(e); },
       [](Z z) { return std::sqrt(z); },
       {{-0.0, 0.0}, {1.0, inf}, {nan, inf}, {-inf, 1.0}, {inf, 1.0}, {inf, nan}, {1.0, nan}}},
      {"sinh",
       [](const Expr& e) { return ck::sinh(e); },
       [](Z z) { return std::sinh(z); },
       {{0.0, 0.0}, {inf, 0.0}, {inf, 1.0}, {nan, 0.0}}},
      {"cosh",
       [](const Expr& e) { return ck::cosh(e); },
       [](Z z) { return std::cosh(z); },
       {{0.0, 0.0}, {inf, 0.0}, {inf, 1.0}, {nan, 1.0}}},
      {"tanh",
       [](const Expr& e) { return ck::tanh(e); },
       [](Z z) { return std::tanh(z); },
       {{0.0, 0.0}, {inf, 1.0}, {-inf, 2.0}, {nan, 0.0}, {0.0, inf}, {0.0, nan}}},
      {"arcsinh",
       [](const Expr& e) { return ck::arcsinh(e); },
       [](Z z) { return std::asinh(z); },
       {{0.0, 0.0}, {1.0, inf}, {inf, 1.0}, {inf, inf}, {nan, 0.0}}},
      {"arccosh",
       [](const Expr& e) { return ck::arccosh(e); },
       [](Z z) { return std::acosh(z); },
       {{0.0, 0.0}, {1.0, inf}, {-inf, 1.0}, {inf, 1.0}, {inf, inf}}},
      {"arctanh",
       [](const Expr& e) { return ck::arctanh(e); },
       [](Z z) { return std::atanh(z); },
       {{0.0, 0.0}, {1.0, 0.0}, {1.0, inf}, {inf, 1.0}, {inf, inf}, {0.0, nan}}},
      {"arccos",
       [](const Expr& e) { return ck::arccos(e); },
       [](Z z) { return std::acos(z); },
       {{0.0, 0.0}, {-inf, 1.0}, {inf, 1.0}, {1.0, inf}, {-inf, inf}, {0.0, nan}}},
  };
  const auto same = [](double g, double w) {
    if (std::isnan(w)) return std::isnan(g);
    if (w == 0 || std::isinf(w)) return g == w && std::signbit(g) == std::signbit(w);
    return std::fabs(g - w) <= 1e-15 * std::fabs(w);
  };
  for (const Case& c : cases) {
    const auto got = ck::Array(c.f(Expr(ck::from_host(c.inputs)))).to_host<Z>();
    for (std::size_t k = 0; k < c.inputs.size(); ++k) {
      const Z want = c.ref(c.inputs[k]);
      EXPECT_TRUE(same(got[k].real(), want.real()) && same(got[k].imag(), want.imag()))
          << c.name << c.inputs[k] << ": got " << got[k] << ", want " << want;
    }
  }
}

TEST_F(ArrayComplexMath, LogOfZeroIsMinusInfinityWithTheArgumentOfZero) {
  using Z = std::complex<double>;
  const std::vector<Z> zeros = {{0.0, 0.0}, {-0.0, 0.0}, {0.0, -0.0}, {-0.0, -0.0}};
  const auto got = ck::Array(ck::log(Expr(ck::from_host(zeros)))).to_host<Z>();
  for (std::size_t k = 0; k < zeros.size(); ++k) {
    EXPECT_EQ(got[k].real(), -std::numeric_limits<double>::infinity()) << zeros[k];
    EXPECT_EQ(got[k].imag(), std::atan2(zeros[k].imag(), zeros[k].real())) << zeros[k];
    EXPECT_EQ(std::signbit(got[k].imag()), std::signbit(zeros[k].imag())) << zeros[k];
  }
}

// |z| near the top of the range: no intermediate |z|^2 or x + |z| overflows.
TEST_F(ArrayComplexMath, LargeMagnitudesDoNotOverflow) {
  const auto run = [&]<class T>(T, double lo, double hi) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::complex<T>> in(333);
    for (auto& z : in) {
      const double mag = std::pow(10.0, lo + (hi - lo) * u(rng)), angle = 2 * M_PI * u(rng);
      z = {static_cast<T>(mag * std::cos(angle)), static_cast<T>(mag * std::sin(angle))};
    }
    const ck::Array a = ck::from_host(in);
    using W = std::complex<Wide<T>>;
    const auto check = [&](const char* name, const ck::Array& r, auto ref) {
      const auto got = r.to_host<std::complex<T>>();
      std::vector<W> want(in.size());
      for (std::size_t k = 0; k < in.size(); ++k) want[k] = ref(W(in[k].real(), in[k].imag()));
      expect_close(in, got, want,
                   std::string(name) + (sizeof(T) == 4 ? " complex64" : " complex128"));
    };
    check("sqrt", ck::sqrt(a), [](W z) { return std::sqrt(z); });
    check("log", ck::log(a), [](W z) { return std::log(z); });
    check("arcsin", ck::arcsin(a), [](W z) { return std::asin(z); });
    check("arccos", ck::arccos(a), [](W z) { return std::acos(z); });
    check("arctan", ck::arctan(a), [](W z) { return std::atan(z); });
    check("arcsinh", ck::arcsinh(a), [](W z) { return std::asinh(z); });
    check("arccosh", ck::arccosh(a), [](W z) { return std::acosh(z); });
    check("arctanh", ck::arctanh(a), [](W z) { return std::atanh(z); });
  };
  run(float{}, 15.0, 38.0);
  run(double{}, 100.0, 307.5);
}

// exp(x) overflows a little before exp(x) * cos(y) does: the result stays finite.
TEST_F(ArrayComplexMath, ExpSinhCoshStayFiniteWhereOnlyTheirRealFactorOverflows) {
  const auto run = [&]<class T>(T, double x0, double width) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::complex<T>> in(301);
    // Near y = pi/4 both parts of exp(z) are exp(x) / sqrt(2).
    for (auto& z : in)
      z = {static_cast<T>(x0 + width * u(rng)), static_cast<T>(0.78 + 0.01 * u(rng))};
    const ck::Array a = ck::from_host(in);
    using W = std::complex<Wide<T>>;
    const auto check = [&](const char* name, const ck::Array& r, auto ref) {
      const auto got = r.to_host<std::complex<T>>();
      std::vector<W> want(in.size());
      for (std::size_t k = 0; k < in.size(); ++k) want[k] = ref(W(in[k].real(), in[k].imag()));
      for (const auto& g : got)
        ASSERT_TRUE(std::isfinite(g.real()) && std::isfinite(g.imag())) << name;
      expect_close(in, got, want, name);
    };
    check("exp", ck::exp(a), [](W z) { return std::exp(z); });
    check("sinh", ck::sinh(a), [](W z) { return std::sinh(z); });
    check("cosh", ck::cosh(a), [](W z) { return std::cosh(z); });
  };
  run(float{}, 88.75, 0.25);  // e^88.72 is the largest float
  run(double{}, 709.9, 0.2);  // e^709.78 is the largest double
}

TEST_F(ArrayComplexMath, PowerOfComplexArraysMatchesStdPow) {
  const auto run = [&]<class T>(T, std::size_t n) {
    auto a = inputs<T>(n, 1.0), b = inputs<T>(n, 0.4);
    for (auto& z : a)
      if (std::abs(z) < T(0.1)) z += T(0.5);  // 0 ** b has its own test
    const auto got = ck::Array(ck::power(ck::from_host(a), ck::from_host(b)))
                         .template to_host<std::complex<T>>();
    using W = std::complex<Wide<T>>;
    std::vector<W> want(n);
    for (std::size_t k = 0; k < n; ++k)
      want[k] = std::pow(W(a[k].real(), a[k].imag()), W(b[k].real(), b[k].imag()));
    expect_close(a, got, want,
                 sizeof(T) == 4 ? "complex64 ** complex64" : "complex128 ** complex128", 4.0);
  };
  run(float{}, 1001);
  run(double{}, 777);
}

TEST_F(ArrayComplexMath, PowerByRealScalarsMatchesRepeatedProducts) {
  const std::size_t n = 513;
  const auto a = inputs<float>(n, 1.0);
  const ck::Array x = ck::from_host(a);
  const ck::Array cube = ck::power(x, 3), inverse_square = ck::power(x, -2),
                  half = ck::power(x, 2.5);
  ASSERT_EQ(half.dtype(), DType::complex64);  // a Python float does not widen complex64
  const auto got3 = cube.to_host<std::complex<float>>();
  const auto got_m2 = inverse_square.to_host<std::complex<float>>();
  const auto got_half = half.to_host<std::complex<float>>();
  std::vector<std::complex<double>> want3(n), want_m2(n), want_half(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::complex<double> z(a[k].real(), a[k].imag());
    want3[k] = z * z * z;
    want_m2[k] = 1.0 / (z * z);
    want_half[k] = std::pow(z, 2.5);
  }
  expect_close(a, got3, want3, "z ** 3");
  expect_close(a, got_m2, want_m2, "z ** -2");
  expect_close(a, got_half, want_half, "z ** 2.5", 4.0);
}

TEST_F(ArrayComplexMath, RealArrayToComplexPowerPromotesToComplex) {
  const auto v = random_doubles(300, -5.0, 5.0);
  std::vector<float> host(v.begin(), v.end());
  const std::complex<double> e(0.5, 1.25);
  const ck::Array r = ck::power(ck::from_host(host), e);
  ASSERT_EQ(r.dtype(), DType::complex64);  // float32 with a Python complex: NEP 50
  const auto got = r.to_host<std::complex<float>>();
  std::vector<std::complex<float>> in(host.size());
  std::vector<std::complex<double>> want(host.size());
  for (std::size_t k = 0; k < host.size(); ++k) {
    in[k] = {host[k], 0.0f};
    want[k] = std::pow(std::complex<double>(host[k], 0.0), e);
  }
  expect_close(in, got, want, "float32 ** complex", 4.0);
}

TEST_F(ArrayComplexMath, ZeroToComplexPowersFollowsNumPy) {
  using Z = std::complex<double>;
  const std::vector<Z> base(3, Z(0.0, 0.0)), exponent = {{0.0, 0.0}, {2.0, 1.0}, {-1.0, 0.0}};
  const auto got = ck::Array(ck::power(ck::from_host(base), ck::from_host(exponent))).to_host<Z>();
  EXPECT_EQ(got[0], Z(1.0, 0.0));                                       // 0 ** 0 = 1
  EXPECT_EQ(got[1], Z(0.0, 0.0));                                       // positive real part: 0
  EXPECT_TRUE(std::isnan(got[2].real()) && std::isnan(got[2].imag()));  // otherwise NaN
}

TEST_F(ArrayComplexMath, SignIsTheUnitDirection) {
  auto in = inputs<double>(257, 3.0);
  in[3] = {0.0, 0.0};
  const auto got = ck::Array(ck::sign(ck::from_host(in))).to_host<std::complex<double>>();
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::complex<double> want =
        std::abs(in[k]) == 0 ? std::complex<double>(0.0, 0.0) : in[k] / std::abs(in[k]);
    EXPECT_NEAR(std::abs(got[k] - want), 0.0, 1e-15) << in[k];
  }
}

TEST_F(ArrayComplexMath, RintRoundsEachPartToEven) {
  using Z = std::complex<float>;
  const std::vector<Z> in = {{0.5f, 1.5f}, {2.5f, -2.5f}, {-1.2f, 3.7f}, {7.0f, -0.4f}};
  const auto got = ck::Array(ck::rint(ck::from_host(in))).to_host<Z>();
  for (std::size_t k = 0; k < in.size(); ++k)
    EXPECT_EQ(got[k], Z(std::nearbyint(in[k].real()), std::nearbyint(in[k].imag()))) << in[k];
}

// NumPy orders complex numbers by real part, then imaginary part; maximum and
// minimum propagate a NaN, fmax and fmin ignore one.
TEST_F(ArrayComplexMath, MaximumAndMinimumOrderLexicographically) {
  using Z = std::complex<double>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Z> a = {{1, 5}, {2, -1}, {3, 1}, {-1, 2}, {nan, 0}, {1, 1}},
                 b = {{1, 6}, {1, 9}, {3, 1}, {-1, -2}, {1, 1}, {0, nan}};
  for (int k = 0; k < 200; ++k) {
    auto v = random_doubles(3, -2.0, 2.0);
    a.emplace_back(std::round(v[0]), v[1]);
    b.emplace_back(std::round(v[0] + (v[2] > 0 ? 0 : 1)), v[2]);
  }
  const ck::Array x = ck::from_host(a), y = ck::from_host(b);
  const auto mx = ck::Array(ck::maximum(x, y)).to_host<Z>();
  const auto mn = ck::Array(ck::minimum(x, y)).to_host<Z>();
  const auto fx = ck::Array(ck::fmax(x, y)).to_host<Z>();
  const auto fn = ck::Array(ck::fmin(x, y)).to_host<Z>();
  const auto is_nan = [](Z z) { return std::isnan(z.real()) || std::isnan(z.imag()); };
  const auto same = [&](Z g, Z w) { return (is_nan(g) && is_nan(w)) || g == w; };
  for (std::size_t k = 0; k < a.size(); ++k) {
    const bool a_ge =
        a[k].real() > b[k].real() || (a[k].real() == b[k].real() && a[k].imag() >= b[k].imag());
    const bool a_le =
        a[k].real() < b[k].real() || (a[k].real() == b[k].real() && a[k].imag() <= b[k].imag());
    const Z want_max = is_nan(a[k]) ? a[k] : is_nan(b[k]) ? b[k] : a_ge ? a[k] : b[k];
    const Z want_min = is_nan(a[k]) ? a[k] : is_nan(b[k]) ? b[k] : a_le ? a[k] : b[k];
    const Z want_fmax = is_nan(b[k]) ? a[k] : is_nan(a[k]) ? b[k] : a_ge ? a[k] : b[k];
    const Z want_fmin = is_nan(b[k]) ? a[k] : is_nan(a[k]) ? b[k] : a_le ? a[k] : b[k];
    EXPECT_TRUE(same(mx[k], want_max)) << "maximum" << a[k] << b[k] << " got " << mx[k];
    EXPECT_TRUE(same(mn[k], want_min)) << "minimum" << a[k] << b[k] << " got " << mn[k];
    EXPECT_TRUE(same(fx[k], want_fmax)) << "fmax" << a[k] << b[k] << " got " << fx[k];
    EXPECT_TRUE(same(fn[k], want_fmin)) << "fmin" << a[k] << b[k] << " got " << fn[k];
  }
}

// <, <=, >, >= order complex numbers like NumPy: by real part, then
// imaginary part; a NaN in a real part makes the comparison false.
TEST_F(ArrayComplexMath, OrderingComparisonsAreLexicographic) {
  using Z = std::complex<double>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Z> a = {{1, 5}, {2, -1}, {3, 1}, {nan, 0}, {1, nan}, {0, 1}},
                 b = {{1, 6}, {1, 9}, {3, 1}, {1, 1}, {2, 0}, {0, nan}};
  for (int k = 0; k < 300; ++k) {
    auto v = random_doubles(3, -2.0, 2.0);
    a.emplace_back(std::round(v[0]), v[1]);
    b.emplace_back(std::round(v[0] + (v[2] > 0 ? 0 : 1)), std::round(v[2]));
  }
  const ck::Array x = ck::from_host(a), y = ck::from_host(b);
  const auto lt = ck::Array(x < y).to_host<bool>(), le = ck::Array(x <= y).to_host<bool>();
  const auto gt = ck::Array(x > y).to_host<bool>(), ge = ck::Array(x >= y).to_host<bool>();
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double ar = a[k].real(), ai = a[k].imag(), br = b[k].real(), bi = b[k].imag();
    const bool finite_im = !std::isnan(ai) && !std::isnan(bi);
    EXPECT_EQ(lt[k], (ar < br && finite_im) || (ar == br && ai < bi)) << a[k] << b[k];
    EXPECT_EQ(le[k], (ar < br && finite_im) || (ar == br && ai <= bi)) << a[k] << b[k];
    EXPECT_EQ(gt[k], (ar > br && finite_im) || (ar == br && ai > bi)) << a[k] << b[k];
    EXPECT_EQ(ge[k], (ar > br && finite_im) || (ar == br && ai >= bi)) << a[k] << b[k];
  }
  // complex64 against a real scalar (promoted to complex).
  const auto c64 = ck::Array(ck::astype(x, DType::complex64) < 1.5).to_host<bool>();
  for (std::size_t k = 6; k < a.size(); ++k)
    EXPECT_EQ(c64[k], a[k].real() < 1.5 || (a[k].real() == 1.5 && a[k].imag() < 0)) << a[k];
}

// Functions NumPy does not define for complex numbers are refused when the
// expression is built, naming the operation.
TEST_F(ArrayComplexMath, FloorOfComplexIsRefused) {
  const ck::Array x = ck::ones({5}, DType::complex64);
  try {
    (void)ck::floor(x);
    FAIL() << "no error";
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("'floor'"), std::string::npos) << e.what();
  }
}

TEST_F(ArrayComplexMath, RemainderOfComplexIsRefused) {
  const ck::Array x = ck::ones({5}, DType::complex128);
  EXPECT_THROW((void)(x % x), ck::ArgumentError);
}

TEST_F(ArrayComplexMath, Arctan2OfComplexIsRefused) {
  const ck::Array x = ck::ones({5}, DType::complex64);
  EXPECT_THROW((void)ck::arctan2(x, x), ck::ArgumentError);
}

// Every complex function in one kernel, compiled by NVRTC for a GPU arch (no
// GPU needed; skipped where NVRTC is missing): the device side of the prelude.
TEST_F(ArrayComplexMath, EveryComplexFunctionCompilesWithNvrtc) {
  for (DType dt : {DType::complex64, DType::complex128}) {
    const ck::Array a = ck::ones({1001}, dt), out = ck::empty({1001}, dt);
    const Expr x(a);
    const Expr e = ck::exp(x) + ck::exp2(x) + ck::expm1(x) + ck::log(x) + ck::log2(x) +
                   ck::log10(x) + ck::log1p(x) + ck::sqrt(x) + ck::sin(x) + ck::cos(x) +
                   ck::tan(x) + ck::arcsin(x) + ck::arccos(x) + ck::arctan(x) + ck::sinh(x) +
                   ck::cosh(x) + ck::tanh(x) + ck::arcsinh(x) + ck::arccosh(x) + ck::arctanh(x) +
                   ck::power(x, x) + ck::power(x, 2.5) + ck::rint(x) + ck::sign(x) +
                   ck::maximum(x, x) + ck::minimum(x, x) + ck::fmax(x, x) + ck::fmin(x, x) +
                   ck::reciprocal(x);
    ck::CompileOptions options;
    options.arch = "sm_90";
    options.no_extern_c = true;
    options.use_cache = false;
    try {
      const ck::CompiledCode code =
          ck::compile_only(ck::detail::elementwise_source(e, out), options, ck::BackendKind::cuda);
      EXPECT_FALSE(code.image.empty()) << ck::to_string(dt);
    } catch (const ck::NvrtcNotFound& err) {
      GTEST_SKIP() << "NVRTC is not installed: " << err.what();
    } catch (const ck::CompileError& err) {
      ADD_FAILURE() << ck::to_string(dt) << ":\n" << err.what();
    }
  }
}

// ---- integer powers --------------------------------------------------------

using ArrayIntegerPower = ArrayTest;

TEST_F(ArrayIntegerPower, NegativeScalarExponentIsAnArgumentError) {
  const ck::Array a = make_array({2, 3, 4}, DType::int32, {3});
  try {
    (void)ck::power(a, -2);
    FAIL() << "no error";
  } catch (const ck::ArgumentError& err) {
    EXPECT_NE(std::string(err.what()).find("Integers to negative integer powers are not allowed."),
              std::string::npos)
        << err.what();
  }
}

// Raised where the expression is built, before any kernel exists.
TEST_F(ArrayIntegerPower, PowerWithANegativeScalarExponentRaisesWhenBuilt) {
  const ck::Array a = make_array({2, 3, 4}, DType::int32, {3});
  EXPECT_THROW((void)ck::power(a, -2), ck::ArgumentError);
  EXPECT_THROW((void)ck::power(a, ck::Scalar::typed(-1, DType::int8)), ck::ArgumentError);
}

TEST_F(ArrayIntegerPower, NonNegativeOrFloatExponentsPassTheCheck) {
  const ck::Array a = make_array({2, 3, 4}, DType::int64, {3});
  EXPECT_NO_THROW(ck::detail::check_operand_values(*ck::power(a, 2).node()));
  EXPECT_NO_THROW(ck::detail::check_operand_values(*ck::power(a, -2.0).node()));  // float64
  EXPECT_NO_THROW(ck::detail::check_operand_values(*ck::power(a, a).node()));     // not read
}

// An array of negative exponents is not read on the host: the result is
// CuPy's, the same on both backends: 1 for base 1, +-1 for base -1, 0 else.
TEST_F(ArrayIntegerPower, NegativeArrayExponentGivesCuPysResult) {
  const std::vector<double> base = {-3, -2, -1, 0, 1, 2, 3, 1, -1, 0, 5, -1, 7};
  std::vector<double> exponent(base.size());
  for (std::size_t k = 0; k < base.size(); ++k) exponent[k] = -1.0 - static_cast<double>(k % 4);
  for (DType dt : {DType::int8, DType::int32, DType::int64}) {
    const ck::Array r = ck::power(make_array(base, dt, {13}), make_array(exponent, dt, {13}));
    const auto got = host_doubles(r);
    for (std::size_t k = 0; k < base.size(); ++k) {
      const double want = base[k] == 1    ? 1
                          : base[k] == -1 ? (static_cast<long long>(exponent[k]) % 2 ? -1 : 1)
                                          : 0;
      EXPECT_EQ(got[k], want) << ck::to_string(dt) << " " << base[k] << " ** " << exponent[k];
    }
  }
}

TEST_F(ArrayIntegerPower, OverflowWrapsLikeNumPy) {
  const std::vector<double> base = {3, -3, 7, 255, -128, 2, 12345};
  const std::vector<double> exponent = {40, 41, 23, 9, 3, 63, 17};
  const std::size_t n = base.size();
  for (DType dt : {DType::int8, DType::int32, DType::int64, DType::uint32}) {
    std::vector<double> b(n), e(exponent);
    for (std::size_t k = 0; k < n; ++k) b[k] = round_to(base[k], dt);
    const ck::Array r = ck::power(make_array(b, dt, {static_cast<std::int64_t>(n)}),
                                  make_array(e, dt, {static_cast<std::int64_t>(n)}));
    std::vector<unsigned char> bytes(r.nbytes());
    r.copy_to_host(bytes.data(), bytes.size());
    for (std::size_t k = 0; k < n; ++k) {
      // Modular arithmetic on the two's-complement bits, as NumPy's C loops do.
      std::uint64_t want = 1, x = static_cast<std::uint64_t>(static_cast<std::int64_t>(b[k]));
      for (int j = 0; j < static_cast<int>(e[k]); ++j) want *= x;
      std::uint64_t got = 0;
      std::memcpy(&got, bytes.data() + k * r.itemsize(), r.itemsize());
      const std::uint64_t mask = r.itemsize() == 8 ? ~0ull : ((1ull << (8 * r.itemsize())) - 1);
      EXPECT_EQ(got & mask, want & mask) << ck::to_string(dt) << " " << b[k] << " ** " << e[k];
    }
  }
}

TEST_F(ArrayIntegerPower, ZeroToTheZeroIsOne) {
  for (DType dt : {DType::int16, DType::uint64, DType::float32, DType::complex64}) {
    const ck::Array z = ck::zeros({5}, dt);
    const auto got = host_doubles(ck::Array(ck::power(z, z)));
    for (double g : got) EXPECT_EQ(g, 1.0) << ck::to_string(dt);
  }
}

}  // namespace
}  // namespace array_test
