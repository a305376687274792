// ReductionKernel (PyCUDA's semantics) on the CPU backend, on contiguous
// arrays and on strided views of every kind.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "array/reduce_source_hook.hpp"
#include "cudakit/error.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

class ArrayReductionKernel : public ::testing::Test {
 protected:
  Device device = Device::get(BackendKind::cpu, 0);
  DeviceScope scope{device};
  Stream stream = device.default_stream();
  std::uint32_t seed = fresh_seed();

  template <class T>
  Array upload(const std::vector<T>& host, const Shape& shape) {
    return from_host(host.data(), shape, dtype_of<T>(), stream);
  }
};

TEST_F(ArrayReductionKernel, DotProductMatchesReference) {
  ReductionKernel dot(DType::float64, "0", "a + b", "x[i] * y[i]",
                      "const double* x, const double* y");
  const auto x = random_values<double>(100003, -1.0, 1.0, seed),
             y = random_values<double>(100003, -1.0, 1.0, seed + 1);
  double want = 0;
  for (std::size_t k = 0; k < x.size(); ++k) want += x[k] * y[k];
  const Array r = dot(upload(x, {100003}), upload(y, {100003}));
  EXPECT_EQ(r.ndim(), 0);
  EXPECT_NEAR(r.item().as_double(), want, 1e-9);
}

TEST_F(ArrayReductionKernel, ScalarArgumentsReachTheMap) {
  ReductionKernel scaled_max(DType::float32, "-1e30f", "a > b ? a : b", "x[i] * scale + shift",
                             "const float* x, float scale, int shift");
  const auto x = random_values<float>(5001, -3.0, 3.0, seed);
  float want = -1e30f;
  for (float v : x) want = std::max(want, v * 2.5f + 4);
  EXPECT_FLOAT_EQ(scaled_max(upload(x, {5001}), 2.5, 4).item().as_double(), want);
}

TEST_F(ArrayReductionKernel, PreambleFunctionsCanBeUsed) {
  ReductionKernel count(DType::int64, "0", "a + b", "is_big(x[i]) ? 1 : 0", "const int* x",
                        "count_big", "__device__ bool is_big(int v) { return v > 500; }");
  const auto x = random_values<std::int32_t>(7777, 1.0, 1000.0, seed);
  EXPECT_EQ(count(upload(x, {7777})).item().as_int64(),
            std::count_if(x.begin(), x.end(), [](int v) { return v > 500; }));
}

TEST_F(ArrayReductionKernel, WrongArgumentCountIsAnError) {
  ReductionKernel k(DType::float32, "0", "a + b", "x[i]", "const float* x");
  const Array a = upload(random_values<float>(8, 0.0, 1.0, seed), {8});
  EXPECT_THROW(k(a, a), ArgumentError);
}

TEST_F(ArrayReductionKernel, WrongArrayDtypeIsAnError) {
  ReductionKernel k(DType::float32, "0", "a + b", "x[i]", "const float* x");
  EXPECT_THROW(k(upload(random_values<double>(8, 0.0, 1.0, seed), {8})), ArgumentError);
}

TEST_F(ArrayReductionKernel, NumberForAPointerIsAnError) {
  ReductionKernel k(DType::float32, "0", "a + b", "x[i] * s", "const float* x, float s");
  const Array a = upload(random_values<float>(8, 0.0, 1.0, seed), {8});
  EXPECT_THROW(k(2.0, a), ArgumentError);
}

// x[i] is element i of the argument in C order, whatever its layout.
std::vector<double> c_order(const Array& a) { return as_doubles(a); }

TEST_F(ArrayReductionKernel, TransposedViewIsReadInCOrder) {
  ReductionKernel dot(DType::float64, "0", "a + b", "x[i] * y[i]",
                      "const double* x, const double* y");
  const auto xh = random_values<double>(37 * 53, -1.0, 1.0, seed),
             yh = random_values<double>(53 * 37, -1.0, 1.0, seed + 1);
  const Array x = upload(xh, {37, 53}).transpose();  // (53, 37), strides (1, 53)
  const Array y = upload(yh, {53, 37});
  ASSERT_FALSE(x.is_c_contiguous());
  const auto xv = c_order(x);
  double want = 0;
  for (std::size_t k = 0; k < yh.size(); ++k) want += xv[k] * yh[k];
  EXPECT_NEAR(dot(x, y).item().as_double(), want, 1e-10);
}

