// Fused elementwise expressions: every operation against a double-precision
// host reference on random inputs, NumPy's promotion and broadcasting,
// views, in-place updates, aliasing, and that a whole expression is one launch.
#include <cmath>
#include <functional>
#include <string>

#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/detail/expr_node.hpp"
#include "cudakit/error.hpp"
#include "unit/array_test_support.hpp"

using namespace array_test;
using ck::DType;

namespace {

class ArrayExpr : public ArrayTest {
 protected:
  // Random values that every dtype in the test can hold exactly (small
  // integers for integer dtypes, positive for unsigned ones).
  std::vector<double> values_for(DType d, std::size_t n, double lo = -4, double hi = 4) {
    if (ck::is_bool(d)) {
      auto v = random_doubles(n);
      for (auto& x : v) x = x > 0 ? 1 : 0;
      return v;
    }
    if (ck::is_unsigned_integer(d)) lo = 1, hi = 9;
    auto v = random_doubles(n, lo, hi);
    if (ck::is_integer(d))
      for (auto& x : v) x = std::round(x) == 0 ? 1 : std::round(x);
    for (auto& x : v) x = round_to(x, d);
    return v;
  }
};

double py_floordiv(double a, double b) { return std::floor(a / b); }
double py_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

struct BinaryCase {
  const char* name;
  std::function<ck::Expr(const ck::Expr&, const ck::Expr&)> op;
  std::function<double(double, double)> ref;
};

const std::vector<BinaryCase>& arithmetic_cases() {
  static const std::vector<BinaryCase> cases = {
      {"add", [](auto& a, auto& b) { return a + b; }, [](double a, double b) { return a + b; }},
      {"subtract", [](auto& a, auto& b) { return a - b; },
       [](double a, double b) { return a - b; }},
      {"multiply", [](auto& a, auto& b) { return a * b; },
       [](double a, double b) { return a * b; }},
      {"true_divide", [](auto& a, auto& b) { return a / b; },
       [](double a, double b) { return a / b; }},
      {"floor_divide", [](auto& a, auto& b) { return ck::floor_divide(a, b); }, py_floordiv},
      {"remainder", [](auto& a, auto& b) { return a % b; }, py_mod},
      {"minimum", [](auto& a, auto& b) { return ck::minimum(a, b); },
       [](double a, double b) { return std::min(a, b); }},
      {"maximum", [](auto& a, auto& b) { return ck::maximum(a, b); },
       [](double a, double b) { return std::max(a, b); }},
  };
  return cases;
}

// Integer results wrap like C; the reference computes exactly and then wraps.
double wrap_to(double v, DType d) {
  if (!ck::is_integer(d)) return round_to(v, d);
  unsigned char bytes[8] = {};
  ck::Scalar(static_cast<long long>(v)).store(d, bytes);
  return ck::detail::scalar_from_bytes(bytes, d).as_double();
}

}  // namespace

TEST_F(ArrayExpr, ArithmeticMatchesReferenceForDtypePairs) {
  const std::pair<DType, DType> pairs[] = {
      {DType::float32, DType::float32},  {DType::float64, DType::float32},
      {DType::int32, DType::int32},      {DType::int8, DType::uint8},
      {DType::int64, DType::float32},    {DType::float16, DType::float16},
      {DType::bfloat16, DType::float32}, {DType::uint16, DType::int16},
      {DType::uint32, DType::uint32},    {DType::int16, DType::float16}};
  const std::size_t n = 1003;
  for (auto [da, db] : pairs) {
    auto va = values_for(da, n), vb = values_for(db, n);
    ck::Array a = make_array(va, da, {static_cast<std::int64_t>(n)});
    ck::Array b = make_array(vb, db, {static_cast<std::int64_t>(n)});
    for (const auto& c : arithmetic_cases()) {
      if (c.name == std::string("subtract") && da == DType::bool_) continue;
      ck::Expr e = c.op(a, b);
      ck::Array r = e;
      std::vector<double> want(n);
      for (std::size_t k = 0; k < n; ++k) {
        // Operands are first converted to the common type.
        double x = round_to(va[k], e.node()->operand), y = round_to(vb[k], e.node()->operand);
        want[k] = wrap_to(c.ref(x, y), r.dtype());
      }
      std::string what = std::string(c.name) + "(" + std::string(ck::to_string(da)) + ", " +
                         std::string(ck::to_string(db)) + ") -> " +
                         std::string(ck::to_string(r.dtype()));
      expect_close(host_doubles(r), want, r.dtype(), what, 2.0);
    }
  }
}

