// The best-effort PTX reader behind `cudakit compile --resource-usage`.
#include <gtest/gtest.h>

#include "ptx_resources.hpp"

namespace {

using cudakit::cli::parse_ptx_resources;

constexpr const char* matmul_ptx = R"(
.version 9.0
.target sm_90
.address_size 64
	// .globl	matmul_shared
// _ZZ13matmul_sharedE2As has been demoted
// _ZZ13matmul_sharedE2Bs has been demoted

.visible .entry matmul_shared(
	.param .u64 matmul_shared_param_0,
	.param .u64 matmul_shared_param_1,
	.param .u64 matmul_shared_param_2,
	.param .u32 matmul_shared_param_3,
	.param .u32 matmul_shared_param_4,
	.param .u32 matmul_shared_param_5
)
{
	.reg .pred 	%p<12>;
	.reg .f32 	%f<63>;
	.reg .b32 	%r<43>;
	.reg .b64 	%rd<16>;
	// demoted variable
	.shared .align 4 .b8 _ZZ13matmul_sharedE2As[1024];
	// demoted variable
	.shared .align 4 .b8 _ZZ13matmul_sharedE2Bs[1024];
	ld.param.u64 	%rd4, [matmul_shared_param_0];
	ret;
}
)";

TEST(PtxResources, ReadsRegistersSharedAndParamsOfAnEntry) {
  auto kernels = parse_ptx_resources(matmul_ptx);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].name, "matmul_shared");
  EXPECT_EQ(kernels[0].virtual_registers, 63u + 43u + 16u);
  EXPECT_EQ(kernels[0].predicate_registers, 12u);
  EXPECT_EQ(kernels[0].shared_bytes, 2048u);
  EXPECT_EQ(kernels[0].param_bytes, 3u * 8u + 3u * 4u);
  EXPECT_EQ(kernels[0].local_bytes, 0u);
  EXPECT_FALSE(kernels[0].uses_dynamic_shared);
}

TEST(PtxResources, AttributesModuleScopeSharedOnlyToEntriesThatUseIt) {
  constexpr const char* ptx = R"(
.shared .align 4 .f32 tile[256];
.visible .entry uses_tile(.param .u64 p)
{
	.reg .b32 %r<3>;
	mov.u32 %r1, tile;
	ret;
}
.visible .entry no_tile(.param .u64 p)
{
	.reg .b32 %r<2>;
	mov.u32 %r1, tile_other;
	ret;
}
)";
  auto kernels = parse_ptx_resources(ptx);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].shared_bytes, 1024u);
  EXPECT_EQ(kernels[1].shared_bytes, 0u);
}

TEST(PtxResources, ReadsTheLocalDepotAsLocalBytes) {
  constexpr const char* ptx = R"(
.visible .entry spills(.param .u32 n)
{
	.local .align 8 .b8 	__local_depot0[40];
	.reg .b64 	%SP;
	.reg .b32 	%r<9>;
	ret;
}
)";
  auto kernels = parse_ptx_resources(ptx);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].local_bytes, 40u);
  EXPECT_EQ(kernels[0].virtual_registers, 9u + 1u);
}

TEST(PtxResources, FlagsDynamicSharedMemory) {
  constexpr const char* ptx = R"(
.extern .shared .align 16 .b8 dynamic_smem[];
.visible .entry reduce(.param .u64 p)
{
	.reg .b32 %r<4>;
	mov.u32 %r1, dynamic_smem;
	ret;
}
)";
  auto kernels = parse_ptx_resources(ptx);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_TRUE(kernels[0].uses_dynamic_shared);
  EXPECT_EQ(kernels[0].shared_bytes, 0u);
}

TEST(PtxResources, MultiDimensionalArraysMultiplyTheirExtents) {
  constexpr const char* ptx = R"(
.visible .entry grid2(.param .u64 p)
{
	.shared .align 4 .f32 block_tile[16][17];
	ret;
}
)";
  auto kernels = parse_ptx_resources(ptx);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].shared_bytes, 16u * 17u * 4u);
}

TEST(PtxResources, TextWithoutEntriesGivesNoKernels) {
  EXPECT_TRUE(parse_ptx_resources(".version 9.0\n.target sm_90\n").empty());
  EXPECT_TRUE(parse_ptx_resources("").empty());
}

}  // namespace
