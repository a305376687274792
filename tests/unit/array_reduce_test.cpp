// Array reductions on the CPU backend (the same generated kernels run on the
// GPU; see array_reduce_gpu_test.cpp), against double references computed
// on the host from fresh random inputs.
#include "cudakit/array_reduce.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <optional>

#include "array/reduce_source_hook.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

// Shape of the 3-D operand: no extent is a multiple of a block.
const Shape shape3{5, 33, 130};

// The axis sets every reduction is tried with; nullopt is "all axes".
const std::vector<std::optional<std::vector<int>>> axis_sets = {
    std::nullopt,           std::vector<int>{0},      std::vector<int>{1},
    std::vector<int>{2},    std::vector<int>{-1},     std::vector<int>{0, 2},
    std::vector<int>{1, 2}, std::vector<int>{0, 1, 2}};

std::vector<int> all_axes(int ndim) {
  std::vector<int> v(static_cast<std::size_t>(ndim));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

Axes to_axes(const std::optional<std::vector<int>>& axes) { return axes ? Axes(*axes) : Axes(); }

Shape expected_shape(const Shape& in, const std::vector<int>& axes, bool keepdims) {
  Shape out;
  const int ndim = static_cast<int>(in.size());
  for (int d = 0; d < ndim; ++d) {
    const bool reduced =
        std::any_of(axes.begin(), axes.end(), [&](int a) { return (a < 0 ? a + ndim : a) == d; });
    if (!reduced)
      out.push_back(in[static_cast<std::size_t>(d)]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

class ArrayReduce : public ::testing::Test {
 protected:
  Device device = Device::get(BackendKind::cpu, 0);
  DeviceScope scope{device};
  Stream stream = device.default_stream();
  std::uint32_t seed = fresh_seed();

  template <class T>
  Array upload(const std::vector<T>& host, const Shape& shape) {
    return from_host(host.data(), shape, dtype_of<T>(), stream);
  }

  // Runs `op` over every axis set (with and without keepdims) and compares
  // with the host reference `ref`.
  void check_all_axes(const std::function<Array(const Expr&, Axes, bool)>& op,
                      const std::function<double(const std::vector<double>&)>& ref, double rel,
                      double lo, double hi, const char* name) {
    SCOPED_TRACE(::testing::Message() << name << ", seed " << seed);
    const auto host =
        random_values<float>(static_cast<std::size_t>(shape_size(shape3)), lo, hi, seed);
    const Array a = upload(host, shape3);
    for (const auto& axes : axis_sets) {
      for (bool keepdims : {false, true}) {
        const std::vector<int> reduced = axes ? *axes : all_axes(3);
        SCOPED_TRACE(::testing::Message()
                     << "axes "
                     << (axes ? shape_to_string(Shape(reduced.begin(), reduced.end())) : "all")
                     << " keepdims " << keepdims);
        const Array r = op(a, to_axes(axes), keepdims);
        EXPECT_EQ(r.shape(), expected_shape(shape3, reduced, keepdims));
        // The same reduction over |x| scales the rounding allowance.
        expect_close(as_doubles(r), reference(widen(host), shape3, reduced, ref), rel, name,
                     reference(magnitudes(host), shape3, reduced, ref));
      }
    }
  }
};

TEST_F(ArrayReduce, SumOverEveryAxisSetMatchesReference) {
  check_all_axes([](const Expr& a, Axes x, bool k) { return sum(a, x, k); }, ref_sum, 1e-5, -1.0,
                 1.0, "sum");
}

TEST_F(ArrayReduce, MeanOverEveryAxisSetMatchesReference) {
  check_all_axes([](const Expr& a, Axes x, bool k) { return mean(a, x, k); }, ref_mean, 1e-5, -1.0,
                 3.0, "mean");
}

TEST_F(ArrayReduce, VarOverEveryAxisSetMatchesReference) {
  check_all_axes([](const Expr& a, Axes x, bool k) { return var(a, x, k); }, ref_var, 1e-5, -2.0,
                 3.0, "var");
}

TEST_F(ArrayReduce, StdOverEveryAxisSetMatchesReference) {
  check_all_axes([](const Expr& a, Axes x, bool k) { return cudakit::std(a, x, k); },
                 [](const std::vector<double>& v) { return std::sqrt(ref_var(v)); }, 1e-5, -2.0,
                 3.0, "std");
}

TEST_F(ArrayReduce, MinOverEveryAxisSetMatchesReference) {
  check_all_axes([](const Expr& a, Axes x, bool k) { return min(a, x, k); },
                 [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); },
                 0.0, -5.0, 5.0, "min");
}

TEST_F(ArrayReduce, MaxOverEveryAxisSetMatchesReference) {
  check_all_axes([](const Expr& a, Axes x, bool k) { return max(a, x, k); },
                 [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); },
                 0.0, -5.0, 5.0, "max");
}

TEST_F(ArrayReduce, ProdOverEveryAxisSetMatchesReference) {
  // Values near 1 keep 21450-element products finite.
  check_all_axes([](const Expr& a, Axes x, bool k) { return prod(a, x, k); },
                 [](const std::vector<double>& v) {
                   double p = 1;
                   for (double x : v) p *= x;
                   return p;
                 },
                 2e-4, 0.9995, 1.0005, "prod");
}

TEST_F(ArrayReduce, AnyAndAllOverEachAxisMatchReference) {
  // Mostly zeros with a few ones: both answers occur along every axis.
  auto host = random_values<float>(static_cast<std::size_t>(shape_size(shape3)), 0.0, 1.0, seed);
  for (auto& v : host) v = v < 0.02f ? 1.0f : 0.0f;
  const Array a = upload(host, shape3);
  for (int axis = 0; axis < 3; ++axis) {
    const auto any_ref = reference(widen(host), shape3, {axis}, [](const std::vector<double>& v) {
      return std::any_of(v.begin(), v.end(), [](double x) { return x != 0; }) ? 1.0 : 0.0;
    });
    const auto all_ref = reference(widen(host), shape3, {axis}, [](const std::vector<double>& v) {
      return std::all_of(v.begin(), v.end(), [](double x) { return x != 0; }) ? 1.0 : 0.0;
    });
    const Array any_result = any(a, axis);
    const Array all_result = all(Expr(a) == Expr(0.0f), axis);
    EXPECT_EQ(any_result.dtype(), DType::bool_);
    expect_close(as_doubles(any_result), any_ref, 0, "any");
    std::vector<double> none_ref =
        reference(widen(host), shape3, {axis}, [](const std::vector<double>& v) {
          return std::none_of(v.begin(), v.end(), [](double x) { return x != 0; }) ? 1.0 : 0.0;
        });
    expect_close(as_doubles(all_result), none_ref, 0, "all");
    (void)all_ref;
  }
}

TEST_F(ArrayReduce, ArgminAndArgmaxOverEachAxisMatchReference) {
  SCOPED_TRACE(seed);
  const auto host =
      random_values<float>(static_cast<std::size_t>(shape_size(shape3)), -5.0, 5.0, seed);
  const Array a = upload(host, shape3);
  auto arg = [](const std::vector<double>& v, bool is_min) {
    auto it = is_min ? std::min_element(v.begin(), v.end()) : std::max_element(v.begin(), v.end());
    return static_cast<double>(it - v.begin());
  };
  for (int axis : {0, 1, 2, -1}) {
    expect_close(as_doubles(argmin(a, axis)),
                 reference(widen(host), shape3, {axis},
                           [&](const std::vector<double>& v) { return arg(v, true); }),
                 0, "argmin");
    expect_close(as_doubles(argmax(a, axis)),
                 reference(widen(host), shape3, {axis},
                           [&](const std::vector<double>& v) { return arg(v, false); }),
                 0, "argmax");
  }
  EXPECT_EQ(argmin(a).item().as_int64(), static_cast<std::int64_t>(arg(widen(host), true)));
  EXPECT_EQ(argmax(a).item().as_int64(), static_cast<std::int64_t>(arg(widen(host), false)));
  EXPECT_EQ(argmax(a).dtype(), DType::int64);
}

TEST_F(ArrayReduce, FewLongOutputsMatchReference) {
  // Few outputs of many elements each take one single-launch reduction per output.
  const auto host = random_values<float>(3 * 40001, -1.0, 1.0, seed);
  const auto x = widen(host);
  const Array wide = upload(host, {3, 40001}), tall = upload(host, {40001, 3});
  const auto ax = magnitudes(host);
  expect_close(as_doubles(sum(wide, 1)), reference(x, {3, 40001}, {1}, ref_sum), 1e-5, "sum wide",
               reference(ax, {3, 40001}, {1}, ref_sum));
  expect_close(as_doubles(mean(tall, 0, true)), reference(x, {40001, 3}, {0}, ref_mean), 1e-5,
               "mean tall", reference(ax, {40001, 3}, {0}, ref_mean));
  expect_close(
      as_doubles(argmin(tall, 0)),
      reference(x, {40001, 3}, {0},
                [](const std::vector<double>& v) {
                  return static_cast<double>(std::min_element(v.begin(), v.end()) - v.begin());
                }),
      0, "argmin tall");
}

TEST_F(ArrayReduce, ArgminOfTiesIsTheFirstIndex) {
  std::vector<float> host = random_values<float>(10007, 1.0, 2.0, seed);
  for (std::size_t k : {std::size_t{4099}, std::size_t{17}, std::size_t{9001}}) host[k] = 0.25f;
  const Array a = upload(host, {10007});
  EXPECT_EQ(argmin(a).item().as_int64(), 17);
  for (std::size_t k : {std::size_t{5000}, std::size_t{300}, std::size_t{10006}}) host[k] = 7.0f;
  EXPECT_EQ(argmax(upload(host, {10007})).item().as_int64(), 300);
}

TEST_F(ArrayReduce, ArgmaxReturnsTheFirstNaN) {
  std::vector<float> host = random_values<float>(5003, 1.0, 2.0, seed);
  host[4000] = std::numeric_limits<float>::quiet_NaN();
  host[1234] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(argmax(upload(host, {5003})).item().as_int64(), 1234);
}

TEST_F(ArrayReduce, MinPropagatesNaN) {
  std::vector<float> host = random_values<float>(3001, -1.0, 1.0, seed);
  host[2999] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(min(upload(host, {3001})).item().as_double()));
}

TEST_F(ArrayReduce, SumOfTransposedAndSteppedViewsMatchesReference) {
  const auto host =
      random_values<float>(static_cast<std::size_t>(shape_size(shape3)), -1.0, 1.0, seed);
  const Array a = upload(host, shape3);
  for (const Array& view :
       {a.transpose(), a.slice(2, 1, std::nullopt, 3), a.slice(1, std::nullopt, std::nullopt, -2),
        a.transpose({1, 2, 0}).slice(0, 3, 30, 2)}) {
    const auto view_host = view.to_host<float>();
    const auto values = widen(view_host), sizes = magnitudes(view_host);
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE(::testing::Message()
                   << "view " << shape_to_string(view.shape()) << " axis " << axis);
      expect_close(as_doubles(sum(view, axis)), reference(values, view.shape(), {axis}, ref_sum),
                   1e-5, "sum", reference(sizes, view.shape(), {axis}, ref_sum));
      expect_close(as_doubles(max(view, axis)),
                   reference(values, view.shape(), {axis},
                             [](const std::vector<double>& v) {
                               return *std::max_element(v.begin(), v.end());
                             }),
                   0, "max");
    }
    expect_close(as_doubles(sum(view)), {ref_sum(values)}, 1e-5, "full sum", {ref_sum(sizes)});
  }
}

