// Arrays: creation, host round trips, views (slices, reshape, transpose,
// squeeze, broadcast), joins, take/put, printing and the interop hooks.
#include <numeric>
#include <sstream>

#include "cudakit/array_indexing.hpp"
#include "cudakit/array_join.hpp"
#include "cudakit/error.hpp"
#include "unit/array_test_support.hpp"

using namespace array_test;
using ck::DType;

namespace {
class ArrayView : public ArrayTest {
 protected:
  // 0, 1, 2, ... as float64 in `shape`.
  ck::Array iota(const ck::Shape& shape, DType dtype = DType::float64) {
    std::vector<double> v(static_cast<std::size_t>(ck::shape_size(shape)));
    std::iota(v.begin(), v.end(), 0.0);
    return make_array(v, dtype, shape);
  }
};
}  // namespace

TEST_F(ArrayView, HostRoundTripForEveryDtype) {
  for (int k = 0; k < ck::dtype_count; ++k) {
    auto d = static_cast<DType>(k);
    if (ck::is_complex(d)) continue;
    std::vector<double> v;
    for (double x : random_doubles(1001, 1, 100)) v.push_back(std::round(x));
    ck::Array a = make_array(v, d, {7, 11, 13});
    EXPECT_EQ(a.dtype(), d);
    EXPECT_EQ(a.shape(), (ck::Shape{7, 11, 13}));
    EXPECT_TRUE(a.is_c_contiguous());
    auto got = host_doubles(a);
    for (std::size_t i = 0; i < v.size(); ++i)
      ASSERT_EQ(got[i], round_to(v[i], d)) << ck::to_string(d);
  }
}

TEST_F(ArrayView, ToHostOfTheWrongTypeIsAnError) {
  ck::Array a = ck::ones({3}, DType::float32);
  EXPECT_THROW((void)a.to_host<double>(), ck::ArgumentError);
}

