// ElementwiseKernel with PyCUDA's semantics: `i` is the index, arguments are
// checked against the declared list, numbers converted to declared types.
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/error.hpp"
#include "unit/array_test_support.hpp"

using namespace array_test;
using ck::DType;

namespace {
class ElementwiseKernelTest : public ArrayTest {};
}  // namespace

TEST_F(ElementwiseKernelTest, LinearCombinationConvertsTheScalar) {
  ck::ElementwiseKernel k("float a, const float *x, const float *y, float *z",
                          "z[i] = a * x[i] + y[i]", "linear_combination");
  auto x = random_values<float>(1001), y = random_values<float>(1001);
  ck::Array dx = ck::from_host(x), dy = ck::from_host(y), dz = ck::empty({1001});
  k({2.5, dx, dy, dz});  // a double 2.5 reaches the float parameter as a float
  auto z = dz.to_host<float>();
  // A GPU contracts a * x + y into one fused multiply-add (one rounding), so
  // the tolerance scales with the terms, not with the possibly tiny result.
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(z[i], 2.5f * x[i] + y[i], 2e-7f * (std::fabs(2.5f * x[i]) + std::fabs(y[i])));
}

TEST_F(ElementwiseKernelTest, RangeAndSliceChooseTheIndices) {
  ck::ElementwiseKernel k("int *z", "z[i] = (int)i + 100", "mark");
  ck::Array z = ck::zeros({20}, DType::int32);
  k({z}, ck::ElementwiseKernel::Range{2, 11, 3});
  auto h = z.to_host<std::int32_t>();
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(h[static_cast<std::size_t>(i)], (i >= 2 && i < 11 && (i - 2) % 3 == 0) ? i + 100 : 0);
  ck::Array w = ck::zeros({10}, DType::int32);
  k({w}, ck::Slice(std::nullopt, std::nullopt, -4));
  auto g = w.to_host<std::int32_t>();
  EXPECT_EQ(g, (std::vector<std::int32_t>{0, 101, 0, 0, 0, 105, 0, 0, 0, 109}));
}

TEST_F(ElementwiseKernelTest, PreambleHelpersAndHalfTypes) {
  ck::ElementwiseKernel k("const cudakit_half *x, float *y", "y[i] = twice(cudakit_h2f(x[i]))",
                          "use_preamble",
                          "__device__ inline float twice(float v) { return 2 * v; }");
  ck::Array x = make_array({1, -2, 0.5}, DType::float16, {3}), y = ck::empty({3});
  k({x, y});
  EXPECT_EQ(y.to_host<float>(), (std::vector<float>{2, -4, 1}));
}

TEST_F(ElementwiseKernelTest, ArrayOfTheWrongDtypeIsAnError) {
  ck::ElementwiseKernel k("float *x", "x[i] = 0", "zero");
  EXPECT_THROW(k({ck::ones({4}, DType::float64)}), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, WrongArgumentCountIsAnError) {
  ck::ElementwiseKernel k("float a, float *x", "x[i] = a", "set");
  EXPECT_THROW(k({ck::ones({4})}), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, NumberForAPointerIsAnError) {
  ck::ElementwiseKernel k("float a, float *x", "x[i] = a", "set");
  EXPECT_THROW(k({1.0, 2.0}), ck::ArgumentError);
  EXPECT_THROW(k({ck::ones({4}), ck::ones({4})}), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, FloatForAnIntegerParameterIsAnError) {
  ck::ElementwiseKernel k("int a, int *x", "x[i] = a", "set_int");
  EXPECT_THROW(k({1.5, ck::ones({4}, DType::int32)}), ck::ArgumentError);
  ck::Array x = ck::zeros({4}, DType::int32);
  k({7, x});
  EXPECT_EQ(x.to_host<std::int32_t>(), (std::vector<std::int32_t>{7, 7, 7, 7}));
}

TEST_F(ElementwiseKernelTest, NonContiguousArrayIsAnError) {
  ck::ElementwiseKernel k("float *x", "x[i] = 0", "zero");
  EXPECT_THROW(k({ck::ones({8}).slice(0, std::nullopt, std::nullopt, 2)}), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, BadArgumentListIsAnError) {
  EXPECT_THROW(ck::ElementwiseKernel("float", "x[i] = 0", "k"), ck::ArgumentError);
  EXPECT_THROW(ck::ElementwiseKernel("struct foo f, float *x", "x[i] = 0", "k"), ck::ArgumentError);
  EXPECT_THROW(ck::ElementwiseKernel("float *x", "", "k"), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, SourceIsReadable) {
  ck::ElementwiseKernel k("float *x", "x[i] = 1", "ones_kernel");
  std::string src = k.source();
  EXPECT_NE(src.find("extern \"C\" __global__ void ones_kernel(float *x, int cudakit_start"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("x[i] = 1;"), std::string::npos);
  EXPECT_EQ(k.params().size(), 1u);
  EXPECT_EQ(k.params()[0].dtype, DType::float32);
  EXPECT_TRUE(k.params()[0].pointer);
}