TEST_F(ArrayExpr, ResultDtypesFollowNumpy) {
  ck::Array i8 = ck::ones({5}, DType::int8), u8 = ck::ones({5}, DType::uint8),
            f32 = ck::ones({5}, DType::float32);
  ck::Array i32 = ck::ones({5}, DType::int32);
  EXPECT_EQ((i8 + u8).dtype(), DType::int16);
  EXPECT_EQ((i32 / i32).dtype(), DType::float64);
  EXPECT_EQ((i32 + f32).dtype(), DType::float64);
  EXPECT_EQ(ck::sqrt(i8).dtype(), DType::float16);
  EXPECT_EQ((f32 < i32).dtype(), DType::bool_);
  EXPECT_EQ(ck::abs(ck::ones({3}, DType::complex64)).dtype(), DType::float32);
}

TEST_F(ArrayExpr, PythonScalarsAreWeak) {
  ck::Array i8 = ck::full({7}, 3, DType::int8), f32 = ck::full({7}, 1.5, DType::float32);
  EXPECT_EQ((i8 + 1).dtype(), DType::int8);
  EXPECT_EQ((i8 * 2.5).dtype(), DType::float64);
  EXPECT_EQ((f32 * 2.5).dtype(), DType::float32);
  EXPECT_EQ((f32 * 2).dtype(), DType::float32);
  EXPECT_EQ((ck::full({2}, true, DType::bool_) + 1).dtype(), DType::int64);
  auto h = (i8 * 2 + 1).to_host<std::int8_t>();
  for (auto v : h) EXPECT_EQ(v, 7);
  auto g = (f32 * 2.5 - 1).to_host<float>();
  for (auto v : g) EXPECT_EQ(v, 2.75f);
}

TEST_F(ArrayExpr, PythonIntegerOutOfRangeIsAnError) {
  ck::Array u8 = ck::ones({4}, DType::uint8);
  EXPECT_THROW((void)(u8 + 300), ck::ArgumentError);
  EXPECT_THROW((void)(u8 * -1), ck::ArgumentError);
  // Comparisons widen instead, as NumPy 2 does.
  auto lt = (u8 < 300).to_host<bool>();
  for (bool v : lt) EXPECT_TRUE(v);
}

TEST_F(ArrayExpr, UnaryMathMatchesReference) {
  struct Case {
    const char* name;
    ck::Expr (*op)(const ck::Expr&);
    double (*ref)(double);
    double lo, hi;
  };
  const Case cases[] = {
      {"exp", ck::exp, [](double x) { return std::exp(x); }, -3, 3},
      {"log", ck::log, [](double x) { return std::log(x); }, 0.1, 9},
      {"log10", ck::log10, [](double x) { return std::log10(x); }, 0.1, 9},
      {"log2", ck::log2, [](double x) { return std::log2(x); }, 0.1, 9},
      {"sqrt", ck::sqrt, [](double x) { return std::sqrt(x); }, 0.1, 9},
      {"sin", ck::sin, [](double x) { return std::sin(x); }, -3, 3},
      {"cos", ck::cos, [](double x) { return std::cos(x); }, -3, 3},
      {"tan", ck::tan, [](double x) { return std::tan(x); }, -1.2, 1.2},
      {"arcsin", ck::arcsin, [](double x) { return std::asin(x); }, -0.99, 0.99},
      {"arccos", ck::arccos, [](double x) { return std::acos(x); }, -0.99, 0.99},
      {"arctan", ck::arctan, [](double x) { return std::atan(x); }, -3, 3},
      {"sinh", ck::sinh, [](double x) { return std::sinh(x); }, -3, 3},
      {"cosh", ck::cosh, [](double x) { return std::cosh(x); }, -3, 3},
      {"tanh", ck::tanh, [](double x) { return std::tanh(x); }, -3, 3},
      {"arcsinh", ck::arcsinh, [](double x) { return std::asinh(x); }, -3, 3},
      {"arccosh", ck::arccosh, [](double x) { return std::acosh(x); }, 1.1, 5},
      {"arctanh", ck::arctanh, [](double x) { return std::atanh(x); }, -0.9, 0.9},
      {"floor", ck::floor, [](double x) { return std::floor(x); }, -5, 5},
      {"ceil", ck::ceil, [](double x) { return std::ceil(x); }, -5, 5},
      {"trunc", ck::trunc, [](double x) { return std::trunc(x); }, -5, 5},
      {"fabs", ck::fabs, [](double x) { return std::fabs(x); }, -5, 5},
      {"expm1", ck::expm1, [](double x) { return std::expm1(x); }, -1, 1},
      {"log1p", ck::log1p, [](double x) { return std::log1p(x); }, -0.5, 3},
      {"cbrt", ck::cbrt, [](double x) { return std::cbrt(x); }, -8, 8},
  };
  const std::size_t n = 517;
  for (DType d : {DType::float32, DType::float64, DType::float16}) {
    for (const auto& c : cases) {
      auto v = values_for(d, n, c.lo, c.hi);
      ck::Array a = make_array(v, d, {static_cast<std::int64_t>(n)});
      ck::Array r = c.op(a);
      ASSERT_EQ(r.dtype(), d) << c.name;
      std::vector<double> want(n);
      for (std::size_t k = 0; k < n; ++k) want[k] = round_to(c.ref(v[k]), d);
      expect_close(host_doubles(r), want, d,
                   std::string(c.name) + " " + std::string(ck::to_string(d)), 4.0);
    }
  }
}

