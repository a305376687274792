// Arrays passed to user kernels as ArrayView<T, N> structs (pointer, shape,
// strides): transposed and reversed views indexed in the kernel, C-order
// flat indexing of broadcast views, 0-d views, the definition given as a
// header, and the checks on rank, dtype and read-only arrays.
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "cudakit/array_view.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "unit/array_test_support.hpp"

using namespace array_test;
using ck::DType;

namespace {

const char* kTransposeKernel = R"(
__global__ void transpose(ArrayView<const float, 2> in, ArrayView<float, 2> out) {
  long long i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
  long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < out.shape[0] && j < out.shape[1]) out(i, j) = in(j, i);
}
)";

class ArrayViewArg : public ArrayTest {
 protected:
  ck::Array random_array(const ck::Shape& shape, DType dtype = DType::float32) {
    return make_array(random_doubles(static_cast<std::size_t>(ck::shape_size(shape))), dtype,
                      shape);
  }
  ck::Module compile_with_views(const std::string& kernels) {
    ck::CompileOptions options;
    options.use_cache = false;
    return ck::compile(std::string(ck::array_view_source()) + kernels, options, device());
  }
};

TEST_F(ArrayViewArg, KernelReadsATransposedReversedView) {
  const std::int64_t rows = 37, cols = 53;  // not multiples of the 16x16 block
  ck::Array a = random_array({rows, cols});
  // v[p][q] = a[q][cols - 1 - p]: transposed, then the first axis reversed.
  ck::Array v = a.T().slice(0, std::nullopt, std::nullopt, -1);
  ASSERT_LT(v.strides()[0], 0);
  ck::Array out = ck::empty({rows, cols}, DType::float32);
  ck::Kernel k = compile_with_views(kTransposeKernel).kernel("transpose");
  k.launch(ck::grid_for_2d(static_cast<std::size_t>(cols), static_cast<std::size_t>(rows)),
           ck::view_arg<const float, 2>(v), ck::view_arg<2>(out));
  // out(i, j) = v(j, i) = a[i][cols - 1 - j].
  auto host_a = a.to_host<float>(), got = out.to_host<float>();
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      ASSERT_EQ(got[static_cast<std::size_t>(i * cols + j)],
                host_a[static_cast<std::size_t>(i * cols + cols - 1 - j)])
          << i << ", " << j;
}

TEST_F(ArrayViewArg, KernelWritesThroughAStridedView) {
  // Writes every third column of a matrix, in a transposed view of it.
  const std::int64_t rows = 19, cols = 31;
  ck::Array m = random_array({rows, cols}, DType::float64);
  auto before = m.to_host<double>();
  ck::Array target = m.slice(1, 0, std::nullopt, 3).T();  // (11, 19)
  ck::Kernel k = compile_with_views(R"(
__global__ void scale(ArrayView<double, 2> x, double f) {
  long long n = x.size();
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n;
       j += (long long)blockDim.x * gridDim.x)
    x[j] = x[j] * f;
}
)")
                     .kernel("scale");
  k.launch(ck::grid_for(static_cast<std::size_t>(target.size()), 64),
           ck::view_arg<double, 2>(target), 2.5);
  auto after = m.to_host<double>();
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const auto at = static_cast<std::size_t>(i * cols + j);
      ASSERT_EQ(after[at], j % 3 == 0 ? before[at] * 2.5 : before[at]) << i << ", " << j;
    }
}

TEST_F(ArrayViewArg, FlatIndexWalksABroadcastViewInCOrder) {
  ck::Array row = random_array({1, 7, 5}, DType::int32);
  ck::Array in = row.broadcast_to({3, 7, 5}).swapaxes(1, 2);  // (3, 5, 7), strides (0, 1, 5)
  ck::Array out = ck::empty({3 * 5 * 7}, DType::int32);
  ck::CompileOptions options;
  options.use_cache = false;
  ck::add_array_view_header(options);
  ck::Kernel k = ck::compile(R"(
#include "cudakit/array_view.cuh"
__global__ void flatten(ArrayView<const int, 3> in, int* out) {
  long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (j < in.size()) out[j] = in[j];
}
)",
                             options, device())
                     .kernel("flatten");
  k.launch(ck::grid_for(static_cast<std::size_t>(in.size()), 32), ck::view_arg<const int, 3>(in),
           out);
  EXPECT_EQ(host_doubles(out), host_doubles(in.copy()));
}

TEST_F(ArrayViewArg, ZeroDimensionalView) {
  ck::Array in = ck::full({}, 1.25, DType::float32);
  ck::Array out = ck::zeros({}, DType::float32);
  ck::Kernel k = compile_with_views(R"(
__global__ void twice(ArrayView<const float, 0> in, ArrayView<float, 0> out) { out() = 2 * in(); }
)")
                     .kernel("twice");
  k.launch(ck::grid_for(1, 1), ck::view_arg<0>(in), ck::view_arg<0>(out));
  EXPECT_EQ(out.item().as_double(), 2.5);
}

TEST_F(ArrayViewArg, ViewArgPacksPointerShapeAndStrides) {
  ck::Array a = random_array({4, 6}).T();
  ck::ArrayViewArg<2> v = ck::view_arg<2>(a);
  std::uint64_t address = 0;
  std::int64_t fields[4] = {};
  std::memcpy(&address, v.bytes, 8);
  std::memcpy(fields, v.bytes + 8, 32);
  EXPECT_EQ(address, a.address());
  EXPECT_EQ(fields[0], 6);
  EXPECT_EQ(fields[1], 4);
  EXPECT_EQ(fields[2], 1);
  EXPECT_EQ(fields[3], 6);
  const ck::ArgInfo info = ck::KernelArg<ck::ArrayViewArg<2>>::info(v);
  EXPECT_EQ(info.kind, ck::ParamKind::aggregate);
  EXPECT_EQ(info.size, 40u);
  EXPECT_STREQ(info.type_name, "ArrayView<float32, 2>");
}