TEST_F(ArrayReduce, Int32SumPromotesToInt64AndIsExact) {
  std::vector<std::int32_t> host = random_values<std::int32_t>(4097, 1.0e9, 2.0e9, seed);
  std::int64_t expected = 0;
  for (auto v : host) expected += v;
  const Array s = sum(upload(host, {4097}));
  EXPECT_EQ(s.dtype(), DType::int64);
  EXPECT_EQ(s.item().as_int64(), expected);
}

TEST_F(ArrayReduce, BoolSumCountsTrueValues) {
  const auto values = random_values<float>(9999, 0.0, 1.0, seed);
  std::vector<std::uint8_t> bits(values.size());
  std::int64_t expected = 0;
  for (std::size_t k = 0; k < values.size(); ++k) expected += (bits[k] = values[k] < 0.3f ? 1 : 0);
  const Array b = from_host(bits.data(), {9999}, DType::bool_, stream);
  const Array s = sum(b);
  EXPECT_EQ(s.dtype(), DType::int64);
  EXPECT_EQ(s.item().as_int64(), expected);
}

TEST_F(ArrayReduce, MeanOfIntegersIsFloat64) {
  const auto host = random_values<std::int32_t>(1001, 1.0, 100.0, seed);
  const Array m = mean(upload(host, {1001}));
  EXPECT_EQ(m.dtype(), DType::float64);
  double expected = 0;
  for (auto v : host) expected += v;
  EXPECT_NEAR(m.item().as_double(), expected / 1001.0, 1e-12);
}