TEST_F(ArrayExpr, MathOnIntegersComputesInFloat64) {
  auto v = values_for(DType::int32, 100, 1, 50);
  ck::Array a = make_array(v, DType::int32, {100});
  ck::Array r = ck::sqrt(a);
  ASSERT_EQ(r.dtype(), DType::float64);
  std::vector<double> want(100);
  for (int k = 0; k < 100; ++k)
    want[static_cast<std::size_t>(k)] = std::sqrt(v[static_cast<std::size_t>(k)]);
  expect_close(host_doubles(r), want, DType::float64, "sqrt(int32)");
}

TEST_F(ArrayExpr, AbsNegativeSignOnSignedIntegers) {
  auto v = values_for(DType::int16, 301);
  ck::Array a = make_array(v, DType::int16, {301});
  auto ab = host_doubles(ck::abs(a)), ng = host_doubles(-a), sg = host_doubles(ck::sign(a));
  for (std::size_t k = 0; k < v.size(); ++k) {
    EXPECT_EQ(ab[k], std::fabs(v[k]));
    EXPECT_EQ(ng[k], -v[k]);
    EXPECT_EQ(sg[k], v[k] > 0 ? 1 : -1);
  }
}

TEST_F(ArrayExpr, ComparisonsAndLogicalOpsGiveBool) {
  auto va = values_for(DType::float32, 257), vb = values_for(DType::float32, 257);
  ck::Array a = make_array(va, DType::float32, {257}), b = make_array(vb, DType::float32, {257});
  auto lt = host_doubles(a < b), ge = host_doubles(a >= b), eq = host_doubles(a == a),
       ne = host_doubles(a != b);
  auto land = host_doubles(ck::logical_and(a > 0, b > 0)),
       lor = host_doubles(ck::logical_or(a > 0, b > 0));
  auto lx = host_doubles(ck::logical_xor(a > 0, b > 0)), ln = host_doubles(ck::logical_not(a > 0));
  EXPECT_EQ((a < b).dtype(), DType::bool_);
  for (std::size_t k = 0; k < va.size(); ++k) {
    EXPECT_EQ(lt[k], va[k] < vb[k]);
    EXPECT_EQ(ge[k], va[k] >= vb[k]);
    EXPECT_EQ(eq[k], 1);
    EXPECT_EQ(ne[k], va[k] != vb[k]);
    EXPECT_EQ(land[k], va[k] > 0 && vb[k] > 0);
    EXPECT_EQ(lor[k], va[k] > 0 || vb[k] > 0);
    EXPECT_EQ(lx[k], (va[k] > 0) != (vb[k] > 0));
    EXPECT_EQ(ln[k], !(va[k] > 0));
  }
}

TEST_F(ArrayExpr, BitwiseOpsOnIntegers) {
  auto va = values_for(DType::int32, 129, -100, 100), vb = values_for(DType::int32, 129, 0, 7);
  ck::Array a = make_array(va, DType::int32, {129}), b = make_array(vb, DType::int32, {129});
  auto an = host_doubles(a & b), o = host_doubles(a | b), x = host_doubles(a ^ b),
       inv = host_doubles(~a);
  auto shl = host_doubles(a << b), shr = host_doubles(a >> b);
  for (std::size_t k = 0; k < va.size(); ++k) {
    auto p = static_cast<std::int32_t>(va[k]), q = static_cast<std::int32_t>(vb[k]);
    EXPECT_EQ(an[k], p & q);
    EXPECT_EQ(o[k], p | q);
    EXPECT_EQ(x[k], p ^ q);
    EXPECT_EQ(inv[k], ~p);
    EXPECT_EQ(shl[k], static_cast<std::int32_t>(static_cast<std::uint32_t>(p) << q));
    EXPECT_EQ(shr[k], p >> q);
  }
}

