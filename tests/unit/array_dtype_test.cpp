// DType names and NumPy 2 promotion, checked against tables NumPy produced
// (tests/data/numpy_promotion.txt, tests/data/numpy_ufunc_types.txt).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "array/expr_types.hpp"
#include "cudakit/array_scalar.hpp"
#include "cudakit/dtype.hpp"

namespace ck = cudakit;

namespace {

std::vector<std::vector<std::string>> read_table(const std::string& file) {
  std::ifstream in(std::string(CUDAKIT_TEST_DATA_DIR) + "/" + file);
  EXPECT_TRUE(in.good()) << "missing test data " << file;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::vector<std::string> row;
    std::string word;
    while (ls >> word) row.push_back(word);
    rows.push_back(row);
  }
  return rows;
}

ck::DType dt(const std::string& name) {
  auto d = ck::parse_dtype(name);
  EXPECT_TRUE(d.has_value()) << name;
  return d.value_or(ck::DType::bool_);
}

ck::ScalarKind kind(const std::string& name) {
  if (name == "boolean") return ck::ScalarKind::boolean;
  if (name == "integer") return ck::ScalarKind::integer;
  if (name == "floating") return ck::ScalarKind::floating;
  return ck::ScalarKind::complex;
}

ck::Casting casting(const std::string& name) {
  if (name == "no") return ck::Casting::no;
  if (name == "equiv") return ck::Casting::equiv;
  if (name == "safe") return ck::Casting::safe;
  if (name == "same_kind") return ck::Casting::same_kind;
  return ck::Casting::unsafe;
}

}  // namespace

TEST(ArrayDType, ItemsizesAndNames) {
  EXPECT_EQ(ck::itemsize(ck::DType::bool_), 1u);
  EXPECT_EQ(ck::itemsize(ck::DType::float16), 2u);
  EXPECT_EQ(ck::itemsize(ck::DType::bfloat16), 2u);
  EXPECT_EQ(ck::itemsize(ck::DType::complex128), 16u);
  EXPECT_EQ(ck::to_string(ck::DType::float32), "float32");
  EXPECT_EQ(ck::c_type_name(ck::DType::float32), "float");
  EXPECT_EQ(ck::c_type_name(ck::DType::complex64), "cudakit_complex64");
  for (int k = 0; k < ck::dtype_count; ++k) {
    auto d = static_cast<ck::DType>(k);
    EXPECT_EQ(ck::parse_dtype(ck::to_string(d)), d);
  }
  EXPECT_EQ(ck::parse_dtype("f4"), ck::DType::float32);
  EXPECT_FALSE(ck::parse_dtype("float128").has_value());
}

TEST(ArrayDType, DtypeOfCppTypes) {
  static_assert(ck::dtype_of<float>() == ck::DType::float32);
  static_assert(ck::dtype_of<unsigned char>() == ck::DType::uint8);
  static_assert(ck::dtype_of<long long>() == ck::DType::int64);
  static_assert(ck::dtype_of<std::complex<double>>() == ck::DType::complex128);
  static_assert(ck::dtype_of<ck::Half>() == ck::DType::float16);
}

TEST(ArrayDType, ArrayArrayPromotionMatchesNumpy) {
  int checked = 0;
  for (const auto& r : read_table("numpy_promotion.txt")) {
    if (r[0] != "result") continue;
    EXPECT_EQ(ck::to_string(ck::result_type(dt(r[1]), dt(r[2]))), r[3]) << r[1] << " + " << r[2];
    ++checked;
  }
  EXPECT_EQ(checked, 14 * 14);
}

TEST(ArrayDType, WeakScalarPromotionMatchesNumpy) {
  int checked = 0;
  for (const auto& r : read_table("numpy_promotion.txt")) {
    if (r[0] != "weak") continue;
    EXPECT_EQ(ck::to_string(ck::result_type(dt(r[1]), kind(r[2]))), r[3])
        << r[1] << " with " << r[2];
    ++checked;
  }
  EXPECT_EQ(checked, 14 * 4);
}

TEST(ArrayDType, CanCastMatchesNumpy) {
  int checked = 0;
  for (const auto& r : read_table("numpy_promotion.txt")) {
    if (r[0] != "cast") continue;
    EXPECT_EQ(ck::can_cast(dt(r[1]), dt(r[2]), casting(r[3])), r[4] == "1")
        << r[1] << " -> " << r[2] << " " << r[3];
    ++checked;
  }
  EXPECT_EQ(checked, 14 * 14 * 5);
}

TEST(ArrayDType, UfuncResultTypesMatchNumpy) {
  int checked = 0;
  for (const auto& r : read_table("numpy_ufunc_types.txt")) {
    std::optional<ck::detail::OpTyping> t;
    std::string op = r[1] == "conjugate" ? "conjugate" : r[1];
    if (r[0] == "unary") {
      t = ck::detail::type_unary(op, dt(r[2]));
      std::string got = t ? std::string(ck::to_string(t->result)) : "error";
      EXPECT_EQ(got, r[3]) << op << "(" << r[2] << ")";
    } else {
      t = ck::detail::type_binary(op, dt(r[2]), dt(r[3]));
      std::string got = t ? std::string(ck::to_string(t->result)) : "error";
      EXPECT_EQ(got, r[4]) << op << "(" << r[2] << ", " << r[3] << ")";
    }
    ++checked;
  }
  EXPECT_GT(checked, 4000);
}

