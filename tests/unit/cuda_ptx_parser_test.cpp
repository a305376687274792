// Parameter layouts read from PTX `.entry` declarations, over hand-written
// PTX for the rare forms and over real NVRTC output for the common ones.
#include <gtest/gtest.h>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/ptx_entry_parser.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

using detail::find_ptx_entry;
using detail::parse_ptx_entries;

ParamLayout layout_of(const std::string& ptx, const std::string& name) {
  auto layout = find_ptx_entry(ptx, name);
  EXPECT_TRUE(layout.has_value()) << "no entry " << name << " in\n" << ptx;
  return layout.value_or(ParamLayout{});
}

void expect_param(const Param& p, ParamKind kind, ScalarType scalar, std::size_t size,
                  std::size_t align, std::size_t offset) {
  EXPECT_EQ(p.kind, kind);
  EXPECT_EQ(p.scalar, scalar);
  EXPECT_EQ(p.size, size);
  EXPECT_EQ(p.align, align);
  EXPECT_EQ(p.offset, offset);
}

std::string nvrtc_ptx(const std::string& source, std::vector<std::string> names = {}) {
  detail::CudaBackend backend;
  detail::CompileRequest request;
  request.source = source;
  request.options.arch = "sm_90";
  request.options.name_expressions = std::move(names);
  return backend.compile(request).ptx;
}

TEST(PtxEntryParser, ScalarTypesMapToKindsAndSizes) {
  const std::string ptx = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .f32 k_param_1,
	.param .f64 k_param_2,
	.param .u32 k_param_3,
	.param .s32 k_param_4,
	.param .b32 k_param_5,
	.param .u16 k_param_6,
	.param .s16 k_param_7,
	.param .b16 k_param_8,
	.param .u8 k_param_9,
	.param .s8 k_param_10,
	.param .s64 k_param_11,
	.param .b64 k_param_12
)
{
	ret;
}
)";
  ParamLayout layout = layout_of(ptx, "k");
  ASSERT_EQ(layout.params.size(), 13u);
  expect_param(layout.params[0], ParamKind::pointer_or_u64, ScalarType::u64, 8, 8, 0);
  expect_param(layout.params[1], ParamKind::scalar, ScalarType::f32, 4, 4, 8);
  expect_param(layout.params[2], ParamKind::scalar, ScalarType::f64, 8, 8, 16);
  expect_param(layout.params[3], ParamKind::scalar, ScalarType::u32, 4, 4, 24);
  expect_param(layout.params[4], ParamKind::scalar, ScalarType::i32, 4, 4, 28);
  expect_param(layout.params[5], ParamKind::scalar, ScalarType::u32, 4, 4, 32);
  expect_param(layout.params[6], ParamKind::scalar, ScalarType::u16, 2, 2, 36);
  expect_param(layout.params[7], ParamKind::scalar, ScalarType::i16, 2, 2, 38);
  expect_param(layout.params[8], ParamKind::scalar, ScalarType::unknown, 2, 2, 40);
  expect_param(layout.params[9], ParamKind::scalar, ScalarType::u8, 1, 1, 42);
  expect_param(layout.params[10], ParamKind::scalar, ScalarType::i8, 1, 1, 43);
  expect_param(layout.params[11], ParamKind::pointer_or_u64, ScalarType::i64, 8, 8, 48);
  expect_param(layout.params[12], ParamKind::pointer_or_u64, ScalarType::u64, 8, 8, 56);
}

TEST(PtxEntryParser, AlignedByteArrayIsAnAggregate) {
  const std::string ptx = R"(
.visible .entry s(
	.param .u8 s_param_0,
	.param .align 8 .b8 s_param_1[24],
	.param .align 4 .b8 s_param_2[12]
)
{ ret; }
)";
  ParamLayout layout = layout_of(ptx, "s");
  ASSERT_EQ(layout.params.size(), 3u);
  expect_param(layout.params[1], ParamKind::aggregate, ScalarType::unknown, 24, 8, 8);
  expect_param(layout.params[2], ParamKind::aggregate, ScalarType::unknown, 12, 4, 32);
  EXPECT_EQ(layout.total_bytes(), 44u);
}