TEST_F(ArrayReductionKernel, NegativeStepSliceMatchesReference) {
  ReductionKernel weighted(DType::float32, "0", "a + b", "x[i] * (float)(i % 7)", "const float* x");
  const auto xh = random_values<float>(10007, -2.0, 2.0, seed);
  const Array x = upload(xh, {10007}).slice(0, std::nullopt, std::nullopt, -3);
  ASSERT_FALSE(x.is_c_contiguous());
  const auto xv = c_order(x);
  double want = 0, scale = 0;
  for (std::size_t k = 0; k < xv.size(); ++k) {
    want += xv[k] * static_cast<double>(k % 7);
    scale += std::fabs(xv[k]) * static_cast<double>(k % 7);
  }
  expect_close({weighted(x).item().as_double()}, {want}, 1e-5, "weighted", {scale * 8});
}

TEST_F(ArrayReductionKernel, SteppedSlicesOfThreeDimensionsMatchReference) {
  ReductionKernel max_abs(DType::float64, "0", "a > b ? a : b", "fabs(x[i])", "const double* x");
  const auto xh = random_values<double>(9 * 31 * 41, -5.0, 5.0, seed);
  const Array x = upload(xh, {9, 31, 41})
                      .slice(0, 1, std::nullopt, 2)
                      .slice(1, std::nullopt, std::nullopt, -1)
                      .slice(2, 3, 40, 3);
  ASSERT_FALSE(x.is_c_contiguous());
  double want = 0;
  for (double v : c_order(x)) want = std::max(want, std::fabs(v));
  EXPECT_EQ(max_abs(x).item().as_double(), want);
}

TEST_F(ArrayReductionKernel, BroadcastViewRepeatsItsRow) {
  ReductionKernel weighted(DType::float64, "0", "a + b", "w[i] * x[i]",
                           "const double* w, const double* x");
  const auto wh = random_values<double>(41, -1.0, 1.0, seed),
             xh = random_values<double>(29 * 41, -1.0, 1.0, seed + 1);
  const Array w = upload(wh, {41}).broadcast_to({29, 41});  // stride 0 along axis 0
  double want = 0;
  for (std::size_t k = 0; k < xh.size(); ++k) want += wh[k % 41] * xh[k];
  EXPECT_NEAR(weighted(w, upload(xh, {29, 41})).item().as_double(), want, 1e-10);
}

TEST_F(ArrayReductionKernel, ViewsOfDifferentLayoutsCombine) {
  // Every argument strided, each its own way; int64 output from int32 input.
  ReductionKernel count(DType::int64, "0", "a + b", "x[i] < y[i] ? 1 : 0",
                        "const int* x, const int* y");
  const auto xh = random_values<std::int32_t>(30 * 22, -50.0, 50.0, seed),
             yh = random_values<std::int32_t>(22 * 30 * 2, -50.0, 50.0, seed + 1);
  const Array x = upload(xh, {30, 22}).transpose();                              // (22, 30)
  const Array y = upload(yh, {22, 60}).slice(1, std::nullopt, std::nullopt, 2);  // (22, 30)
  const auto xv = c_order(x), yv = c_order(y);
  std::int64_t want = 0;
  for (std::size_t k = 0; k < xv.size(); ++k) want += xv[k] < yv[k] ? 1 : 0;
  EXPECT_EQ(count(x, y).item().as_int64(), want);
}

TEST_F(ArrayReductionKernel, PointerArithmeticOnAViewReadsACopy) {
  // `*(x + i)` needs a real pointer: the view is copied to contiguous memory first.
  ReductionKernel total(DType::float64, "0", "a + b", "*(x + i)", "const double* x");
  const auto xh = random_values<double>(2 * 999, -1.0, 1.0, seed);
  const Array x = upload(xh, {999, 2}).transpose();  // (2, 999)
  double want = 0;
  for (double v : c_order(x)) want += v;
  EXPECT_NEAR(total(x).item().as_double(), want, 1e-10);
}