TEST_F(ArrayExpr, BitwiseOnFloatsIsRefused) {
  ck::Array f = ck::ones({3}, DType::float32);
  EXPECT_THROW((void)(f & f), ck::ArgumentError);
  EXPECT_THROW((void)(~f), ck::ArgumentError);
  EXPECT_THROW((void)(f << 1), ck::ArgumentError);
}

TEST_F(ArrayExpr, BooleanSubtractIsRefused) {
  ck::Array b = ck::ones({3}, DType::bool_);
  EXPECT_THROW((void)(b - b), ck::ArgumentError);
  EXPECT_THROW((void)(-b), ck::ArgumentError);
}

TEST_F(ArrayExpr, PowerOfFloatsAndIntegers) {
  auto va = values_for(DType::float64, 99, 0.1, 3), vb = values_for(DType::float64, 99, -2, 2);
  ck::Array a = make_array(va, DType::float64, {99}), b = make_array(vb, DType::float64, {99});
  auto r = host_doubles(ck::power(a, b));
  std::vector<double> want(99);
  for (std::size_t k = 0; k < 99; ++k) want[k] = std::pow(va[k], vb[k]);
  expect_close(r, want, DType::float64, "power float64");
  auto vi = values_for(DType::int64, 99, -5, 5), ve = values_for(DType::int64, 99, 1, 6);
  ck::Array i = make_array(vi, DType::int64, {99}), e = make_array(ve, DType::int64, {99});
  auto ri = host_doubles(ck::power(i, e));
  for (std::size_t k = 0; k < 99; ++k) EXPECT_EQ(ri[k], std::pow(vi[k], ve[k]));
}

TEST_F(ArrayExpr, FloorDivideAndRemainderRoundLikePython) {
  std::vector<double> a = {7, -7, 7, -7, 1, 0}, b = {2, 2, -2, -2, 3, 5};
  ck::Array x = make_array(a, DType::int32, {6}), y = make_array(b, DType::int32, {6});
  EXPECT_EQ(host_doubles(ck::floor_divide(x, y)), (std::vector<double>{3, -4, -4, 3, 0, 0}));
  EXPECT_EQ(host_doubles(x % y), (std::vector<double>{1, 1, -1, -1, 1, 0}));
  ck::Array fx = make_array(a, DType::float64, {6}), fy = make_array(b, DType::float64, {6});
  EXPECT_EQ(host_doubles(ck::floor_divide(fx, fy)), (std::vector<double>{3, -4, -4, 3, 0, 0}));
  EXPECT_EQ(host_doubles(ck::fmod(fx, fy)), (std::vector<double>{1, -1, 1, -1, 1, 0}));
}

