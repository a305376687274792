// norm(a, ord, axes, keepdims) against numpy.linalg.norm's definitions,
// computed on the host in double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cudakit/array_reduce.hpp"
#include "cudakit/error.hpp"
#include "unit/array_test_support.hpp"

namespace array_test {
namespace {

using ck::DType;
using ck::NormOrder;

const double kInf = std::numeric_limits<double>::infinity();

// numpy.linalg.norm of a vector of magnitudes |x|.
double vector_norm_ref(const std::vector<double>& mag, double p) {
  if (std::isinf(p))
    return p > 0 ? *std::max_element(mag.begin(), mag.end())
                 : *std::min_element(mag.begin(), mag.end());
  double s = 0;
  if (p == 0) {
    for (double m : mag) s += m != 0;
    return s;
  }
  for (double m : mag) s += std::pow(m, p);
  return std::pow(s, 1.0 / p);
}

std::vector<double> magnitudes(const std::vector<double>& v) {
  std::vector<double> m(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) m[k] = std::fabs(v[k]);
  return m;
}

class ArrayNorm : public ArrayTest {
 protected:
  // Random values of dtype (as stored), with a few exact zeros.
  std::vector<double> values(std::size_t n, DType dtype) {
    auto v = random_doubles(n, -3.0, 3.0);
    for (std::size_t k = 0; k < n; k += 17) v[k] = 0;
    for (auto& x : v) x = round_to(x, dtype);
    return v;
  }
};

TEST_F(ArrayNorm, DefaultOrderIsTheFlattened2Norm) {
  const auto v = values(5 * 37 * 3, DType::float64);
  const ck::Array a = make_array(v, DType::float64, {5, 37, 3});
  const auto got = host_doubles(ck::norm(a, NormOrder()));
  expect_close(got, host_doubles(ck::norm(a)), DType::float64, "norm(a, None)");
  expect_close(got, {vector_norm_ref(magnitudes(v), 2)}, DType::float64, "norm(a, None) ref", 10);
}

// The overload without an order is unchanged: an int is an axis, {} all axes.
TEST_F(ArrayNorm, CallsWithoutAnOrderKeepTheirMeaning) {
  const auto v = values(6 * 41, DType::float64);
  const ck::Array a = make_array(v, DType::float64, {6, 41});
  EXPECT_EQ(ck::norm(a, 1).shape(), (ck::Shape{6}));
  EXPECT_EQ(ck::norm(a, {}, true).shape(), (ck::Shape{1, 1}));
  expect_close(host_doubles(ck::norm(a, {}, true)), {vector_norm_ref(magnitudes(v), 2)},
               DType::float64, "norm(a, {}, true)", 10);
}

TEST_F(ArrayNorm, VectorOrdersMatchNumPysDefinitions) {
  const std::size_t n = 1001;
  const auto v = values(n, DType::float32);
  const ck::Array a = make_array(v, DType::float32, {static_cast<std::int64_t>(n)});
  for (double p : {1.0, 2.0, kInf, -kInf, 0.0, 3.0, 0.5, -1.5}) {
    const ck::Array r = ck::norm(a, NormOrder(p));
    ASSERT_EQ(r.dtype(), DType::float32) << p;
    ASSERT_EQ(r.ndim(), 0) << p;
    expect_close(host_doubles(r), {vector_norm_ref(magnitudes(v), p)}, DType::float32,
                 "ord " + NormOrder(p).to_string(), 10);
  }
  expect_close(host_doubles(ck::norm(a, NormOrder::inf())), {vector_norm_ref(magnitudes(v), kInf)},
               DType::float32, "NormOrder::inf()");
  expect_close(host_doubles(ck::norm(a, NormOrder::neg_inf())),
               {vector_norm_ref(magnitudes(v), -kInf)}, DType::float32, "NormOrder::neg_inf()");
}

TEST_F(ArrayNorm, VectorNormAlongOneAxisKeepsDims) {
  const std::int64_t d0 = 5, d1 = 37, d2 = 3;
  const auto v = values(static_cast<std::size_t>(d0 * d1 * d2), DType::float64);
  const ck::Array a = make_array(v, DType::float64, {d0, d1, d2});
  for (double p : {3.0, kInf, 1.0}) {
    const ck::Array r = ck::norm(a, NormOrder(p), 1, true);
    ASSERT_EQ(r.shape(), (ck::Shape{d0, 1, d2})) << p;
    std::vector<double> want;
    for (std::int64_t i = 0; i < d0; ++i)
      for (std::int64_t k = 0; k < d2; ++k) {
        std::vector<double> line;
        for (std::int64_t j = 0; j < d1; ++j)
          line.push_back(std::fabs(v[static_cast<std::size_t>((i * d1 + j) * d2 + k)]));
        want.push_back(vector_norm_ref(line, p));
      }
    expect_close(host_doubles(r), want, DType::float64, "ord " + NormOrder(p).to_string(), 10);
  }
}

TEST_F(ArrayNorm, ZeroOrderCountsNonZerosAsFloat64ForIntegers) {
  const std::vector<double> v = {0, 3, -2, 0, 0, 7, 1, 0, -9, 4, 0};
  const ck::Array r = ck::norm(make_array(v, DType::int32, {11}), NormOrder(0));
  ASSERT_EQ(r.dtype(), DType::float64);
  EXPECT_EQ(host_doubles(r), std::vector<double>{6.0});
}

TEST_F(ArrayNorm, IntegerInputIsNormedInFloat64) {
  const auto v = values(333, DType::int16);
  const ck::Array r = ck::norm(make_array(v, DType::int16, {333}), NormOrder(1));
  ASSERT_EQ(r.dtype(), DType::float64);
  expect_close(host_doubles(r), {vector_norm_ref(magnitudes(v), 1)}, DType::float64, "ord 1");
}

TEST_F(ArrayNorm, ComplexInputUsesTheModulus) {
  const std::size_t n = 515;
  const auto re = random_doubles(n), im = random_doubles(n);
  std::vector<std::complex<float>> z(n);
  std::vector<double> mag(n);
  for (std::size_t k = 0; k < n; ++k) {
    z[k] = {static_cast<float>(re[k]), static_cast<float>(im[k])};
    mag[k] = std::abs(std::complex<double>(z[k].real(), z[k].imag()));
  }
  const ck::Array a = ck::from_host(z);
  for (double p : {1.0, 2.0, kInf, 2.5}) {
    const ck::Array r = ck::norm(a, NormOrder(p));
    ASSERT_EQ(r.dtype(), DType::float32) << p;
    expect_close(host_doubles(r), {vector_norm_ref(mag, p)}, DType::float32,
                 "complex ord " + NormOrder(p).to_string(), 10);
  }
}

// A matrix's 1-norm is its largest column sum of |x|, inf-norm its largest
// row sum (-1 / -inf: the smallest).
TEST_F(ArrayNorm, MatrixOrdersAreColumnAndRowSums) {
  const std::int64_t rows = 37, cols = 29;
  const auto v = values(static_cast<std::size_t>(rows * cols), DType::float64);
  const ck::Array a = make_array(v, DType::float64, {rows, cols});
  std::vector<double> col_sums(static_cast<std::size_t>(cols), 0.0),
      row_sums(static_cast<std::size_t>(rows), 0.0);
  double fro = 0;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const double m = std::fabs(v[static_cast<std::size_t>(i * cols + j)]);
      col_sums[static_cast<std::size_t>(j)] += m;
      row_sums[static_cast<std::size_t>(i)] += m;
      fro += m * m;
    }
  const auto max_of = [](const std::vector<double>& s) {
    return *std::max_element(s.begin(), s.end());
  };
  const auto min_of = [](const std::vector<double>& s) {
    return *std::min_element(s.begin(), s.end());
  };
  expect_close(host_doubles(ck::norm(a, NormOrder(1))), {max_of(col_sums)}, DType::float64, "1",
               10);
  expect_close(host_doubles(ck::norm(a, NormOrder(-1))), {min_of(col_sums)}, DType::float64, "-1",
               10);
  expect_close(host_doubles(ck::norm(a, NormOrder::inf())), {max_of(row_sums)}, DType::float64,
               "inf", 10);
  expect_close(host_doubles(ck::norm(a, NormOrder::neg_inf())), {min_of(row_sums)}, DType::float64,
               "-inf", 10);
  expect_close(host_doubles(ck::norm(a, NormOrder::fro())), {std::sqrt(fro)}, DType::float64, "fro",
               10);
}

// axes {2, 0}: rows along axis 2, columns along axis 0, one norm per index of axis 1.
TEST_F(ArrayNorm, MatrixNormOverTwoAxesOfA3DArray) {
  const std::int64_t d0 = 4, d1 = 33, d2 = 7;
  const auto v = values(static_cast<std::size_t>(d0 * d1 * d2), DType::float32);
  const ck::Array a = make_array(v, DType::float32, {d0, d1, d2});
  const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return std::fabs(v[static_cast<std::size_t>((i * d1 + j) * d2 + k)]);
  };
  std::vector<double> one, inf;
  for (std::int64_t j = 0; j < d1; ++j) {
    // Matrix m[r][c] = a[c][j][r]: columns are indexed by axis 0.
    double best_col = 0, best_row = 0;
    for (std::int64_t c = 0; c < d0; ++c) {
      double s = 0;
      for (std::int64_t r = 0; r < d2; ++r) s += at(c, j, r);
      best_col = std::max(best_col, s);
    }
    for (std::int64_t r = 0; r < d2; ++r) {
      double s = 0;
      for (std::int64_t c = 0; c < d0; ++c) s += at(c, j, r);
      best_row = std::max(best_row, s);
    }
    one.push_back(best_col);
    inf.push_back(best_row);
  }
  const ck::Array r1 = ck::norm(a, NormOrder(1), {2, 0});
  ASSERT_EQ(r1.shape(), (ck::Shape{d1}));
  expect_close(host_doubles(r1), one, DType::float32, "ord 1 axes (2, 0)", 10);
  const ck::Array rinf = ck::norm(a, NormOrder::inf(), {2, 0}, true);
  ASSERT_EQ(rinf.shape(), (ck::Shape{1, d1, 1}));
  expect_close(host_doubles(rinf), inf, DType::float32, "ord inf axes (2, 0) keepdims", 10);
}