TEST_F(ArrayReduce, Float32SumOf2To24ElementsIsWithin1e5OfFloat64) {
  const std::size_t n = std::size_t{1} << 24;
  const auto host = random_values<float>(n, 0.0, 1.0, seed);
  double expected = 0;
  for (float v : host) expected += v;
  const double got = sum(upload(host, {static_cast<std::int64_t>(n)})).item().as_double();
  EXPECT_LT(std::fabs(got - expected) / expected, 1e-5)
      << "got " << got << ", expected " << expected;
}

TEST_F(ArrayReduce, FullSumIsBitwiseReproducible) {
  const auto host = random_values<float>(1000003, -1.0, 1.0, seed);
  const Array a = upload(host, {1000003});
  const float first = sum(a).to_host<float>()[0];
  for (int k = 0; k < 3; ++k) EXPECT_EQ(sum(a).to_host<float>()[0], first);
}

TEST_F(ArrayReduce, ContiguousSumAndDotUseVectorLoadsAndMatchReference) {
  std::vector<std::string> kernels;
  detail::set_source_observer(
      [&](const std::string& name, const std::string&) { kernels.push_back(name); });
  const auto x = random_values<double>(100003, -1.0, 1.0, seed),
             y = random_values<double>(100003, -1.0, 1.0, seed + 1);
  const Array a = upload(x, {100003}), b = upload(y, {100003});
  const double s = sum(a).item().as_double(), d = dot(a, b).item().as_double();
  // A view one element in is not 16-byte aligned: the element-wise path.
  const double s1 = sum(a.slice(0, 1, std::nullopt)).item().as_double();
  detail::set_source_observer({});
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0], "ck_sum_vector");
  EXPECT_EQ(kernels[1], "ck_dot_vector");
  EXPECT_EQ(kernels[2], "ck_sum_full");
  double want_s = 0, want_d = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    want_s += x[k];
    want_d += x[k] * y[k];
  }
  EXPECT_NEAR(s, want_s, 1e-10);
  EXPECT_NEAR(d, want_d, 1e-10);
  EXPECT_NEAR(s1, want_s - x[0], 1e-10);
}