TEST_F(ArrayExpr, IntegerDivisionByZeroGivesZero) {
  ck::Array x = ck::full({3}, 5, DType::int32), z = ck::zeros({3}, DType::int32);
  EXPECT_EQ(host_doubles(ck::floor_divide(x, z)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(host_doubles(x % z), (std::vector<double>{0, 0, 0}));
}

TEST_F(ArrayExpr, MinimumAndMaximumPropagateNan) {
  std::vector<double> a = {1, NAN, 3}, b = {2, 1, NAN};
  ck::Array x = make_array(a, DType::float32, {3}), y = make_array(b, DType::float32, {3});
  auto mn = host_doubles(ck::minimum(x, y)), fm = host_doubles(ck::fmin(x, y));
  EXPECT_EQ(mn[0], 1);
  EXPECT_TRUE(std::isnan(mn[1]));
  EXPECT_TRUE(std::isnan(mn[2]));
  EXPECT_EQ(fm[1], 1);
  EXPECT_EQ(fm[2], 3);
  auto isn = host_doubles(ck::isnan(x)), isf = host_doubles(ck::isfinite(y));
  EXPECT_EQ(isn, (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(isf, (std::vector<double>{1, 1, 0}));
}

TEST_F(ArrayExpr, ClipAndWhere) {
  auto v = values_for(DType::float32, 333);
  ck::Array a = make_array(v, DType::float32, {333});
  auto c = host_doubles(ck::clip(a, -1.0, 2.0));
  auto w = host_doubles(ck::where(a > 0, a, 0.0));
  for (std::size_t k = 0; k < v.size(); ++k) {
    EXPECT_EQ(c[k], std::min(std::max(v[k], -1.0), 2.0));
    EXPECT_EQ(w[k], v[k] > 0 ? v[k] : 0.0);
  }
  EXPECT_EQ(ck::where(a > 0, a, 0.0).dtype(), DType::float32);
}

TEST_F(ArrayExpr, TwoArgumentMath) {
  auto va = values_for(DType::float64, 211), vb = values_for(DType::float64, 211);
  ck::Array a = make_array(va, DType::float64, {211}), b = make_array(vb, DType::float64, {211});
  auto at = host_doubles(ck::arctan2(a, b)), hy = host_doubles(ck::hypot(a, b)),
       cs = host_doubles(ck::copysign(a, b));
  for (std::size_t k = 0; k < va.size(); ++k) {
    EXPECT_NEAR(at[k], std::atan2(va[k], vb[k]), 1e-14);
    EXPECT_NEAR(hy[k], std::hypot(va[k], vb[k]), 1e-14);
    EXPECT_EQ(cs[k], std::copysign(va[k], vb[k]));
  }
}

TEST_F(ArrayExpr, FrexpModfLdexp) {
  auto v = values_for(DType::float64, 150, -100, 100);
  ck::Array a = make_array(v, DType::float64, {150});
  auto [m, e] = ck::frexp(a);
  auto [frac, whole] = ck::modf(a);
  auto hm = host_doubles(m), he = host_doubles(e), hf = host_doubles(frac),
       hw = host_doubles(whole);
  EXPECT_EQ(ck::Array(e).dtype(), DType::int32);
  auto back = host_doubles(ck::ldexp(m, e));
  for (std::size_t k = 0; k < v.size(); ++k) {
    int ex = 0;
    double mm = std::frexp(v[k], &ex);
    EXPECT_EQ(hm[k], mm);
    EXPECT_EQ(he[k], ex);
    double ip = 0;
    EXPECT_EQ(hf[k], std::modf(v[k], &ip));
    EXPECT_EQ(hw[k], ip);
    EXPECT_EQ(back[k], v[k]);
  }
}

TEST_F(ArrayExpr, Float16RoundsAfterEveryOperation) {
  auto va = values_for(DType::float16, 401), vb = values_for(DType::float16, 401);
  ck::Array a = make_array(va, DType::float16, {401}), b = make_array(vb, DType::float16, {401});
  ck::Array r = a * b + a;
  ASSERT_EQ(r.dtype(), DType::float16);
  auto got = host_doubles(r);
  for (std::size_t k = 0; k < va.size(); ++k) {
    double p = round_to(va[k] * vb[k], DType::float16);
    EXPECT_EQ(got[k], round_to(p + va[k], DType::float16)) << k;
  }
}

TEST_F(ArrayExpr, ComplexArithmeticAbsConj) {
  const std::size_t n = 77;
  std::vector<std::complex<float>> a(n), b(n);
  auto ra = random_doubles(4 * n);
  for (std::size_t k = 0; k < n; ++k) {
    a[k] = {static_cast<float>(ra[4 * k]), static_cast<float>(ra[4 * k + 1])};
    b[k] = {static_cast<float>(ra[4 * k + 2]), static_cast<float>(ra[4 * k + 3])};
  }
  ck::Array x = ck::from_host(a), y = ck::from_host(b);
  auto sum = (x + y).to_host<std::complex<float>>(), prod = (x * y).to_host<std::complex<float>>();
  auto quot = (x / y).to_host<std::complex<float>>(),
       cj = ck::conj(x).to_host<std::complex<float>>();
  auto ab = ck::abs(x).to_host<float>();
  auto sc = (x * 2.0).to_host<std::complex<float>>();
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_EQ(sum[k], a[k] + b[k]);
    EXPECT_NEAR(std::abs(prod[k] - a[k] * b[k]), 0, 1e-5);
    EXPECT_NEAR(std::abs(quot[k] - a[k] / b[k]), 0, 1e-4 * std::abs(a[k] / b[k]));
    EXPECT_EQ(cj[k], std::conj(a[k]));
    EXPECT_NEAR(ab[k], std::abs(a[k]), 1e-5);
    EXPECT_EQ(sc[k], a[k] * 2.0f);
  }
  EXPECT_EQ((x * 1.5).dtype(), DType::complex64);
  EXPECT_EQ((x + ck::ones({n}, DType::float64)).dtype(), DType::complex128);
}

TEST_F(ArrayExpr, BroadcastsRowAgainstColumn) {
  const std::int64_t rows = 37, cols = 53;
  auto vc = values_for(DType::float32, rows), vr = values_for(DType::float64, cols);
  ck::Array col = make_array(vc, DType::float32, {rows, 1}),
            row = make_array(vr, DType::float64, {cols});
  ck::Array r = col * row - row;
  ASSERT_EQ(r.shape(), (ck::Shape{rows, cols}));
  ASSERT_EQ(r.dtype(), DType::float64);
  auto got = host_doubles(r);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      double c = vc[static_cast<std::size_t>(i)], w = vr[static_cast<std::size_t>(j)];
      // A GPU may fuse c * r - r into one rounding: compare with a tolerance.
      EXPECT_NEAR(got[static_cast<std::size_t>(i * cols + j)], c * w - w,
                  1e-15 * (std::fabs(c * w) + std::fabs(w)));
    }
}

TEST_F(ArrayExpr, BroadcastMismatchNamesBothShapes) {
  ck::Array a = ck::ones({3, 4}), b = ck::ones({5});
  try {
    (void)(a + b);
    FAIL() << "no error";
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("(3, 4)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(5,)"), std::string::npos) << e.what();
  }
}

TEST_F(ArrayExpr, NegativeStepAndTransposedOperands) {
  const std::int64_t r = 19, c = 23;
  auto v = values_for(DType::float32, static_cast<std::size_t>(r * c));
  auto w = values_for(DType::float32, static_cast<std::size_t>(r * c));
  ck::Array a = make_array(v, DType::float32, {r, c}), b = make_array(w, DType::float32, {c, r});
  ck::Array rev = a.index(
      {ck::Slice(std::nullopt, std::nullopt, -1), ck::Slice(std::nullopt, std::nullopt, -2)});
  ck::Array res = rev * 2 + b.T().index({ck::Slice(), ck::Slice(std::nullopt, std::nullopt, 2)});
  std::int64_t cc = (c + 1) / 2;
  ASSERT_EQ(res.shape(), (ck::Shape{r, cc}));
  auto got = host_doubles(res);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < cc; ++j) {
      double x = v[static_cast<std::size_t>((r - 1 - i) * c + (c - 1 - 2 * j))];
      double y = w[static_cast<std::size_t>((2 * j) * r + i)];
      EXPECT_EQ(got[static_cast<std::size_t>(i * cc + j)], static_cast<float>(x * 2 + y));
    }
}

