// The source and demangled-symbol readers that name kernel parameter types.
#include <gtest/gtest.h>

#include "core/kernel_signature_scanner.hpp"

namespace cudakit::detail {
namespace {

const KernelSignature& only(const std::vector<KernelSignature>& sigs) {
  EXPECT_EQ(sigs.size(), 1u);
  return sigs.front();
}

TEST(KernelSignatureScanner, ReadsNamesAndTypesOfASimpleKernel) {
  auto sigs = scan_kernel_signatures(
      "__global__ void vec_add(const float* a, const float* b, float* c, int n) { }");
  const auto& k = only(sigs);
  EXPECT_EQ(k.name, "vec_add");
  EXPECT_FALSE(k.is_template);
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].type, "const float *");
  EXPECT_EQ(k.params[0].name, "a");
  EXPECT_EQ(k.params[2].type, "float *");
  EXPECT_EQ(k.params[3].type, "int");
  EXPECT_EQ(k.params[3].name, "n");
}

TEST(KernelSignatureScanner, DropsRestrictAndKeepsConst) {
  auto k = only(scan_kernel_signatures(
      "__global__ void k(const double* __restrict__ x, double * __restrict y) {}"));
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].type, "const double *");
  EXPECT_EQ(k.params[0].name, "x");
  EXPECT_EQ(k.params[1].type, "double *");
  EXPECT_EQ(k.params[1].name, "y");
}

TEST(KernelSignatureScanner, IgnoresKernelsInCommentsStringsAndDirectives) {
  auto sigs = scan_kernel_signatures(R"src(
    // __global__ void in_line_comment(int a) {}
    /* __global__ void in_block_comment(int a) {} */
    #define DECLARE __global__ void in_macro(int a)
    #define LONG_MACRO(x) \
        __global__ void in_continued_macro(int x)
    const char* text = "__global__ void in_string(int a)";
    __global__ void real(int a) {}
  )src");
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_EQ(sigs[0].name, "real");
}

TEST(KernelSignatureScanner, StepsOverLaunchBoundsAndAttributes) {
  auto sigs = scan_kernel_signatures(R"(
    __global__ void __launch_bounds__(256, 2) bounded(float* out, unsigned n) {}
    __global__ __attribute__((noinline)) void attributed(long long v) {}
    extern "C" __global__ void extern_c(short s) {}
  )");
  ASSERT_EQ(sigs.size(), 3u);
  EXPECT_EQ(sigs[0].name, "bounded");
  ASSERT_EQ(sigs[0].params.size(), 2u);
  EXPECT_EQ(sigs[0].params[1].type, "unsigned");
  EXPECT_EQ(sigs[1].name, "attributed");
  EXPECT_EQ(sigs[1].params[0].type, "long long");
  EXPECT_EQ(sigs[2].name, "extern_c");
}

TEST(KernelSignatureScanner, MarksTemplates) {
  auto sigs = scan_kernel_signatures(R"(
    template <typename T, int N>
    __global__ void scaled(T* data, T factor) {}
    __global__ void plain(int x) {}
  )");
  ASSERT_EQ(sigs.size(), 2u);
  EXPECT_TRUE(sigs[0].is_template);
  EXPECT_EQ(sigs[0].params[0].type, "T *");
  EXPECT_EQ(sigs[0].params[1].name, "factor");
  EXPECT_FALSE(sigs[1].is_template);
}

TEST(KernelSignatureScanner, HandlesEmptyAndVoidParameterLists) {
  auto sigs = scan_kernel_signatures("__global__ void a() {} __global__ void b(void) {}");
  ASSERT_EQ(sigs.size(), 2u);
  EXPECT_TRUE(sigs[0].params.empty());
  EXPECT_TRUE(sigs[1].params.empty());
}

TEST(KernelSignatureScanner, ReadsUnnamedParametersAndStructTypes) {
  auto k = only(scan_kernel_signatures(
      "struct Pair { float a, b; };\n__global__ void k(Pair p, const Pair, int, float2 v) {}"));
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].type, "Pair");
  EXPECT_EQ(k.params[0].name, "p");
  EXPECT_EQ(k.params[1].type, "const Pair");
  EXPECT_EQ(k.params[1].name, "");
  EXPECT_EQ(k.params[2].type, "int");
  EXPECT_EQ(k.params[2].name, "");
  EXPECT_EQ(k.params[3].name, "v");
}

TEST(KernelSignatureScanner, TreatsArrayParametersAsPointers) {
  auto k = only(scan_kernel_signatures("__global__ void k(float a[], int b[16]) {}"));
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].type, "float *");
  EXPECT_EQ(k.params[0].name, "a");
  EXPECT_EQ(classify_param_type(k.params[1].type).kind, ParamKind::pointer);
}

TEST(KernelSignatureScanner, KeepsTemplateArgumentsInsideOneParameter) {
  auto k = only(scan_kernel_signatures("__global__ void k(Tuple<int, float> t, int n) {}"));
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].type, "Tuple<int, float>");
  EXPECT_EQ(k.params[0].name, "t");
}