TEST_F(ArrayViewArg, ViewOfAnotherRankAtLaunchIsAnError) {
  ck::Array in = random_array({5});
  ck::Array out = ck::empty({5, 5}, DType::float32);
  ck::Kernel k = compile_with_views(kTransposeKernel).kernel("transpose");
  try {
    k.launch(ck::grid_for_2d(5, 5), ck::view_arg<1>(in), ck::view_arg<2>(out));
    FAIL() << "expected ArgumentError";
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("ArrayView<float32, 1>"), std::string::npos) << e.what();
  }
}

// ArrayView<float32, 2> and ArrayView<int32, 2> are the same size: the
// launch compares the element type with the parameter's declaration.
TEST_F(ArrayViewArg, ViewOfAnotherElementTypeAtLaunchIsAnError) {
  ck::Array in = random_array({5, 5}, DType::float64);
  ck::Array out = ck::empty({5, 5}, DType::float32);
  ck::Kernel k = compile_with_views(kTransposeKernel).kernel("transpose");
  try {
    k.launch(ck::grid_for_2d(5, 5), ck::view_arg<2>(in), ck::view_arg<2>(out));
    FAIL() << "expected ArgumentError";
  } catch (const ck::ArgumentError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ArrayView<float64, 2>"), std::string::npos) << what;
    EXPECT_NE(what.find("holds float (float32)"), std::string::npos) << what;
    EXPECT_NE(what.find("astype(float32)"), std::string::npos) << what;
  }
}

// A launch remembers the argument type that last fitted each parameter:
// a later launch with another element type is still refused.
TEST_F(ArrayViewArg, AnotherElementTypeAfterAFittingLaunchIsStillAnError) {
  ck::Array in = random_array({5, 5});
  ck::Array out = ck::empty({5, 5}, DType::float32);
  ck::Kernel k = compile_with_views(kTransposeKernel).kernel("transpose");
  k.launch(ck::grid_for_2d(5, 5), ck::view_arg<2>(in), ck::view_arg<2>(out));
  ck::Array wider = random_array({5, 5}, DType::float64);
  EXPECT_THROW(k.launch(ck::grid_for_2d(5, 5), ck::view_arg<2>(wider), ck::view_arg<2>(out)),
               ck::ArgumentError);
  k.launch(ck::grid_for_2d(5, 5), ck::view_arg<2>(in), ck::view_arg<2>(out));
  const auto source = in.to_host<float>(), result = out.to_host<float>();
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j) EXPECT_EQ(result[i * 5 + j], source[j * 5 + i]);
}

TEST_F(ArrayViewArg, ViewArgOfAnArrayOfAnotherRankIsAnError) {
  EXPECT_THROW((void)ck::view_arg<2>(random_array({2, 3, 4})), ck::ArgumentError);
  EXPECT_THROW(((void)ck::view_arg<float, 1>(random_array({2, 3}))), ck::ArgumentError);
}

TEST_F(ArrayViewArg, TypedViewArgOfAnotherDtypeIsAnError) {
  EXPECT_THROW(((void)ck::view_arg<float, 2>(random_array({2, 3}, DType::float64))),
               ck::ArgumentError);
  EXPECT_THROW(((void)ck::view_arg<const int, 1>(random_array({4}, DType::uint32))),
               ck::ArgumentError);
  EXPECT_NO_THROW(
      ((void)ck::view_arg<std::complex<float>, 1>(random_array({4}, DType::complex64))));
  EXPECT_NO_THROW(((void)ck::view_arg<ck::Half, 1>(random_array({4}, DType::float16))));
}

TEST_F(ArrayViewArg, TypedViewArgOfAReadOnlyArrayNeedsAConstElement) {
  ck::Array a = random_array({3, 3});
  a.set_readonly(true);
  EXPECT_THROW(((void)ck::view_arg<float, 2>(a)), ck::ArgumentError);
  EXPECT_NO_THROW(((void)ck::view_arg<const float, 2>(a)));
}

TEST_F(ArrayViewArg, ViewArgOfANullArrayIsAnError) {
  EXPECT_THROW((void)ck::view_arg<1>(ck::Array()), ck::ArgumentError);
}

// The definition compiles for a GPU too (NVRTC, a cubin for sm_90 as a GPU
// launch compiles it), and the PTX the parameter layout is read from declares
// structs of the size view_arg packs (a 0-d view too: a struct, not a pointer).
TEST(ArrayViewSource, CompilesWithNvrtcWithTheSizeViewArgPacks) {
  ck::CompileOptions options;
  options.arch = "sm_90";
  options.use_cache = false;
  ck::CompiledCode code;
  try {
    code = ck::compile_only(std::string(ck::array_view_source()) + kTransposeKernel + R"(
__global__ void flat(ArrayView<const double, 3> in, ArrayView<double, 0> out) { out() = in[5]; }
)",
                            options, ck::BackendKind::cuda);
  } catch (const ck::NvrtcNotFound& e) {
    GTEST_SKIP() << "NVRTC is not installed: " << e.what();
  }
  EXPECT_NE(code.ptx.find(".param .align 8 .b8 transpose_param_0[40]"), std::string::npos)
      << code.ptx;
  EXPECT_NE(code.ptx.find(".param .align 8 .b8 flat_param_0[56]"), std::string::npos) << code.ptx;
  EXPECT_NE(code.ptx.find(".param .align 8 .b8 flat_param_1[8]"), std::string::npos) << code.ptx;
}

}  // namespace