TEST_F(ArrayReduce, SumOfSquaredDifferenceIsOneLaunch) {
  const auto x = random_values<float>(70001, -1.0, 1.0, seed);
  const auto y = random_values<float>(70001, -1.0, 1.0, seed + 1);
  const Array a = upload(x, {70001}), b = upload(y, {70001});
  const auto before = detail::array_kernel_launches();
  const Array r = sum(power(Expr(a) - Expr(b), Expr(2)));
  EXPECT_EQ(detail::array_kernel_launches() - before, 1u);
  double expected = 0;
  for (std::size_t k = 0; k < x.size(); ++k)
    expected += (double(x[k]) - y[k]) * (double(x[k]) - y[k]);
  EXPECT_NEAR(r.item().as_double(), expected, 1e-5 * expected);
}

TEST_F(ArrayReduce, DotIsOneLaunchAndMatchesReference) {
  const auto x = random_values<float>(123457, -1.0, 1.0, seed);
  const auto y = random_values<float>(123457, -1.0, 1.0, seed + 7);
  const Array a = upload(x, {123457}), b = upload(y, {123457});
  const auto before = detail::array_kernel_launches();
  const Array r = dot(a, b);
  EXPECT_EQ(detail::array_kernel_launches() - before, 1u);
  EXPECT_EQ(r.dtype(), DType::float32);
  double expected = 0;
  for (std::size_t k = 0; k < x.size(); ++k) expected += double(x[k]) * y[k];
  EXPECT_NEAR(r.item().as_double(), expected, 1e-4 * std::max(1.0, std::fabs(expected)));
}