TEST(PtxEntryParser, PtrStateSpaceFormIsAPointer) {
  const std::string ptx = R"(
.entry p(
	.param .u64 .ptr .global .align 4 p_param_0,
	.param .u32 p_param_1
)
{ ret; }
)";
  ParamLayout layout = layout_of(ptx, "p");
  ASSERT_EQ(layout.params.size(), 2u);
  expect_param(layout.params[0], ParamKind::pointer, ScalarType::unknown, 8, 8, 0);
  expect_param(layout.params[1], ParamKind::scalar, ScalarType::u32, 4, 4, 8);
}

TEST(PtxEntryParser, EntryWithoutParametersHasAnEmptyLayout) {
  const std::string ptx = ".visible .entry empty()\n{\n ret;\n}\n.entry bare\n{\n ret;\n}\n";
  auto entries = parse_ptx_entries(ptx);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "empty");
  EXPECT_TRUE(entries[0].layout.params.empty());
  EXPECT_EQ(entries[1].name, "bare");
  EXPECT_TRUE(entries[1].layout.params.empty());
}

TEST(PtxEntryParser, EntriesInCommentsAreIgnored) {
  const std::string ptx = R"(
// .entry ghost(.param .u64 x)
/* .entry phantom(
   .param .u32 y) */
.visible .entry real(
	.param .u32 real_param_0 // trailing comment, .param .u64 z
)
{ ret; }
)";
  auto entries = parse_ptx_entries(ptx);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "real");
  ASSERT_EQ(entries[0].layout.params.size(), 1u);
  EXPECT_FALSE(find_ptx_entry(ptx, "ghost").has_value());
}

TEST(PtxEntryParser, FunctionsThatAreNotEntriesAreSkipped) {
  const std::string ptx = R"(
.func (.param .b32 func_retval0) helper(.param .b32 helper_param_0)
{ ret; }
.visible .entry k(.param .u64 k_param_0)
{ ret; }
)";
  auto entries = parse_ptx_entries(ptx);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "k");
}

TEST(PtxEntryParser, UnknownParameterTypeIsAnError) {
  EXPECT_THROW(parse_ptx_entries(".entry k(.param .q128 k_param_0)\n{ret;}"), ArgumentError);
}

TEST(PtxEntryParser, UnclosedParameterListIsAnError) {
  EXPECT_THROW(parse_ptx_entries(".entry k(.param .u32 k_param_0,"), ArgumentError);
}

TEST(PtxEntryParser, MissingEntryIsNullopt) {
  EXPECT_FALSE(find_ptx_entry(".entry k()\n{ret;}", "other").has_value());
}

TEST(PtxEntryParser, VersionAndTargetAreRead) {
  const std::string ptx = "//\n// Generated\n.version 8.7\n.target sm_90a\n.address_size 64\n";
  EXPECT_EQ(detail::ptx_isa_version(ptx), 87);
  EXPECT_EQ(detail::ptx_target(ptx), "sm_90a");
  EXPECT_EQ(detail::ptx_isa_version("nothing here"), 0);
}