TEST_F(ArrayReductionKernel, ContiguousArgumentsKeepPlainPointers) {
  ReductionKernel total(DType::float32, "0", "a + b", "x[i]", "const float* x", "plain_total");
  std::string seen;
  detail::set_source_observer([&](const std::string&, const std::string& src) { seen = src; });
  const Array x = upload(random_values<float>(300, 0.0, 1.0, seed), {300});
  (void)total(x);
  EXPECT_NE(seen.find("plain_total(const float* x,"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("ck_view_x"), std::string::npos);
  (void)total(x.slice(0, std::nullopt, std::nullopt, -1));
  detail::set_source_observer({});
  EXPECT_NE(seen.find("plain_total(ck_view_x x,"), std::string::npos) << seen;
}

TEST_F(ArrayReductionKernel, BadDefinitionsAreErrors) {
  EXPECT_THROW(ReductionKernel(DType::float32, "", "a + b", "x[i]", "const float* x"),
               ArgumentError);
  EXPECT_THROW(ReductionKernel(DType::float32, "0", "a + b", "x[i]", "const float* x", "bad name"),
               ArgumentError);
  EXPECT_THROW(ReductionKernel(DType::float32, "0", "a + b", "n", "int n"), ArgumentError);
  EXPECT_THROW(ReductionKernel(DType::float32, "0", "a + b", "x[i]", "const float*"),
               ArgumentError);
}

// size_t and unsigned long long are scalar types of the argument list (they
// were unknown to the reduction's own table), read by the core's C-types module.
TEST_F(ArrayReductionKernel, SizeTAndUnsignedLongLongArguments) {
  ReductionKernel count_above(DType::uint64, "0", "a + b",
                              "(x[i] > threshold ? offset : (unsigned long long)0) + bias",
                              "const unsigned long long* x, size_t threshold, "
                              "unsigned long long offset, size_t bias");
  ASSERT_EQ(count_above.params().size(), 4u);
  EXPECT_TRUE(count_above.params()[0].pointer);
  EXPECT_FALSE(count_above.params()[1].pointer);
  const std::uint64_t big = std::uint64_t{1} << 40;
  std::vector<std::uint64_t> x(4099);
  const auto r = random_values<double>(x.size(), 0.0, 2.0, seed);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = big + static_cast<std::uint64_t>(r[k] * 1e6);
  const std::uint64_t threshold = big + 1000000, offset = (std::uint64_t{1} << 36) + 3, bias = 5;
  std::uint64_t want = 0;
  for (std::uint64_t v : x) want += (v > threshold ? offset : 0) + bias;
  const Array got = count_above(upload(x, {4099}), Scalar(threshold), Scalar(offset), Scalar(bias));
  EXPECT_EQ(got.item().as_uint64(), want);
  // The pointee type is checked: an int64 array does not pass as unsigned long long*.
  std::vector<std::int64_t> signed_values(10, 1);
  EXPECT_THROW(
      count_above(upload(signed_values, {10}), Scalar(threshold), Scalar(offset), Scalar(bias)),
      ArgumentError);
}

// A template type's comma does not split the argument list.
TEST_F(ArrayReductionKernel, TemplateTypesKeepTheirCommas) {
  ReductionKernel sum(DType::float32, "0", "a + b", "x[i] * scale",
                      "const Pick<int, float>::type* x, Pick<long, float>::type scale", "picked",
                      "template <class A, class B> struct Pick { typedef B type; };");
  ASSERT_EQ(sum.params().size(), 2u);
  EXPECT_EQ(sum.params()[0].type, "const Pick<int, float>::type*");
  EXPECT_EQ(sum.params()[1].name, "scale");
  EXPECT_FALSE(sum.params()[1].pointer);
  const auto x = random_values<float>(3001, -1.0, 1.0, seed);
  double want = 0;
  for (float v : x) want += 0.5 * v;
  // "Pick<long, float>::type" is not a type cudakit can convert a number to.
  EXPECT_THROW(sum(upload(x, {3001}), 0.5), ArgumentError);
  ReductionKernel plain(DType::float32, "0", "a + b", "x[i] * scale",
                        "const Pick<int, float>::type* x, float scale", "picked_plain",
                        "template <class A, class B> struct Pick { typedef B type; };");
  EXPECT_NEAR(plain(upload(x, {3001}), 0.5).item().as_double(), want, 1e-3);
}

// Every scalar spelling of the argument list is accepted and converted.
TEST_F(ArrayReductionKernel, EveryScalarSpellingIsAnArgument) {
  const char* spellings[] = {"bool",
                             "char",
                             "signed char",
                             "int8_t",
                             "unsigned char",
                             "uint8_t",
                             "short",
                             "unsigned short",
                             "int16_t",
                             "uint16_t",
                             "int",
                             "unsigned",
                             "unsigned int",
                             "int32_t",
                             "uint32_t",
                             "long",
                             "unsigned long",
                             "long long",
                             "unsigned long long",
                             "int64_t",
                             "uint64_t",
                             "size_t",
                             "ptrdiff_t",
                             "float",
                             "double"};
  const std::vector<int> x{3, 1, 4, 1, 5, 9, 2, 6, 5};
  for (const std::string type : spellings) {
    ReductionKernel k(DType::int64, "0", "a + b", "x[i] + (long long)v",
                      "const int* x, const " + type + " v", "spelled");
    ASSERT_EQ(k.params().size(), 2u) << type;
    EXPECT_FALSE(k.params()[1].pointer) << type;
  }
  // Each run compiles a kernel: a few spellings of each kind run.
  for (const std::string type :
       {"bool", "unsigned char", "size_t", "unsigned long long", "double"}) {
    ReductionKernel k(DType::int64, "0", "a + b", "x[i] + (long long)v",
                      "const int* x, const " + type + " v", "spelled");
    EXPECT_EQ(k(upload(x, {9}), 1).item().as_int64(), 36 + 9) << type;
  }
}

}  // namespace