TEST_F(ArrayReduce, VdotOfDifferentShapesFlattensBoth) {
  const auto x = random_values<double>(60, -1.0, 1.0, seed);
  const auto y = random_values<double>(60, -1.0, 1.0, seed + 3);
  double expected = 0;
  for (std::size_t k = 0; k < x.size(); ++k) expected += x[k] * y[k];
  EXPECT_NEAR(vdot(upload(x, {6, 10}), upload(y, {60})).item().as_double(), expected, 1e-12);
}

TEST_F(ArrayReduce, NormIsTheSquareRootOfTheSumOfSquares) {
  const auto host =
      random_values<float>(static_cast<std::size_t>(shape_size(shape3)), -1.0, 1.0, seed);
  const Array a = upload(host, shape3);
  const auto norm_ref = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x * x;
    return std::sqrt(s);
  };
  expect_close(as_doubles(norm(a)), {norm_ref(widen(host))}, 1e-5, "norm");
  expect_close(as_doubles(norm(a, 1)), reference(widen(host), shape3, {1}, norm_ref), 1e-5,
               "norm axis 1");
}

TEST_F(ArrayReduce, SumOfEmptyIsZeroAndProdOfEmptyIsOne) {
  const Array e = empty({0}, DType::float32, stream);
  EXPECT_EQ(sum(e).item().as_double(), 0.0);
  EXPECT_EQ(prod(e).item().as_double(), 1.0);
  const Array e2 = empty({4, 0}, DType::float64, stream);
  EXPECT_EQ(as_doubles(sum(e2, 1)), std::vector<double>(4, 0.0));
  EXPECT_EQ(sum(e2, 0).shape(), Shape{0});
}

TEST_F(ArrayReduce, MeanOfEmptyIsNaN) {
  EXPECT_TRUE(std::isnan(mean(empty({0}, DType::float64, stream)).item().as_double()));
}

TEST_F(ArrayReduce, MinOfEmptyIsAnError) {
  EXPECT_THROW(min(empty({0}, DType::float32, stream)), ArgumentError);
  EXPECT_THROW(argmax(empty({3, 0}, DType::float32, stream), 1), ArgumentError);
}

