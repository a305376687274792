// The one C-types module: the list splitter respects nesting, and every C
// spelling of a scalar type maps to its ScalarType and size.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/c_types.hpp"

namespace cudakit::detail {
namespace {

using Strings = std::vector<std::string>;

TEST(CTypes, SplitterKeepsTemplateArgumentsTogether) {
  EXPECT_EQ(split_c_list("T<a, b>"), Strings{"T<a, b>"});
  EXPECT_EQ(split_c_list("T<a, b>, int n"), (Strings{"T<a, b>", "int n"}));
  EXPECT_EQ(split_c_list(" ArrayView<const float, 2> v ,float* out"),
            (Strings{"ArrayView<const float, 2> v", "float* out"}));
  EXPECT_EQ(split_c_list("void (*f)(int, int), int a[2][3], S<T<x, y>, z>"),
            (Strings{"void (*f)(int, int)", "int a[2][3]", "S<T<x, y>, z>"}));
  EXPECT_EQ(split_c_list("Pair{1, 2}, x"), (Strings{"Pair{1, 2}", "x"}));
  EXPECT_EQ(split_c_list(""), Strings{});
  EXPECT_EQ(split_c_list("   "), Strings{});
  EXPECT_EQ(split_c_list("int, "), (Strings{"int", ""}));
}

TEST(CTypes, BareTypeDropsQualifiersAndNamespaces) {
  EXPECT_EQ(bare_c_type("const std::uint8_t"), "uint8_t");
  EXPECT_EQ(bare_c_type("unsigned   long\tlong"), "unsigned long long");
  EXPECT_EQ(bare_c_type("volatile ::cudakit::Half"), "Half");
  EXPECT_EQ(bare_c_type("const float *"), "float*");
}

struct Expected {
  const char* spelling;
  ScalarType scalar;
  std::size_t size;
};

TEST(CTypes, EveryScalarSpelling) {
  const Expected table[] = {
      {"bool", ScalarType::boolean, 1},
      {"char", ScalarType::i8, 1},
      {"signed char", ScalarType::i8, 1},
      {"int8_t", ScalarType::i8, 1},
      {"std::int8_t", ScalarType::i8, 1},
      {"unsigned char", ScalarType::u8, 1},
      {"uint8_t", ScalarType::u8, 1},
      {"uchar", ScalarType::u8, 1},
      {"short", ScalarType::i16, 2},
      {"short int", ScalarType::i16, 2},
      {"signed short", ScalarType::i16, 2},
      {"int16_t", ScalarType::i16, 2},
      {"unsigned short", ScalarType::u16, 2},
      {"unsigned short int", ScalarType::u16, 2},
      {"uint16_t", ScalarType::u16, 2},
      {"int", ScalarType::i32, 4},
      {"signed", ScalarType::i32, 4},
      {"signed int", ScalarType::i32, 4},
      {"int32_t", ScalarType::i32, 4},
      {"unsigned", ScalarType::u32, 4},
      {"unsigned int", ScalarType::u32, 4},
      {"uint32_t", ScalarType::u32, 4},
      {"uint", ScalarType::u32, 4},
      {"long", ScalarType::i64, 8},
      {"long int", ScalarType::i64, 8},
      {"long long", ScalarType::i64, 8},
      {"long long int", ScalarType::i64, 8},
      {"signed long long", ScalarType::i64, 8},
      {"int64_t", ScalarType::i64, 8},
      {"ptrdiff_t", ScalarType::i64, 8},
      {"ssize_t", ScalarType::i64, 8},
      {"intptr_t", ScalarType::i64, 8},
      {"unsigned long", ScalarType::u64, 8},
      {"long unsigned", ScalarType::u64, 8},
      {"unsigned long long", ScalarType::u64, 8},
      {"unsigned long long int", ScalarType::u64, 8},
      {"uint64_t", ScalarType::u64, 8},
      {"size_t", ScalarType::u64, 8},
      {"std::size_t", ScalarType::u64, 8},
      {"uintptr_t", ScalarType::u64, 8},
      {"ulong", ScalarType::u64, 8},
      {"float", ScalarType::f32, 4},
      {"const float", ScalarType::f32, 4},
      {"double", ScalarType::f64, 8},
      {"__half", ScalarType::f16, 2},
      {"half", ScalarType::f16, 2},
      {"__nv_bfloat16", ScalarType::bf16, 2},
      {"nv_bfloat16", ScalarType::bf16, 2},
  };
  for (const Expected& e : table) {
    const TypeClass c = classify_c_type(e.spelling);
    EXPECT_TRUE(c.known) << e.spelling;
    EXPECT_EQ(c.kind, ParamKind::scalar) << e.spelling;
    EXPECT_EQ(c.scalar, e.scalar) << e.spelling;
    EXPECT_EQ(c.size, e.size) << e.spelling;
    EXPECT_EQ(scalar_size(e.scalar), e.size) << e.spelling;
  }
}

TEST(CTypes, PointersUserTypesAndReferences) {
  for (const char* p : {"float*", "const float * __restrict__", "T<a, b>*", "int[4]", "void*"}) {
    const TypeClass c = classify_c_type(p);
    EXPECT_TRUE(c.known) << p;
    EXPECT_EQ(c.kind, ParamKind::pointer) << p;
    EXPECT_EQ(c.size, sizeof(void*)) << p;
  }
  for (const char* u : {"Pair", "ArrayView<float, 2>", "float4", "int&", "long double", ""})
    EXPECT_FALSE(classify_c_type(u).known) << u;
}

TEST(CTypes, TokenizerSkipsCommentsLiteralsAndDirectives) {
  const auto t = tokenize_c("#define X 1\nint /* c */ a; // d\nconst char* s = \"x, y\"; ns::T");
  const std::vector<std::string_view> want{"int", "a", ";", "const", "char", "*",
                                           "s",   "=", ";", "ns",    "::",   "T"};
  EXPECT_EQ(t, want);
  EXPECT_TRUE(is_c_identifier("_x1"));
  EXPECT_FALSE(is_c_identifier("1x"));
  EXPECT_TRUE(is_c_qualifier("__restrict__"));
  EXPECT_FALSE(is_c_qualifier("float"));
}

TEST(CTypes, DeclarationSplitsIntoTypeAndName) {
  auto decl = split_c_declaration(" const float * __restrict__ x ");
  EXPECT_EQ(decl.type, "const float * __restrict__");
  EXPECT_EQ(decl.name, "x");
  decl = split_c_declaration("Pair<int, float>* p");
  EXPECT_EQ(decl.type, "Pair<int, float>*");
  EXPECT_EQ(decl.name, "p");
  decl = split_c_declaration("unsigned long long n_1");
  EXPECT_EQ(decl.type, "unsigned long long");
  EXPECT_EQ(decl.name, "n_1");
  EXPECT_TRUE(split_c_declaration("float*").name.empty());
  EXPECT_TRUE(split_c_declaration("x").name.empty());
  EXPECT_TRUE(split_c_declaration("unsigned int").name.empty());
  EXPECT_TRUE(split_c_declaration("const").name.empty());
}

TEST(CTypes, PointeeDropsTheLastTopLevelStar) {
  EXPECT_EQ(pointee_c_type("const float * __restrict__"), "const float ");
  EXPECT_EQ(pointee_c_type("float**"), "float*");
  EXPECT_EQ(pointee_c_type("Pair<int*, float>*"), "Pair<int*, float>");
  EXPECT_EQ(pointee_c_type("int"), "int");
}

}  // namespace
}  // namespace cudakit::detail