TEST_F(ArrayView, CreationFunctions) {
  EXPECT_EQ(host_doubles(ck::zeros({4}, DType::int16)), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(host_doubles(ck::ones({2, 2}, DType::float16)), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(host_doubles(ck::full({3}, 2.5, DType::float64)), (std::vector<double>{2.5, 2.5, 2.5}));
  EXPECT_EQ(host_doubles(ck::full({3}, -7, DType::int64)), (std::vector<double>{-7, -7, -7}));
  EXPECT_EQ(host_doubles(ck::arange(5)), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(host_doubles(ck::arange(1.0, 2.0, 0.25)), (std::vector<double>{1, 1.25, 1.5, 1.75}));
  EXPECT_EQ(host_doubles(ck::linspace(0, 1, 5)), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(host_doubles(ck::linspace(0, 1, 4, false)), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(ck::empty({3, 0}).size(), 0);
}

TEST_F(ArrayView, NegativeShapeIsAnError) { EXPECT_THROW(ck::empty({2, -1}), ck::ArgumentError); }

TEST_F(ArrayView, FillOutOfRangeIntegerIsAnError) {
  EXPECT_THROW(ck::full({2}, 300, DType::uint8), ck::ArgumentError);
}

TEST_F(ArrayView, FillWithNonRepeatingBytesUsesAKernel) {
  ck::Array a = ck::empty({5, 3}, DType::float64);
  a.index({ck::Slice(), 1}).fill(1.5);
  a.index({ck::Slice(), 0}).fill(0);
  a.index({ck::Slice(), 2}).fill(-2);
  for (std::int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(a.item(i * 3).as_double(), 0);
    EXPECT_EQ(a.item(i * 3 + 1).as_double(), 1.5);
    EXPECT_EQ(a.item(i * 3 + 2).as_double(), -2);
  }
}

TEST_F(ArrayView, SlicesWithStepsIncludingNegative) {
  ck::Array a = iota({20});
  EXPECT_EQ(host_doubles(a.slice(0, 2, 11, 3)), (std::vector<double>{2, 5, 8}));
  EXPECT_EQ(host_doubles(a.slice(0, std::nullopt, std::nullopt, -7)),
            (std::vector<double>{19, 12, 5}));
  EXPECT_EQ(host_doubles(a.slice(0, -3, std::nullopt)), (std::vector<double>{17, 18, 19}));
  EXPECT_EQ(host_doubles(a.slice(0, 5, 1, -2)), (std::vector<double>{5, 3}));
  EXPECT_EQ(a.slice(0, 5, 5).size(), 0);
  ck::Array v = a.slice(0, std::nullopt, std::nullopt, -1);
  EXPECT_EQ(v.strides(), (ck::Strides{-1}));
  EXPECT_EQ(v.storage(), a.storage());
}

TEST_F(ArrayView, IndexWithIntegersNewAxisAndEllipsis) {
  ck::Array a = iota({3, 4, 5});
  ck::Array b = a.index({1, ck::ellipsis, ck::Slice(std::nullopt, std::nullopt, 2)});
  EXPECT_EQ(b.shape(), (ck::Shape{4, 3}));
  EXPECT_EQ(host_doubles(b)[0], 20);
  EXPECT_EQ(host_doubles(b)[4], 27);
  ck::Array c = a.index({ck::newaxis, -1, ck::Slice(), 0});
  EXPECT_EQ(c.shape(), (ck::Shape{1, 4}));
  EXPECT_EQ(host_doubles(c), (std::vector<double>{40, 45, 50, 55}));
  EXPECT_EQ(a[2].shape(), (ck::Shape{4, 5}));
}

TEST_F(ArrayView, IndexOutOfRangeIsAnError) {
  ck::Array a = iota({3, 4});
  EXPECT_THROW(a.index({3}), ck::ArgumentError);
  EXPECT_THROW(a.index({0, -5}), ck::ArgumentError);
  EXPECT_THROW(a.index({0, 0, 0}), ck::ArgumentError);
}

TEST_F(ArrayView, ReshapeIsAViewWhenContiguous) {
  ck::Array a = iota({4, 6});
  ck::Array b = a.reshape({2, -1, 3});
  EXPECT_EQ(b.shape(), (ck::Shape{2, 4, 3}));
  EXPECT_EQ(b.address(), a.address());
  EXPECT_EQ(host_doubles(b), host_doubles(a));
  // A column slice of a contiguous array still reshapes without copying.
  ck::Array rows = iota({6, 4}).index({ck::Slice(0, 6, 2)});
  EXPECT_EQ(rows.reshape({3, 2, 2}).storage(), rows.storage());
}

TEST_F(ArrayView, ReshapeCopiesWhenStridesCannotExpressIt) {
  ck::Array a = iota({4, 6});
  ck::Array t = a.T().reshape({24});
  EXPECT_NE(t.storage(), a.storage());
  auto got = host_doubles(t);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(got[static_cast<std::size_t>(i * 4 + j)], j * 6 + i);
}

TEST_F(ArrayView, ReshapeToAWrongSizeIsAnError) {
  ck::Array a = iota({4, 6});
  EXPECT_THROW(a.reshape({5, 5}), ck::ArgumentError);
  EXPECT_THROW(a.reshape({-1, 5}), ck::ArgumentError);
  EXPECT_THROW(a.reshape({-1, -1}), ck::ArgumentError);
}

TEST_F(ArrayView, RavelAndFlattenInBothOrders) {
  ck::Array a = iota({2, 3});
  EXPECT_EQ(host_doubles(a.ravel()), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(host_doubles(a.ravel(ck::Order::F)), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_NE(a.flatten().storage(), a.storage());
}

TEST_F(ArrayView, TransposeAndSwapaxes) {
  ck::Array a = iota({2, 3, 4});
  ck::Array t = a.transpose({2, 0, 1});
  EXPECT_EQ(t.shape(), (ck::Shape{4, 2, 3}));
  EXPECT_EQ(t.strides(), (ck::Strides{1, 12, 4}));
  EXPECT_EQ(a.T().shape(), (ck::Shape{4, 3, 2}));
  EXPECT_TRUE(a.T().is_f_contiguous());
  EXPECT_EQ(a.swapaxes(0, 2).shape(), (ck::Shape{4, 3, 2}));
  EXPECT_THROW(a.transpose({0, 0, 1}), ck::ArgumentError);
  EXPECT_THROW(a.transpose({0, 1}), ck::ArgumentError);
}

TEST_F(ArrayView, SqueezeAndExpandDims) {
  ck::Array a = iota({1, 3, 1});
  EXPECT_EQ(a.squeeze().shape(), (ck::Shape{3}));
  EXPECT_EQ(a.squeeze(-1).shape(), (ck::Shape{1, 3}));
  EXPECT_THROW(a.squeeze(1), ck::ArgumentError);
  EXPECT_EQ(a.expand_dims(0).shape(), (ck::Shape{1, 1, 3, 1}));
  EXPECT_EQ(a.expand_dims(-1).shape(), (ck::Shape{1, 3, 1, 1}));
}

TEST_F(ArrayView, OutOfRangeAxisIsAnError) {
  ck::Array a = iota({2, 3});
  EXPECT_THROW(a.squeeze(2), ck::ArgumentError);
  EXPECT_THROW(a.expand_dims(4), ck::ArgumentError);
  EXPECT_THROW(a.swapaxes(0, -3), ck::ArgumentError);
  EXPECT_THROW(a.slice(2, 0, 1), ck::ArgumentError);
  EXPECT_THROW((void)a.shape(5), ck::ArgumentError);
  EXPECT_THROW(ck::concatenate({a, a}, 2), ck::ArgumentError);
}

TEST_F(ArrayView, BroadcastToIsAReadOnlyView) {
  ck::Array a = iota({3, 1});
  ck::Array b = a.broadcast_to({2, 3, 4});
  EXPECT_TRUE(b.readonly());
  EXPECT_EQ(b.strides(), (ck::Strides{0, 1, 0}));
  auto got = host_doubles(b);
  EXPECT_EQ(got[5], 1);
  EXPECT_THROW(a.broadcast_to({2, 2}), ck::ArgumentError);
}

TEST_F(ArrayView, CopyAndToHostOfNonContiguousViews) {
  ck::Array a = iota({5, 7});
  ck::Array v = a.index({ck::Slice(std::nullopt, std::nullopt, -2), ck::Slice(1, 6, 2)});
  ck::Array c = v.copy();
  EXPECT_TRUE(c.is_c_contiguous());
  EXPECT_EQ(host_doubles(c), (std::vector<double>{29, 31, 33, 15, 17, 19, 1, 3, 5}));
  EXPECT_EQ(host_doubles(v), host_doubles(c));
  ck::Array f = a.copy(ck::Order::F);
  EXPECT_TRUE(f.is_f_contiguous());
  EXPECT_EQ(host_doubles(f), host_doubles(a));
}

TEST_F(ArrayView, AstypeConvertsLikeACast) {
  ck::Array a = make_array({-2.7, -0.5, 0.5, 3.9, 200.0}, DType::float64, {5});
  EXPECT_EQ(host_doubles(a.astype(DType::int32)), (std::vector<double>{-2, 0, 0, 3, 200}));
  EXPECT_EQ(host_doubles(a.astype(DType::bool_)), (std::vector<double>{1, 1, 1, 1, 1}));
  EXPECT_EQ(host_doubles(a.astype(DType::float16)),
            (std::vector<double>{-2.69921875, -0.5, 0.5, 3.900390625, 200}));
}

TEST_F(ArrayView, CopyFromHostIntoAStridedView) {
  ck::Array a = ck::zeros({4, 4}, DType::int32);
  std::vector<std::int32_t> col = {1, 2, 3, 4};
  a.index({ck::Slice(), 2}).copy_from_host(col.data(), col.size() * 4);
  auto h = a.to_host<std::int32_t>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(h[static_cast<std::size_t>(i * 4 + 2)], i + 1);
  EXPECT_EQ(h[0], 0);
}

TEST_F(ArrayView, AsyncCopyToPinnedMemory) {
  auto v = random_values<float>(777);
  ck::Array a = ck::from_host(v);
  auto pinned = a.to_host_async<float>();
  a.stream().synchronize();
  for (std::size_t k = 0; k < v.size(); ++k) EXPECT_EQ(pinned[k], v[k]);
}

TEST_F(ArrayView, ConcatenateAndStack) {
  ck::Array a = iota({2, 3}), b = iota({1, 3}, DType::int32);
  ck::Array c = ck::concatenate({a, b});
  EXPECT_EQ(c.shape(), (ck::Shape{3, 3}));
  EXPECT_EQ(c.dtype(), DType::float64);
  EXPECT_EQ(host_doubles(c), (std::vector<double>{0, 1, 2, 3, 4, 5, 0, 1, 2}));
  ck::Array s = ck::stack({a, a}, 1);
  EXPECT_EQ(s.shape(), (ck::Shape{2, 2, 3}));
  EXPECT_EQ(host_doubles(s), (std::vector<double>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
}

TEST_F(ArrayView, ConcatenateShapeMismatchIsAnError) {
  EXPECT_THROW(ck::concatenate({iota({2, 3}), iota({2, 4})}), ck::ArgumentError);
  EXPECT_THROW(ck::stack({iota({2}), iota({3})}), ck::ArgumentError);
}

TEST_F(ArrayView, TakeAlongAnAxisAndPut) {
  ck::Array a = iota({3, 4});
  ck::Array idx = make_array({3, 0, -1}, DType::int64, {3});
  ck::Array t = ck::take(a, idx, 1);
  EXPECT_EQ(t.shape(), (ck::Shape{3, 3}));
  EXPECT_EQ(host_doubles(t), (std::vector<double>{3, 0, 3, 7, 4, 7, 11, 8, 11}));
  EXPECT_EQ(host_doubles(ck::take(a, idx)), (std::vector<double>{3, 0, 11}));
  ck::Array p = ck::zeros({6}, DType::float32);
  ck::put(p, make_array({1, 4}, DType::int32, {2}), make_array({9}, DType::float32, {1}));
  EXPECT_EQ(host_doubles(p), (std::vector<double>{0, 9, 0, 0, 9, 0}));
}

// NumPy: put writes in order, so a repeated index keeps its last value; take
// and put work on views of any layout (flat indices in the view's C order).
TEST_F(ArrayView, PutKeepsTheLastValueOfARepeatedIndex) {
  ck::Array p = ck::zeros({1000}, DType::int32);
  std::vector<double> idx, vals;
  std::vector<double> want(1000, 0);
  for (int k = 0; k < 3000; ++k) {
    const int target = (k * 7919) % 997;
    idx.push_back(target);
    vals.push_back(k + 1);
    want[static_cast<std::size_t>(target)] = k + 1;
  }
  ck::put(p, make_array(idx, DType::int64, {3000}), make_array(vals, DType::int32, {3000}));
  EXPECT_EQ(host_doubles(p), want);
}

TEST_F(ArrayView, TakeAndPutOnTransposedAndSteppedViews) {
  ck::Array a = iota({6, 5});  // a[r][c] = 5 r + c
  ck::Array t = a.T();         // t[c][r] = 5 r + c, C order of t: c-major
  ck::Array idx = make_array({0, 7, 29, -1, 13}, DType::int64, {5});
  // Flat index k of t is (c, r) = (k / 6, k % 6): value 5 (k % 6) + k / 6.
  std::vector<double> want;
  for (int k : {0, 7, 29, 29, 13}) want.push_back(5 * (k % 6) + k / 6);
  EXPECT_EQ(host_doubles(ck::take(t, idx)), want);
  ck::Array b = iota({6, 5});
  ck::Array view = b.T().slice(0, std::nullopt, std::nullopt, -2);  // rows 4, 2, 0 of b.T
  ASSERT_FALSE(view.is_c_contiguous());
  ck::put(view, make_array({1, 8, 17}, DType::int64, {3}),
          make_array({-1, -2, -3}, DType::float32, {3}));
  // view is 3 x 6: (i, j) -> b[j][4 - 2 i]; flat 1 = (0, 1), 8 = (1, 2), 17 = (2, 5).
  auto got = host_doubles(b);
  std::vector<double> expect;
  for (int k = 0; k < 30; ++k) expect.push_back(k);
  expect[1 * 5 + 4] = -1;
  expect[2 * 5 + 2] = -2;
  expect[5 * 5 + 0] = -3;
  EXPECT_EQ(got, expect);
}

TEST_F(ArrayView, TakeOutOfRangeIsAnError) {
  ck::Array a = iota({3, 4});
  EXPECT_THROW(ck::take(a, make_array({4}, DType::int64, {1}), 1), ck::ArgumentError);
  EXPECT_THROW(ck::take(a, make_array({0.5}, DType::float32, {1}), 1), ck::ArgumentError);
}

// Bad put input is refused on the host before anything runs.
TEST_F(ArrayView, PutOutOfRangeReadOnlyOrEmptyValuesIsAnError) {
  ck::Array p = ck::zeros({6}, DType::float32);
  const ck::Array one = make_array({9}, DType::float32, {1});
  EXPECT_THROW(ck::put(p, make_array({6}, DType::int64, {1}), one), ck::ArgumentError);
  EXPECT_THROW(ck::put(p, make_array({-7}, DType::int64, {1}), one), ck::ArgumentError);
  EXPECT_THROW(ck::put(p, make_array({0.5}, DType::float32, {1}), one), ck::ArgumentError);
  EXPECT_THROW(ck::put(p, make_array({1}, DType::int64, {1}), ck::zeros({0}, DType::float32)),
               ck::ArgumentError);
  ck::Array fixed = ck::zeros({6}, DType::float32).broadcast_to({2, 6});
  EXPECT_THROW(ck::put(fixed, make_array({1}, DType::int64, {1}), one), ck::ArgumentError);
  EXPECT_EQ(host_doubles(p), (std::vector<double>(6, 0.0)));
}

TEST_F(ArrayView, PrintsLikeNumpy) {
  EXPECT_EQ(make_array({1, 2, 3}, DType::float32, {3}).to_string(),
            "array([1., 2., 3.], dtype=float32)");
  EXPECT_EQ(iota({2, 2}, DType::int64).to_string(), "array([[0, 1],\n       [2, 3]])");
  EXPECT_EQ(make_array({1, 0}, DType::bool_, {2}).to_string(), "array([ True, False])");
  EXPECT_EQ(make_array({0.5, -1.25}, DType::float64, {2}).to_string(), "array([ 0.5 , -1.25])");
  EXPECT_EQ(make_array({1, 2.5}, DType::float32, {2}).to_string(),
            "array([1. , 2.5], dtype=float32)");
  std::string big = ck::arange(2000, DType::int32).to_string();
  // NumPy 2.2+ names the shape of a summarised array; here the extras would
  // pass 75 characters, so they go on a line of their own.
  EXPECT_EQ(big,
            "array([   0,    1,    2, ..., 1997, 1998, 1999],\n      shape=(2000,), dtype=int32)");
  EXPECT_EQ(ck::arange(2000, DType::int64).to_string(),
            "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))");
  std::ostringstream os;
  os << ck::zeros({0}, DType::float32);
  EXPECT_EQ(os.str(), "array([], dtype=float32)");
  EXPECT_EQ(ck::zeros({0}, DType::float64).to_string(), "array([], dtype=float64)");
  EXPECT_EQ(ck::zeros({0, 3}, DType::float32).to_string(),
            "array([], shape=(0, 3), dtype=float32)");
}

TEST_F(ArrayView, InteropHooksGiveBytesStridesAndPointer) {
  ck::Array a = iota({3, 4}, DType::float32);
  ck::Array t = a.T();
  EXPECT_EQ(t.strides_bytes(), (std::vector<std::int64_t>{4, 16}));
  EXPECT_EQ(t.address(), a.address());
  EXPECT_FALSE(t.readonly());
  EXPECT_TRUE(a.owns_data());
  // Import the same memory the way __cuda_array_interface__ would describe it.
  auto keep = std::make_shared<int>(1);
  ck::Array view =
      ck::from_pointer(a.address(), {4, 3}, {4, 16}, DType::float32, a.device(), keep, true);
  EXPECT_FALSE(view.owns_data());
  EXPECT_TRUE(view.readonly());
  EXPECT_EQ(host_doubles(view), host_doubles(t));
  EXPECT_EQ(keep.use_count(), 2);
}

TEST_F(ArrayView, FromPointerWithMisalignedStrideIsAnError) {
  ck::Array a = iota({4}, DType::float32);
  EXPECT_THROW(ck::from_pointer(a.address(), {2}, {6}, DType::float32, a.device()),
               ck::ArgumentError);
  EXPECT_THROW(ck::from_pointer(a.address(), {2, 2}, {8}, DType::float32, a.device()),
               ck::ArgumentError);
}

TEST_F(ArrayView, ArrayPassesToAKernelLaunchAsItsPointer) {
  ck::Array a = iota({10}, DType::float32);
  ck::ArgInfo info = ck::KernelArg<ck::Array>::info(a);
  std::uint64_t slot = 0;
  ck::KernelArg<ck::Array>::address(a.slice(0, 3, std::nullopt), slot);
  EXPECT_EQ(info.kind, ck::ParamKind::pointer);
  EXPECT_EQ(slot, a.address() + 12);
}

TEST_F(ArrayView, NullArrayOperationsAreErrors) {
  ck::Array a;
  EXPECT_FALSE(a.valid());
  EXPECT_THROW((void)a.address(), ck::ArgumentError);
  EXPECT_THROW(a.reshape({1}), ck::ArgumentError);
  EXPECT_THROW((void)(ck::Expr(a) + 1), ck::ArgumentError);
}