TEST_F(ArrayReduce, AxisOutOfRangeIsAnError) {
  const Array a = upload(random_values<float>(60, -1.0, 1.0, seed), {3, 4, 5});
  try {
    sum(a, 3);
    FAIL() << "no error";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("axis 3 is out of bounds for an array of dimension 3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(mean(a, -4), ArgumentError);
  EXPECT_THROW(argmin(a, 5), ArgumentError);
}

TEST_F(ArrayReduce, RepeatedAxisIsAnError) {
  const Array a = upload(random_values<float>(60, -1.0, 1.0, seed), {3, 4, 5});
  EXPECT_THROW(sum(a, {1, -2}), ArgumentError);
}

TEST_F(ArrayReduce, DotOfMisalignedVectorsIsAnError) {
  const Array a = upload(random_values<float>(10, -1.0, 1.0, seed), {10});
  const Array b = upload(random_values<float>(11, -1.0, 1.0, seed), {11});
  EXPECT_THROW(dot(a, b), ArgumentError);
  EXPECT_THROW(vdot(a, b), ArgumentError);
}

TEST_F(ArrayReduce, Float16ReductionsKeepTheDtypeAndAccumulateInFloat32) {
  const auto host = random_values<float>(4099, 0.0, 1.0, seed);
  const Array h = upload(host, {4099}).astype(DType::float16);
  const auto rounded = as_doubles(h);
  const Array s = sum(h), m = mean(h), mx = max(h);
  EXPECT_EQ(s.dtype(), DType::float16);
  EXPECT_EQ(m.dtype(), DType::float16);
  // float16 has 11 significant bits: the result is the float32 sum, rounded once.
  EXPECT_NEAR(s.item().as_double(), ref_sum(rounded), ref_sum(rounded) * 1e-3);
  EXPECT_NEAR(m.item().as_double(), ref_mean(rounded), 1e-3);
  EXPECT_EQ(mx.item().as_double(), *std::max_element(rounded.begin(), rounded.end()));
  EXPECT_EQ(argmax(h).item().as_int64(),
            std::max_element(rounded.begin(), rounded.end()) - rounded.begin());
}

TEST_F(ArrayReduce, ComplexSumAndMeanMatchReference) {
  const auto re = random_values<float>(1001, -1.0, 1.0, seed),
             im = random_values<float>(1001, -1.0, 1.0, seed + 1);
  std::vector<std::complex<float>> host(1001);
  std::complex<double> want = 0;
  for (std::size_t k = 0; k < host.size(); ++k) {
    host[k] = {re[k], im[k]};
    want += std::complex<double>(re[k], im[k]);
  }
  const Array c = upload(host, {1001});
  const Array s = sum(c);
  EXPECT_EQ(s.dtype(), DType::complex64);
  EXPECT_NEAR(s.item().as_complex().real(), want.real(), 1e-3);
  EXPECT_NEAR(s.item().as_complex().imag(), want.imag(), 1e-3);
  const auto m = mean(c).item().as_complex();
  EXPECT_NEAR(m.real(), want.real() / 1001.0, 1e-5);
  EXPECT_NEAR(m.imag(), want.imag() / 1001.0, 1e-5);
}

// NumPy orders complex numbers by real part, then imaginary part: min, max,
// argmin and argmax follow that order (first position on ties, a NaN wins).
TEST_F(ArrayReduce, ComplexExtremesOrderLexicographically) {
  using Z = std::complex<double>;
  const auto re = random_values<float>(3 * 1001, -3.0, 3.0, seed),
             im = random_values<float>(3 * 1001, -1.0, 1.0, seed + 1);
  std::vector<Z> host(re.size());
  // Few distinct real parts, so the imaginary part often decides.
  for (std::size_t k = 0; k < host.size(); ++k) host[k] = {std::round(re[k]), im[k]};
  const auto less = [](Z a, Z b) {
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  };
  const Array c = upload(host, {3, 1001});
  for (int row = 0; row < 3; ++row) {
    const auto first = host.begin() + row * 1001, last = first + 1001;
    const auto lo = std::min_element(first, last, less), hi = std::max_element(first, last, less);
    EXPECT_EQ(as_complexes(min(c, Axes(1)))[static_cast<std::size_t>(row)], *lo) << row;
    EXPECT_EQ(as_complexes(max(c, Axes(1)))[static_cast<std::size_t>(row)], *hi) << row;
    EXPECT_EQ(as_doubles(argmin(c, 1))[static_cast<std::size_t>(row)], double(lo - first));
    EXPECT_EQ(as_doubles(argmax(c, 1))[static_cast<std::size_t>(row)], double(hi - first));
  }
  const auto all_lo = std::min_element(host.begin(), host.end(), less);
  EXPECT_EQ(min(c).item().as_complex(), *all_lo);
  EXPECT_EQ(argmin(c).item().as_int64(), all_lo - host.begin());
  // complex64 and a NaN: the NaN is the result, its position the arg.
  std::vector<std::complex<float>> f(host.begin(), host.end());
  f[1500] = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  const Array cf = upload(f, {3 * 1001});
  EXPECT_TRUE(std::isnan(max(cf).item().as_complex().imag()));
  EXPECT_EQ(argmax(cf).item().as_int64(), 1500);
  EXPECT_EQ(argmin(cf).item().as_int64(), 1500);
}

}  // namespace

// NumPy: sum([1, inf, 2]) is inf and sum([inf, -inf]) NaN; the compensated
// sum must not turn an infinite running total into NaN (inf - inf in the
// correction term), on the full-reduction path or along an axis.
TEST_F(ArrayReduce, SumAndMeanOfInfiniteValuesAreInfinite) {
  const float inf = std::numeric_limits<float>::infinity();
  auto host = random_values<float>(5003, -2.0, 2.0, seed);
  host[1234] = inf;
  const Array a = upload(host, Shape{5003});
  EXPECT_EQ(sum(a).item().as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(mean(a).item().as_double(), std::numeric_limits<double>::infinity());
  host[4000] = -inf;
  EXPECT_TRUE(std::isnan(sum(upload(host, Shape{5003})).item().as_double()));
  auto rows = random_values<float>(3 * 1001, -2.0, 2.0, seed + 1);
  rows[1001 + 17] = -inf;
  const Array r = sum(upload(rows, Shape{3, 1001}), Axes(1));
  const auto got = as_doubles(r);
  EXPECT_TRUE(std::isfinite(got[0]));
  EXPECT_EQ(got[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isfinite(got[2]));
}