TEST_F(ArrayExpr, InPlaceOperatorsUpdateTheArray) {
  auto v = values_for(DType::float32, 1001), w = values_for(DType::float32, 1001);
  ck::Array a = make_array(v, DType::float32, {1001}), b = make_array(w, DType::float32, {1001});
  std::uint64_t address = a.address();
  a += b;
  a *= 2;
  a -= 1.5;
  EXPECT_EQ(a.address(), address);
  auto got = host_doubles(a);
  for (std::size_t k = 0; k < v.size(); ++k)
    EXPECT_EQ(got[k],
              static_cast<float>(static_cast<float>(static_cast<float>(v[k] + w[k]) * 2) - 1.5f));
}

TEST_F(ArrayExpr, InPlaceIntoNarrowerKindIsRefused) {
  ck::Array i = ck::ones({4}, DType::int32);
  EXPECT_THROW(i += ck::ones({4}, DType::float64), ck::ArgumentError);
  EXPECT_THROW(i += 1.5, ck::ArgumentError);
  i += 2;  // a Python int keeps int32
  EXPECT_EQ(i.to_host<std::int32_t>(), (std::vector<std::int32_t>{3, 3, 3, 3}));
}

TEST_F(ArrayExpr, AssignIntoStridedViewWritesOnlyThoseElements) {
  ck::Array a = ck::zeros({10}, DType::int32);
  a.index({ck::Slice(1, std::nullopt, 3)}).assign(7);
  EXPECT_EQ(a.to_host<std::int32_t>(), (std::vector<std::int32_t>{0, 7, 0, 0, 7, 0, 0, 7, 0, 0}));
}