TEST_F(ArrayNorm, OrderToStringNamesIt) {
  EXPECT_EQ(NormOrder().to_string(), "None");
  EXPECT_EQ(NormOrder::fro().to_string(), "'fro'");
  EXPECT_EQ(NormOrder::nuc().to_string(), "'nuc'");
  EXPECT_EQ(NormOrder::inf().to_string(), "inf");
  EXPECT_EQ(NormOrder::neg_inf().to_string(), "-inf");
  EXPECT_EQ(NormOrder(0.5).to_string(), "0.5");
  EXPECT_EQ(NormOrder(2).to_string(), "2");
}

// ---- bad input ------------------------------------------------------------

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ck::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(ArrayNorm, MatrixTwoNormIsNotSupported) {
  const ck::Array a = ck::ones({3, 4}, DType::float64);
  EXPECT_THROW((void)ck::norm(a, NormOrder(2)), ck::NotSupported);
  EXPECT_NE(message_of([&] { (void)ck::norm(a, NormOrder(-2)); }).find("singular value"),
            std::string::npos);
}

TEST_F(ArrayNorm, NuclearNormIsNotSupported) {
  const ck::Array a = ck::ones({3, 4}, DType::float32);
  EXPECT_THROW((void)ck::norm(a, NormOrder::nuc()), ck::NotSupported);
}