TEST(PtxEntryParserNvrtc, PointersIntsDoublesAndChars) {
  const std::string ptx = nvrtc_ptx(R"(
extern "C" __global__ void mixed(const float* __restrict__ a, double d, char c, int n,
                                 bool flag, short s, unsigned long long u, float* out) {
  if (flag) out[n] = a[0] + d + c + s + u;
})");
  ParamLayout layout = layout_of(ptx, "mixed");
  ASSERT_EQ(layout.params.size(), 8u);
  EXPECT_EQ(layout.params[0].kind, ParamKind::pointer_or_u64);
  expect_param(layout.params[1], ParamKind::scalar, ScalarType::f64, 8, 8, 8);
  EXPECT_EQ(layout.params[2].size, 1u);
  EXPECT_EQ(layout.params[2].offset, 16u);
  EXPECT_EQ(layout.params[3].size, 4u);
  EXPECT_EQ(layout.params[3].offset, 20u);
  EXPECT_EQ(layout.params[4].size, 1u);
  EXPECT_EQ(layout.params[4].offset, 24u);
  EXPECT_EQ(layout.params[5].size, 2u);
  EXPECT_EQ(layout.params[5].offset, 26u);
  EXPECT_EQ(layout.params[6].kind, ParamKind::pointer_or_u64);
  EXPECT_EQ(layout.params[6].offset, 32u);
  EXPECT_EQ(layout.params[7].offset, 40u);
  EXPECT_EQ(layout.total_bytes(), 48u);
}

TEST(PtxEntryParserNvrtc, StructsByValueAreAlignedAggregates) {
  const std::string ptx = nvrtc_ptx(R"(
struct Vec3 { float x, y, z; };
struct Mixed { double a; char c; };
extern "C" __global__ void structs(char tag, Vec3 v, Mixed m, float4 q, float* out) {
  out[0] = tag + v.x + m.a + m.c + q.w;
})");
  ParamLayout layout = layout_of(ptx, "structs");
  ASSERT_EQ(layout.params.size(), 5u);
  expect_param(layout.params[1], ParamKind::aggregate, ScalarType::unknown, 12, 4, 4);
  expect_param(layout.params[2], ParamKind::aggregate, ScalarType::unknown, 16, 8, 16);
  expect_param(layout.params[3], ParamKind::aggregate, ScalarType::unknown, 16, 16, 32);
  EXPECT_EQ(layout.params[4].offset, 48u);
}

TEST(PtxEntryParserNvrtc, HalfIsATwoByteParameter) {
  const std::string ptx = nvrtc_ptx(R"(
#include <cuda_fp16.h>
extern "C" __global__ void half_k(__half h, float* out) { out[0] = __half2float(h); })");
  ParamLayout layout = layout_of(ptx, "half_k");
  ASSERT_EQ(layout.params.size(), 2u);
  EXPECT_EQ(layout.params[0].size, 2u);
  EXPECT_EQ(layout.params[0].align, 2u);
  EXPECT_EQ(layout.params[1].offset, 8u);
}

TEST(PtxEntryParserNvrtc, TemplateInstantiationsAreSeparateEntries) {
  const std::string ptx = nvrtc_ptx(R"(
template <typename T>
__global__ void fill(T* out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
})",
                                    {"fill<double>", "fill<char>"});
  ParamLayout d = layout_of(ptx, "_Z4fillIdEvPT_S0_i");
  ASSERT_EQ(d.params.size(), 3u);
  expect_param(d.params[1], ParamKind::scalar, ScalarType::f64, 8, 8, 8);
  EXPECT_EQ(d.params[2].offset, 16u);
  ParamLayout c = layout_of(ptx, "_Z4fillIcEvPT_S0_i");
  ASSERT_EQ(c.params.size(), 3u);
  EXPECT_EQ(c.params[1].size, 1u);
  EXPECT_EQ(c.params[2].offset, 12u);
}

TEST(PtxEntryParserNvrtc, EveryKernelOfAModuleIsListed) {
  const std::string ptx = nvrtc_ptx(R"(
extern "C" __global__ void first(int* a) { a[0] = 1; }
extern "C" __global__ void second() {}
__device__ int helper(int x) { return x + 1; }
extern "C" __global__ void third(int* a) { a[0] = helper(a[0]); })");
  auto entries = parse_ptx_entries(ptx);
  std::vector<std::string> names;
  for (const auto& entry : entries) names.push_back(entry.name);
  EXPECT_EQ(names, (std::vector<std::string>{"first", "second", "third"}));
}

}  // namespace
}  // namespace cudakit