TEST_F(ArrayExpr, ShiftedOverlappingViewsUseATemporary) {
  std::vector<std::int32_t> v(100);
  for (int k = 0; k < 100; ++k) v[static_cast<std::size_t>(k)] = k;
  ck::Array a = ck::from_host(v);
  // a[1:] = a[:-1] + 1 reads every old value, as NumPy does.
  a.slice(0, 1, std::nullopt).assign(a.slice(0, std::nullopt, -1) + 1);
  auto got = a.to_host<std::int32_t>();
  EXPECT_EQ(got[0], 0);
  for (int k = 1; k < 100; ++k) EXPECT_EQ(got[static_cast<std::size_t>(k)], k);
}

TEST_F(ArrayExpr, ReversingIntoItselfIsCorrect) {
  auto v = values_for(DType::float64, 1001);
  ck::Array a = make_array(v, DType::float64, {1001});
  a.assign(a.index({ck::Slice(std::nullopt, std::nullopt, -1)}));
  auto got = host_doubles(a);
  for (std::size_t k = 0; k < v.size(); ++k) EXPECT_EQ(got[k], v[v.size() - 1 - k]);
}

TEST_F(ArrayExpr, FusedExpressionIsOneLaunch) {
  auto make = [&] { return make_array(values_for(DType::float32, 4097), DType::float32, {4097}); };
  ck::Array a = make(), b = make(), x = make(), y = make();
  ck::Array warm = a * b + x * y;  // compiles outside the count
  auto before = ck::detail::array_kernel_launches();
  ck::Array r = a * b + x * y;
  EXPECT_EQ(ck::detail::array_kernel_launches() - before, 1u);
  before = ck::detail::array_kernel_launches();
  r += ck::sqrt(ck::abs(a)) * 2 - ck::where(x > y, x, y);
  EXPECT_EQ(ck::detail::array_kernel_launches() - before, 1u);
}

TEST_F(ArrayExpr, ContiguousAlignedOperandsUseVectorLoads) {
  ck::Array a = ck::ones({1001}), b = ck::ones({1001}), out = ck::empty({1001});
  std::string src = ck::detail::elementwise_source(a * b, out);
  EXPECT_NE(src.find("cudakit_vec<float, 4>"), std::string::npos) << src;
  EXPECT_NE(src.find("n % 4"), std::string::npos);
  ck::Array mixed_out = ck::empty({1001}, DType::float64);
  std::string mixed = ck::detail::elementwise_source(a * b, mixed_out);
  EXPECT_NE(mixed.find("cudakit_vec<double, 2>"), std::string::npos) << mixed;
  auto r = (a * b + 1).to_host<float>();
  for (float v : r) EXPECT_EQ(v, 2.0f);
}

TEST_F(ArrayExpr, MisalignedViewsFallBackToScalarLoads) {
  ck::Array a = ck::ones({1001}), out = ck::empty({1000});
  std::string src = ck::detail::elementwise_source(a.slice(0, 1, std::nullopt) * 2, out);
  std::string body = src.substr(src.find("// out ="));
  EXPECT_EQ(body.find("cudakit_vec<"), std::string::npos) << body;
  ck::Array r = a.slice(0, 1, std::nullopt) * 2;
  for (double v : host_doubles(r)) EXPECT_EQ(v, 2.0);
}

TEST_F(ArrayExpr, NonContiguousOperandsIndexThroughALayoutStruct) {
  ck::Array a = ck::ones({6, 8}), out = ck::empty({8, 6});
  std::string src = ck::detail::elementwise_source(a.T() + 1, out);
  EXPECT_NE(src.find("struct m_layout"), std::string::npos) << src;
  EXPECT_NE(src.find("m_lay.strides"), std::string::npos);
}

TEST_F(ArrayExpr, CacheKeyDependsOnStructureNotData) {
  ck::Array a = ck::ones({100}), b = ck::ones({100}), c = ck::ones({100}), d = ck::ones({100});
  ck::Array out = ck::empty({100});
  EXPECT_EQ(ck::detail::elementwise_key(a * b + 1.0, out),
            ck::detail::elementwise_key(c * d + 2.0, out));
  EXPECT_NE(ck::detail::elementwise_key(a * b, out), ck::detail::elementwise_key(a * a, out));
  EXPECT_NE(ck::detail::elementwise_key(a * b, out),
            ck::detail::elementwise_key(a * ck::ones({100}, DType::float64), out));
  ck::Array big = ck::ones({200});
  EXPECT_NE(
      ck::detail::elementwise_key(a * b, out),
      ck::detail::elementwise_key(a * big.index({ck::Slice(std::nullopt, std::nullopt, 2)}), out));
}