TEST_F(ArrayNorm, FrobeniusOrderOfAVectorIsAnArgumentError) {
  const ck::Array a = ck::ones({3, 4}, DType::float32);
  EXPECT_THROW((void)ck::norm(a, NormOrder::fro(), 1), ck::ArgumentError);
  EXPECT_NE(message_of([&] { (void)ck::norm(ck::ones({5}), NormOrder::fro()); }).find("'fro'"),
            std::string::npos);
}

TEST_F(ArrayNorm, OrderThreeOfAMatrixIsAnArgumentError) {
  const ck::Array a = ck::ones({3, 4}, DType::float64);
  EXPECT_THROW((void)ck::norm(a, NormOrder(3)), ck::ArgumentError);
}

TEST_F(ArrayNorm, OrderOfA3DArrayWithoutAxesIsAnArgumentError) {
  const ck::Array a = ck::ones({2, 3, 4}, DType::float64);
  EXPECT_THROW((void)ck::norm(a, NormOrder(1)), ck::ArgumentError);
  EXPECT_NO_THROW((void)ck::norm(a, NormOrder()));  // None flattens, as in NumPy
}

TEST_F(ArrayNorm, ThreeAxesAreAnArgumentError) {
  const ck::Array a = ck::ones({2, 3, 4}, DType::float64);
  EXPECT_THROW((void)ck::norm(a, NormOrder(1), {0, 1, 2}), ck::ArgumentError);
}

TEST_F(ArrayNorm, RepeatedAxisIsAnArgumentError) {
  const ck::Array a = ck::ones({3, 4}, DType::float64);
  EXPECT_THROW((void)ck::norm(a, NormOrder(1), {1, -1}), ck::ArgumentError);
}

TEST_F(ArrayNorm, AxisOutOfRangeIsAnArgumentError) {
  const ck::Array a = ck::ones({3, 4}, DType::float64);
  EXPECT_THROW((void)ck::norm(a, NormOrder(1), 2), ck::ArgumentError);
}

}  // namespace
}  // namespace array_test
