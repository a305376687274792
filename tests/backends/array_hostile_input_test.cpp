// Inputs a careless or hostile user passes to the array layer: integer
// arg-reductions, shapes whose size does not fit, host data of the wrong
// length, slices with extreme steps, var with a large ddof, negative item
// positions. Each gets NumPy's answer or a clear ArgumentError, never a
// compile error, a wrapped-around size or a read past the end.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/error.hpp"
#include "unit/array_test_support.hpp"

namespace {

namespace ck = cudakit;
using array_test::ArrayTest;
using ck::DType;

constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();

class ArrayHostileInput : public ArrayTest {};

// argmax / argmin of every integer dtype (the generated code once wrote
// `long long()`, which is not C++), against a host reference.
TEST_F(ArrayHostileInput, ArgReductionsOfIntegerDtypes) {
  const DType integer_types[] = {DType::bool_,  DType::int8,   DType::int16,
                                 DType::int32,  DType::int64,  DType::uint8,
                                 DType::uint16, DType::uint32, DType::uint64};
  const auto values = random_doubles(1037, 0.0, 100.0);
  for (DType d : integer_types) {
    SCOPED_TRACE(ck::to_string(d));
    const ck::Array a = ck::from_host(values).astype(d);
    const auto host = array_test::to_doubles(a);
    const auto best_max = std::max_element(host.begin(), host.end()) - host.begin();
    const auto best_min = std::min_element(host.begin(), host.end()) - host.begin();
    EXPECT_EQ(ck::argmax(a).item().as_int64(), best_max);
    EXPECT_EQ(ck::argmin(a).item().as_int64(), best_min);
  }
  EXPECT_EQ(ck::argmax(ck::arange(10)).item().as_int64(), 9);
  EXPECT_EQ(ck::argmin(ck::arange(10, DType::uint64)).item().as_int64(), 0);
}

TEST_F(ArrayHostileInput, ShapesWhoseSizeDoesNotFitAreRefused) {
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_THROW((void)ck::empty({big, big}, DType::float64), ck::ArgumentError);
  EXPECT_THROW((void)ck::empty({(std::int64_t{1} << 61) + 1}, DType::float64), ck::ArgumentError);
  EXPECT_THROW((void)ck::zeros({i64_max, 2}, DType::int8), ck::ArgumentError);
  EXPECT_THROW((void)ck::full({big, big}, 1, DType::int32), ck::ArgumentError);
  // The strides of an empty array are products of the other extents.
  EXPECT_THROW((void)ck::empty({0, big, big}, DType::float64), ck::ArgumentError);
  try {
    (void)ck::empty({big, big}, DType::float64);
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("too big"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1099511627776"), std::string::npos) << e.what();
  }
  const ck::Array a = ck::ones({6}, DType::float32);
  EXPECT_THROW((void)a.reshape({big, big, -1}), ck::ArgumentError);
  // 6 * 274177 * 67280421310721 = 6 * (2^64 + 1): a product that wraps to 6.
  EXPECT_THROW((void)a.reshape({6, 274177, 67280421310721}), ck::ArgumentError);
  EXPECT_THROW((void)a.broadcast_to({big, big, 6}), ck::ArgumentError);
  // Large but representable shapes of nothing still work.
  EXPECT_EQ(ck::empty({0, big}, DType::float64).size(), 0);
  EXPECT_EQ(ck::empty({0, big}, DType::float64).nbytes(), 0u);
}

TEST_F(ArrayHostileInput, DeviceBufferCountWhoseBytesDoNotFitIsRefused) {
  EXPECT_THROW(ck::DeviceBuffer<double>((std::size_t{1} << 61) + 1), ck::ArgumentError);
  EXPECT_THROW(ck::DeviceBuffer<std::int32_t>(std::numeric_limits<std::size_t>::max()),
               ck::ArgumentError);
  ck::DeviceBuffer<double> fine(3);
  EXPECT_EQ(fine.bytes(), 24u);
}

TEST_F(ArrayHostileInput, FromHostChecksTheLengthAgainstTheShape) {
  const std::vector<float> five = random_values<float>(5);
  EXPECT_THROW((void)ck::from_host(five, {2, 3}), ck::ArgumentError);
  EXPECT_THROW((void)ck::from_host(five, {2, 2}), ck::ArgumentError);
  EXPECT_THROW((void)ck::from_host(std::span<const float>(five), {6}), ck::ArgumentError);
  try {
    (void)ck::from_host(five, {2, 3});
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("5 elements"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs 6"), std::string::npos) << e.what();
  }
  const ck::Array ok = ck::from_host(five, {5, 1});
  EXPECT_EQ(ok.to_host<float>(), five);
  EXPECT_EQ(ck::from_host(std::vector<float>{}, {0, 3}).size(), 0);
}

// Expected results from CPython's list slicing of range(5).
struct SliceCase {
  std::optional<std::int64_t> start, stop;
  std::int64_t step;
  std::vector<std::int64_t> expected;
};

TEST_F(ArrayHostileInput, SlicesFollowPythonForEveryStep) {
  const std::vector<SliceCase> cases = {
      {{}, {}, i64_max, {0}},
      {{}, {}, i64_max - 1, {0}},
      {{}, {}, -i64_max, {4}},
      {{}, {}, i64_min, {4}},
      {{}, {}, -(i64_max - 1), {4}},
      {i64_max, {}, -1, {4, 3, 2, 1, 0}},
      {i64_min, {}, 1, {0, 1, 2, 3, 4}},
      {i64_min, i64_max, 2, {0, 2, 4}},
      {i64_max, i64_min, -2, {4, 2, 0}},
      {3, {}, i64_max, {3}},
      {{}, 3, -i64_max, {4}},
      {1, -1, 3, {1}},
      {-2, -6, -1, {3, 2, 1, 0}},
      {{}, {}, -2, {4, 2, 0}},
      {5, {}, 1, {}},
      {{}, -7, -1, {4, 3, 2, 1, 0}},
  };
  const ck::Array a = ck::arange(5);
  for (const auto& c : cases) {
    SCOPED_TRACE("step " + std::to_string(c.step));
    const ck::Array view = a.index({ck::Slice(c.start, c.stop, c.step)});
    ASSERT_EQ(view.shape(), ck::Shape{static_cast<std::int64_t>(c.expected.size())});
    EXPECT_EQ(view.copy().to_host<std::int64_t>(), c.expected);
    // The same slice of a 2-D array's rows, for a stride other than one.
    const ck::Array rows =
        ck::arange(10).reshape({5, 2}).index({ck::Slice(c.start, c.stop, c.step)});
    ASSERT_EQ(rows.shape(0), static_cast<std::int64_t>(c.expected.size()));
    std::vector<std::int64_t> first_column;
    for (auto v : c.expected) first_column.push_back(2 * v);
    EXPECT_EQ(rows.index({ck::Slice(), 0}).copy().to_host<std::int64_t>(), first_column);
  }
}

// ElementwiseKernel's slice= and range= take the same rules: a huge step
// selects one index, and no index computation overflows on the way.
TEST_F(ArrayHostileInput, ElementwiseKernelSlicesAndRangesWithHugeSteps) {
  const ck::ElementwiseKernel mark("long long* x", "x[i] = 100 + i", "mark_selected");
  auto run_slice = [&](const ck::Slice& slice) {
    ck::Array x = ck::zeros({5}, DType::int64);
    mark({x}, slice);
    return x.to_host<std::int64_t>();
  };
  EXPECT_EQ(run_slice(ck::Slice({}, {}, i64_max)), (std::vector<std::int64_t>{100, 0, 0, 0, 0}));
  EXPECT_EQ(run_slice(ck::Slice({}, {}, i64_min)), (std::vector<std::int64_t>{0, 0, 0, 0, 104}));
  EXPECT_EQ(run_slice(ck::Slice(i64_min, i64_max, 2)),
            (std::vector<std::int64_t>{100, 0, 102, 0, 104}));
  EXPECT_EQ(run_slice(ck::Slice(i64_max, i64_min, -3)),
            (std::vector<std::int64_t>{0, 101, 0, 0, 104}));
  ck::Array x = ck::zeros({5}, DType::int64);
  mark({x}, ck::ElementwiseKernel::Range{1, i64_max, i64_max - 1});
  EXPECT_EQ(x.to_host<std::int64_t>(), (std::vector<std::int64_t>{0, 101, 0, 0, 0}));
  x = ck::zeros({5}, DType::int64);
  mark({x}, ck::ElementwiseKernel::Range{4, -1, -2});
  EXPECT_EQ(x.to_host<std::int64_t>(), (std::vector<std::int64_t>{100, 0, 102, 0, 104}));
}

TEST_F(ArrayHostileInput, VarianceWithDdofAtLeastTheCountIsNan) {
  EXPECT_TRUE(std::isnan(ck::var(ck::ones({3}), {}, false, 5).item().as_double()));
  EXPECT_TRUE(std::isnan(ck::var(ck::ones({3}), {}, false, 3).item().as_double()));
  EXPECT_TRUE(std::isnan(ck::std(ck::ones({3}, DType::float32), {}, false, 4).item().as_double()));
  // NumPy divides by max(count - ddof, 0): a non-zero sum over zero is inf.
  const ck::Array spread = ck::from_host(std::vector<double>{1, 2, 3});
  EXPECT_TRUE(std::isinf(ck::var(spread, {}, false, 3).item().as_double()));
  EXPECT_DOUBLE_EQ(ck::var(spread, {}, false, 1).item().as_double(), 1.0);
  EXPECT_DOUBLE_EQ(ck::var(spread, {}, false, -1).item().as_double(), 0.5);
}

TEST_F(ArrayHostileInput, ItemCountsNegativePositionsFromTheEnd) {
  const auto values = random_values<double>(7);
  const ck::Array a = ck::from_host(values);
  EXPECT_EQ(a.item(-1).as_double(), values[6]);
  EXPECT_EQ(a.item(-7).as_double(), values[0]);
  EXPECT_THROW((void)a.item(-8), ck::ArgumentError);
  EXPECT_THROW((void)a.item(7), ck::ArgumentError);
  const ck::Array m = a.index({ck::Slice(0, 6)}).reshape({2, 3}).transpose();
  EXPECT_EQ(m.item(-1).as_double(), values[5]);
  EXPECT_EQ(m.item(-2).as_double(), values[2]);
}

}  // namespace