TEST_F(ArrayExpr, HugeIterationSpacesUse64BitIndices) {
  ck::Array a = ck::ones({1});
  ck::Array huge = a.broadcast_to({std::int64_t{1} << 32});
  EXPECT_NE(ck::detail::codegen_map(huge * 2).key.find("i64"), std::string::npos);
  EXPECT_NE(ck::detail::codegen_map(a * 2).key.find("i32"), std::string::npos);
}

TEST_F(ArrayExpr, FusedMapRunsInsideAnotherKernel) {
  // What a reduction does with codegen_map: its own kernel around the element text.
  auto va = values_for(DType::float32, 1000), vb = values_for(DType::float32, 1000);
  ck::Array a = make_array(va, DType::float32, {1000}), b = make_array(vb, DType::float32, {1000});
  ck::Expr e = ck::square(a - b);
  auto m = ck::detail::codegen_map(e);
  ck::Array out = ck::empty({1000});
  std::string src = m.preamble + "extern \"C\" __global__ void fused_map_test(float* out, " +
                    m.params +
                    ", int n) {\n  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
                    "gridDim.x * blockDim.x)\n"
                    "    out[i] = " +
                    m.element + ";\n}\n";
  ck::Kernel k =
      ck::detail::cached_kernel(device(), "test|" + m.key, "fused_map_test", [&] { return src; });
  ck::detail::ArgPack args;
  args.push_pointer(out.address());
  args.append(m.args);
  args.push_scalar<int>(1000);
  args.launch(k, ck::grid_for(1000, 128));
  auto got = host_doubles(out);
  for (std::size_t i = 0; i < 1000; ++i)
    EXPECT_EQ(got[i], static_cast<float>((static_cast<float>(va[i] - vb[i])) *
                                         static_cast<float>(va[i] - vb[i])));
}

TEST_F(ArrayExpr, OutOfPlaceEvalIntoOut) {
  ck::Array a = ck::full({5}, 2.0, DType::float32), out = ck::empty({3, 5}, DType::float64);
  ck::eval(a * 3, out);
  for (double v : host_doubles(out)) EXPECT_EQ(v, 6.0);
  ck::Array small = ck::empty({4}, DType::float32);
  EXPECT_THROW(ck::eval(a * 3, small), ck::ArgumentError);
}

TEST_F(ArrayExpr, WritingIntoABroadcastViewIsRefused) {
  ck::Array a = ck::ones({1, 4});
  ck::Array v = a.broadcast_to({3, 4});
  EXPECT_THROW(v.assign(2), ck::ArgumentError);
}

TEST_F(ArrayExpr, AstypeInsideAnExpression) {
  auto v = values_for(DType::float32, 64, -50, 50);
  ck::Array a = make_array(v, DType::float32, {64});
  ck::Array r = ck::astype(a, DType::int16) * 2;
  ASSERT_EQ(r.dtype(), DType::int16);
  auto got = host_doubles(r);
  for (std::size_t k = 0; k < v.size(); ++k)
    EXPECT_EQ(got[k], std::trunc(static_cast<float>(v[k])) * 2);
}

TEST_F(ArrayExpr, ZeroDimensionalAndEmptyArrays) {
  ck::Array s = ck::full({}, 4.0, DType::float64);
  ck::Array r = s * s;
  EXPECT_EQ(r.ndim(), 0);
  EXPECT_EQ(r.item().as_double(), 16.0);
  ck::Array e = ck::empty({0, 3});
  auto before = ck::detail::array_kernel_launches();
  ck::Array re = e + 1;
  EXPECT_EQ(re.size(), 0);
  EXPECT_EQ(ck::detail::array_kernel_launches(), before);
}

TEST_F(ArrayExpr, OperandsOnDifferentDevicesAreAnError) {
  // Two devices exist together only with a GPU: its device 0 and the CPU backend's.
  if (!ck::backend_available(ck::BackendKind::cuda) || !ck::backend_available(ck::BackendKind::cpu))
    GTEST_SKIP() << "needs a GPU and the CPU backend";
  ck::Array on_gpu, on_cpu;
  {
    ck::DeviceScope s(ck::Device::get(ck::BackendKind::cuda, 0));
    on_gpu = ck::ones({4});
  }
  {
    ck::DeviceScope s(ck::Device::get(ck::BackendKind::cpu, 0));
    on_cpu = ck::ones({4});
  }
  EXPECT_THROW((void)(on_gpu + on_cpu), ck::ArgumentError);
  EXPECT_THROW(on_gpu += on_cpu, ck::ArgumentError);
  EXPECT_THROW(on_cpu.assign(on_gpu * 2), ck::ArgumentError);
}