TEST(KernelSignatureScanner, FindsKernelsInsideExternCAndNamespaces) {
  auto sigs = scan_kernel_signatures(
      "extern \"C\" {\n#line 1\nnamespace ns { __global__ void inner(int* p) {} }\n}\n");
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_EQ(sigs[0].name, "inner");
}

TEST(KernelSignatureScanner, SkipsDeclarationsThatAreNotKernels) {
  auto sigs = scan_kernel_signatures(
      "__device__ float helper(float x) { return x; }\n__global__ void k(float* y) {}");
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_EQ(sigs[0].name, "k");
}

TEST(DemangledNames, SplitsParameterTypes) {
  auto types = demangled_param_types("void vec_add<float>(float const*, float*, int)");
  ASSERT_TRUE(types);
  ASSERT_EQ(types->size(), 3u);
  EXPECT_EQ((*types)[0], "float const*");
  EXPECT_EQ((*types)[2], "int");
}

TEST(DemangledNames, KeepsCommasInsideTemplateArguments) {
  auto types = demangled_param_types("k(Pair<int, float>, unsigned long)");
  ASSERT_TRUE(types);
  ASSERT_EQ(types->size(), 2u);
  EXPECT_EQ((*types)[0], "Pair<int, float>");
}

TEST(DemangledNames, EmptyParameterListHasNoTypes) {
  auto types = demangled_param_types("k()");
  ASSERT_TRUE(types);
  EXPECT_TRUE(types->empty());
  EXPECT_FALSE(demangled_param_types("not_a_function"));
}

TEST(DemangledNames, StripsReturnTypeScopeAndTemplateArguments) {
  EXPECT_EQ(demangled_without_params("void ns::vec_add<float>(float const*)"),
            "ns::vec_add<float>");
  EXPECT_EQ(demangled_base_name("void ns::vec_add<float>(float const*)"), "vec_add");
  EXPECT_EQ(demangled_base_name("vec_add(float const*, int)"), "vec_add");
  EXPECT_EQ(demangled_base_name("void k<Pair<int, float> >(int)"), "k");
}

TEST(DemangledNames, DemanglesItaniumSymbols) {
  EXPECT_EQ(demangle("_Z7vec_addPKfPfi"), "vec_add(float const*, float*, int)");
  EXPECT_EQ(demangle("_Z7vec_addIfEvPKT_PS0_i"), "void vec_add<float>(float const*, float*, int)");
  EXPECT_EQ(demangle("vec_add"), "vec_add");
  EXPECT_EQ(demangle("_Znot valid"), "_Znot valid");
}

TEST(ClassifyParamType, PointersWhateverTheirTarget) {
  for (const char* t : {"float *", "const float *", "float const*", "Pair*", "T *", "void*",
                        "float * const", "int**"}) {
    auto c = classify_param_type(t);
    EXPECT_TRUE(c.known) << t;
    EXPECT_EQ(c.kind, ParamKind::pointer) << t;
    EXPECT_EQ(c.size, 8u) << t;
  }
}

TEST(ClassifyParamType, BuiltinIntegersInEverySpelling) {
  struct Case {
    const char* type;
    ScalarType scalar;
    std::size_t size;
  };
  for (auto c : {Case{"int", ScalarType::i32, 4}, Case{"const int", ScalarType::i32, 4},
                 Case{"unsigned", ScalarType::u32, 4}, Case{"unsigned int", ScalarType::u32, 4},
                 Case{"long", ScalarType::i64, 8}, Case{"long long", ScalarType::i64, 8},
                 Case{"unsigned long long int", ScalarType::u64, 8},
                 Case{"long unsigned int", ScalarType::u64, 8}, Case{"short", ScalarType::i16, 2},
                 Case{"unsigned short", ScalarType::u16, 2}, Case{"char", ScalarType::i8, 1},
                 Case{"signed char", ScalarType::i8, 1}, Case{"unsigned char", ScalarType::u8, 1},
                 Case{"size_t", ScalarType::u64, 8}, Case{"std::size_t", ScalarType::u64, 8},
                 Case{"int64_t", ScalarType::i64, 8}, Case{"uint32_t", ScalarType::u32, 4},
                 Case{"ptrdiff_t", ScalarType::i64, 8}, Case{"bool", ScalarType::boolean, 1}}) {
    auto got = classify_param_type(c.type);
    EXPECT_TRUE(got.known) << c.type;
    EXPECT_EQ(got.kind, ParamKind::scalar) << c.type;
    EXPECT_EQ(got.scalar, c.scalar) << c.type;
    EXPECT_EQ(got.size, c.size) << c.type;
  }
}

TEST(ClassifyParamType, FloatingPointTypes) {
  EXPECT_EQ(classify_param_type("float").scalar, ScalarType::f32);
  EXPECT_EQ(classify_param_type("const double").scalar, ScalarType::f64);
  EXPECT_EQ(classify_param_type("__half").scalar, ScalarType::f16);
  EXPECT_EQ(classify_param_type("__nv_bfloat16").scalar, ScalarType::bf16);
}

TEST(ClassifyParamType, UserTypesAreUnknown) {
  for (const char* t :
       {"Pair", "float2", "real_t", "T", "long double", "Tuple<int, float>", "int&"})
    EXPECT_FALSE(classify_param_type(t).known) << t;
}

}  // namespace
}  // namespace cudakit::detail