TEST(ArrayDType, BFloat16PromotesLikeMlDtypes) {
  EXPECT_EQ(ck::result_type(ck::DType::bfloat16, ck::DType::float16), ck::DType::float32);
  EXPECT_EQ(ck::result_type(ck::DType::bfloat16, ck::DType::int8), ck::DType::bfloat16);
  EXPECT_EQ(ck::result_type(ck::DType::bfloat16, ck::DType::int16), ck::DType::float32);
  EXPECT_EQ(ck::result_type(ck::DType::bfloat16, ck::DType::float64), ck::DType::float64);
  EXPECT_EQ(ck::result_type(ck::DType::bfloat16, ck::ScalarKind::floating), ck::DType::bfloat16);
}

TEST(ArrayDType, HalfRoundTripsAndRounds) {
  EXPECT_EQ(ck::Half(1.0f).bits, 0x3c00);
  EXPECT_EQ(ck::Half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(ck::Half(1e6f).bits, 0x7c00);
  EXPECT_EQ(ck::Half(-2.0f).bits, 0xc000);
  EXPECT_EQ(ck::Half(5.9604645e-8f).bits, 0x0001);
  EXPECT_EQ(static_cast<float>(ck::Half::from_bits(0x0001)), 5.9604645e-8f);
  EXPECT_EQ(static_cast<float>(ck::Half::from_bits(0x3555)), 0.333251953125f);
  for (int b = 0; b < 0x7c00; b += 7) {
    auto h = ck::Half::from_bits(static_cast<std::uint16_t>(b));
    EXPECT_EQ(ck::Half(static_cast<float>(h)).bits, b);
  }
  EXPECT_EQ(ck::Half(1.0f + 1.0f / 2048).bits, 0x3c00);  // tie rounds to even
  EXPECT_EQ(ck::BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(static_cast<float>(ck::BFloat16::from_bits(0x4049)), 3.140625f);
}

TEST(ArrayScalar, WeakIntegersOutOfRangeDoNotFit) {
  EXPECT_TRUE(ck::Scalar(255).fits(ck::DType::uint8));
  EXPECT_FALSE(ck::Scalar(300).fits(ck::DType::uint8));
  EXPECT_FALSE(ck::Scalar(-1).fits(ck::DType::uint32));
  EXPECT_TRUE(ck::Scalar(2.5).fits(ck::DType::int8));
  EXPECT_EQ(ck::Scalar(3).dtype(), ck::DType::int64);
  EXPECT_EQ(ck::Scalar(3.0).dtype(), ck::DType::float64);
  EXPECT_TRUE(ck::Scalar(3.0).is_weak());
  EXPECT_EQ(ck::Scalar::typed(3.0, ck::DType::float32).dtype(), ck::DType::float32);
}

TEST(ArrayScalar, StoreConvertsToEveryDtype) {
  std::int16_t i16 = 0;
  ck::Scalar(-7).store(ck::DType::int16, &i16);
  EXPECT_EQ(i16, -7);
  float f = 0;
  ck::Scalar(2.5).store(ck::DType::float32, &f);
  EXPECT_EQ(f, 2.5f);
  std::uint16_t h = 0;
  ck::Scalar(1.0).store(ck::DType::float16, &h);
  EXPECT_EQ(h, 0x3c00);
  std::complex<float> c;
  ck::Scalar(std::complex<double>(1, -2)).store(ck::DType::complex64, &c);
  EXPECT_EQ(c, std::complex<float>(1, -2));
}

TEST(DTypeNames, ScalarTypeMappingIsPublicAndRoundTrips) {
  // Every dtype but complex has a ScalarType, and back.
  for (int d = 0; d < ck::dtype_count; ++d) {
    const auto dtype = static_cast<ck::DType>(d);
    const ck::ScalarType scalar = ck::scalar_type_of(dtype);
    if (ck::is_complex(dtype)) {
      EXPECT_EQ(scalar, ck::ScalarType::unknown) << ck::to_string(dtype);
      continue;
    }
    ASSERT_NE(scalar, ck::ScalarType::unknown) << ck::to_string(dtype);
    EXPECT_EQ(ck::scalar_size(scalar), ck::itemsize(dtype)) << ck::to_string(dtype);
    EXPECT_EQ(ck::dtype_of(scalar), dtype) << ck::to_string(dtype);
  }
  EXPECT_EQ(ck::dtype_of(ck::ScalarType::unknown), std::nullopt);
  EXPECT_EQ(ck::dtype_of(ck::ScalarType::u64), ck::DType::uint64);
  EXPECT_EQ(ck::dtype_of(ck::ScalarType::bf16), ck::DType::bfloat16);
}
