// ElementwiseKernel with PyCUDA's semantics: `i` is the index, arguments are
// checked against the declared list, numbers converted to declared types.
#include "array/elementwise_eval.hpp"
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/error.hpp"
#include "cudakit/reduction_kernel.hpp"
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

TEST_F(ElementwiseKernelTest, LargeArrayBeyondOneWaveIsFullyCovered) {
  // More elements than one wave of resident threads on any current GPU, and
  // not a multiple of the block: every index runs exactly once.
  const std::size_t n = 3000017;
  ck::ElementwiseKernel k("const float *x, float *y, int *hits",
                          "y[i] = 3 * x[i] - 1; hits[i] += 1", "scale_and_count");
  auto x = random_values<float>(n);
  ck::Array dx = ck::from_host(x), dy = ck::empty({static_cast<std::int64_t>(n)});
  ck::Array hits = ck::zeros({static_cast<std::int64_t>(n)}, DType::int32);
  k({dx, dy, hits});
  auto y = dy.to_host<float>();
  auto h = hits.to_host<std::int32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(h[i], 1) << "index " << i;
    ASSERT_NEAR(y[i], 3 * x[i] - 1, 1e-6f * (3 * std::fabs(x[i]) + 1)) << "index " << i;
  }
}

TEST_F(ElementwiseKernelTest, DefaultLaunchUsesTheSharedElementwiseShape) {
  // The grid the kernel sees is the array layer's: covering the range on a
  // GPU, one wave with a grid-stride loop on the CPU backend.
  const std::int64_t n = 1000003;
  ck::ElementwiseKernel k("unsigned int *threads", "threads[i] = gridDim.x * blockDim.x",
                          "record_threads");
  ck::Array t = ck::zeros({n}, DType::uint32);
  k({t});
  const ck::LaunchConfig want = ck::detail::elementwise_config(device(), n, t.stream());
  const auto got = t.to_host<std::uint32_t>();
  const std::uint32_t threads = want.grid.x * want.block.x;
  EXPECT_EQ(got.front(), threads);
  EXPECT_EQ(got.back(), threads);
  if (backend_under_test() == ck::BackendKind::cuda) {
    EXPECT_GE(std::int64_t{threads}, n);
  }
}

TEST_F(ElementwiseKernelTest, LargeRangeAndSliceVisitExactlyTheirIndices) {
  const std::int64_t n = 2000003;
  ck::ElementwiseKernel k("int *z", "z[i] += (int)(i % 1000) + 1", "mark_large");
  ck::Array z = ck::zeros({n}, DType::int32);
  k({z}, ck::ElementwiseKernel::Range{5, n - 2, 3});
  auto h = z.to_host<std::int32_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    const bool in = i >= 5 && i < n - 2 && (i - 5) % 3 == 0;
    ASSERT_EQ(h[static_cast<std::size_t>(i)], in ? static_cast<int>(i % 1000) + 1 : 0)
        << "index " << i;
  }
  ck::Array w = ck::zeros({n}, DType::int32);
  k({w}, ck::Slice(n - 10, std::nullopt, -7));  // n-10, n-17, ..., down to 0
  auto g = w.to_host<std::int32_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    const bool in = i <= n - 10 && (n - 10 - i) % 7 == 0;
    ASSERT_EQ(g[static_cast<std::size_t>(i)], in ? static_cast<int>(i % 1000) + 1 : 0)
        << "index " << i;
  }
}

TEST_F(ElementwiseKernelTest, OperationCanReadTheElementCountN) {
  // PyCUDA's reverse: n is the first array's size.
  ck::ElementwiseKernel k("const double *x, double *y", "y[i] = x[n - 1 - i]", "reverse");
  auto x = random_values<double>(4099);
  ck::Array dx = ck::from_host(x), dy = ck::empty({4099}, DType::float64);
  k({dx, dy});
  auto y = dy.to_host<double>();
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[x.size() - 1 - i]);
}

TEST_F(ElementwiseKernelTest, ArgumentNamedNTakesPrecedence) {
  ck::ElementwiseKernel k("int *z, int n", "z[i] = n", "fill_n");
  ck::Array z = ck::zeros({300}, DType::int32);
  k({z, 17});
  EXPECT_EQ(z.to_host<std::int32_t>(), std::vector<std::int32_t>(300, 17));
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

TEST_F(ElementwiseKernelTest, StridedViewsAreIndexedInCOrder) {
  // x[i] is element i of x in C order, whatever its layout (as x.ravel()[i]).
  ck::ElementwiseKernel k("const double *x, const double *y, double *z", "z[i] = 2 * x[i] - y[i]",
                          "combine_views");
  auto xh = random_values<double>(37 * 53), yh = random_values<double>(2 * 37 * 53);
  ck::Array x = make_array(xh, DType::float64, {37, 53}).transpose();  // (53, 37)
  ck::Array y = make_array(yh, DType::float64, {53, 74}).slice(1, std::nullopt, std::nullopt, -2);
  ck::Array z = ck::empty({53, 37}, DType::float64);
  k({x, y, z});
  auto xv = x.copy().to_host<double>(), yv = y.copy().to_host<double>();
  auto got = z.to_host<double>();
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 2 * xv[i] - yv[i]) << i;
}

TEST_F(ElementwiseKernelTest, WritesReachAStridedOutputView) {
  ck::ElementwiseKernel k("const float *x, float *z", "z[i] = x[i] + 1", "write_view");
  auto xh = random_values<float>(3001);
  ck::Array base = ck::zeros({3 * 3001}, DType::float32);
  ck::Array every_third = base.slice(0, 2, std::nullopt, 3);  // 3001 elements, stride 3
  k({ck::from_host(xh), every_third});
  auto got = base.to_host<float>();
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], i % 3 == 2 ? xh[i / 3] + 1 : 0.0f) << i;
}

TEST_F(ElementwiseKernelTest, BroadcastViewIsReadThroughZeroStrides) {
  ck::ElementwiseKernel k("const float *row, const float *x, float *z", "z[i] = x[i] * row[i]",
                          "scale_rows");
  auto rh = random_values<float>(41), xh = random_values<float>(29 * 41);
  ck::Array row = make_array(std::vector<double>(rh.begin(), rh.end()), DType::float32, {41})
                      .broadcast_to({29, 41});
  ck::Array x = make_array(std::vector<double>(xh.begin(), xh.end()), DType::float32, {29, 41});
  ck::Array z = ck::empty({29, 41});
  k({row, x, z});
  auto got = z.to_host<float>();
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], xh[i] * rh[i % 41]) << i;
}

TEST_F(ElementwiseKernelTest, PointerUseOfAConstViewReadsACopy) {
  ck::ElementwiseKernel k("const int *x, int *z", "z[i] = *(x + i)", "deref_view");
  auto xh = random_values<std::int32_t>(1001);
  ck::Array x = ck::from_host(xh).slice(0, std::nullopt, std::nullopt, -1);
  ck::Array z = ck::empty({1001}, DType::int32);
  k({x, z});
  std::vector<std::int32_t> want(xh.rbegin(), xh.rend());
  EXPECT_EQ(z.to_host<std::int32_t>(), want);
}

TEST_F(ElementwiseKernelTest, PointerUseOfAWritableViewIsAnError) {
  ck::ElementwiseKernel k("float *z", "*(z + i) = 0", "deref_write");
  EXPECT_THROW(k({ck::ones({8}).slice(0, std::nullopt, std::nullopt, 2)}), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, ReadOnlyViewForAWritableParameterIsAnError) {
  ck::ElementwiseKernel k("float *z", "z[i] = 0", "zero_view");
  EXPECT_THROW(k({ck::ones({4}).broadcast_to({3, 4})}), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, BadArgumentListIsAnError) {
  EXPECT_THROW(ck::ElementwiseKernel("float", "x[i] = 0", "k"), ck::ArgumentError);
  // A struct type is a struct passed by value: it takes a StructValue, not a number.
  ck::ElementwiseKernel by_value("struct foo f, float *x", "x[i] = 0", "k");
  EXPECT_TRUE(by_value.params()[0].by_value_struct);
  EXPECT_THROW(by_value({1.0, ck::ones({4})}), ck::ArgumentError);
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

// Every C spelling of a scalar type reads as its dtype, for values and for
// the element type of pointers (the core's C-types module decides).
TEST_F(ElementwiseKernelTest, EveryScalarSpellingReadsAsItsDType) {
  const std::pair<const char*, DType> spellings[] = {
      {"bool", DType::bool_},
      {"char", DType::int8},
      {"signed char", DType::int8},
      {"int8_t", DType::int8},
      {"std::int8_t", DType::int8},
      {"unsigned char", DType::uint8},
      {"uint8_t", DType::uint8},
      {"short", DType::int16},
      {"short int", DType::int16},
      {"signed short", DType::int16},
      {"int16_t", DType::int16},
      {"unsigned short", DType::uint16},
      {"uint16_t", DType::uint16},
      {"int", DType::int32},
      {"signed", DType::int32},
      {"int32_t", DType::int32},
      {"unsigned", DType::uint32},
      {"unsigned int", DType::uint32},
      {"uint32_t", DType::uint32},
      {"long", DType::int64},
      {"long long", DType::int64},
      {"long long int", DType::int64},
      {"int64_t", DType::int64},
      {"ptrdiff_t", DType::int64},
      {"unsigned long", DType::uint64},
      {"unsigned long long", DType::uint64},
      {"unsigned long long int", DType::uint64},
      {"uint64_t", DType::uint64},
      {"size_t", DType::uint64},
      {"float", DType::float32},
      {"double", DType::float64},
      {"__half", DType::float16},
      {"half", DType::float16},
      {"cudakit_half", DType::float16},
      {"__nv_bfloat16", DType::bfloat16},
      {"cudakit_bfloat16", DType::bfloat16},
      {"cudakit_complex64", DType::complex64},
      {"cudakit_complex128", DType::complex128},
      {"const unsigned long long", DType::uint64},
  };
  for (const auto& [spelling, dtype] : spellings) {
    const std::string type = spelling;
    ck::ElementwiseKernel k(type + " v, " + type + " *out, const " + type + "* __restrict__ in",
                            "out[i] = in[i] + v", "spelled");
    ASSERT_EQ(k.params().size(), 3u) << type;
    EXPECT_FALSE(k.params()[0].pointer) << type;
    EXPECT_EQ(k.params()[0].dtype, dtype) << type;
    EXPECT_TRUE(k.params()[1].pointer) << type;
    EXPECT_EQ(k.params()[1].dtype, dtype) << type;
    EXPECT_EQ(k.params()[2].dtype, dtype) << type;
  }
}

TEST_F(ElementwiseKernelTest, SizeTAndUnsignedLongLongCarry64BitValues) {
  ck::ElementwiseKernel k("size_t base, unsigned long long step, unsigned long long *out",
                          "out[i] = base + step * (unsigned long long)i", "wide_ramp");
  const std::uint64_t base = (std::uint64_t{1} << 40) + 12345, step = (std::uint64_t{1} << 33) + 7;
  const std::int64_t n = 1003;
  ck::Array out = ck::zeros({n}, DType::uint64);
  k({ck::Scalar(base), ck::Scalar(step), out});
  const auto h = out.to_host<std::uint64_t>();
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(h[static_cast<std::size_t>(i)], base + step * static_cast<std::uint64_t>(i))
        << "index " << i;
  // The pointee of an unsigned long long* is uint64: an int64 array is refused.
  ck::Array wrong = ck::zeros({n}, DType::int64);
  EXPECT_THROW(k({ck::Scalar(base), ck::Scalar(step), wrong}), ck::ArgumentError);
}

TEST_F(ElementwiseKernelTest, TemplateTypesKeepTheirCommas) {
  // "Pick<int, float>::type" is one argument, not two: the list is split at
  // top-level commas only.
  const std::string preamble = "template <class A, class B> struct Pick { typedef B type; };";
  ck::ElementwiseKernel k("const Pick<int, float>::type *x, Pick<char, float>::type *y, float a",
                          "y[i] = a * x[i]", "picked", preamble);
  ASSERT_EQ(k.params().size(), 3u);
  EXPECT_EQ(k.params()[0].type, "const Pick<int, float>::type *");
  EXPECT_TRUE(k.params()[0].pointer);
  EXPECT_EQ(k.params()[1].name, "y");
  EXPECT_EQ(k.params()[2].dtype, DType::float32);
  auto x = random_values<float>(777);
  ck::Array dx = ck::from_host(x), dy = ck::empty({777});
  k({dx, dy, 1.5});
  const auto y = dy.to_host<float>();
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_FLOAT_EQ(y[i], 1.5f * x[i]) << "index " << i;
}

TEST_F(ElementwiseKernelTest, LoopPrepAndAfterLoopRunOncePerThread) {
  // Each thread sums the elements it visits in a variable loop_prep declares;
  // after_loop adds it to the total once: the total is the array's sum and
  // the visit count the size, whatever the launch shape.
  const std::int64_t n = 4099;
  ck::ElementwiseKernel k("const int *x, unsigned long long *total, unsigned long long *visits",
                          "mine += x[i]; ++seen", "per_thread_sum", {}, {},
                          "unsigned long long mine = 0, seen = 0",
                          "if (seen) { atomicAdd(total, mine); atomicAdd(visits, seen); }");
  std::vector<std::int32_t> x(static_cast<std::size_t>(n));
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<std::int32_t>((i * 7919u) % 1000u);
    expected += static_cast<std::uint64_t>(x[i]);
  }
  ck::Array total = ck::zeros({1}, DType::uint64), visits = ck::zeros({1}, DType::uint64);
  k({ck::from_host(x), total, visits});
  EXPECT_EQ(total.to_host<std::uint64_t>()[0], expected);
  EXPECT_EQ(visits.to_host<std::uint64_t>()[0], static_cast<std::uint64_t>(n));
  EXPECT_NE(k.source().find("unsigned long long mine = 0"), std::string::npos);
}

TEST_F(ElementwiseKernelTest, CompileOptionsReachTheCompiler) {
  // A -D define only the options carry: the kernel compiles only if they are used.
  ck::CompileOptions options;
  options.defines.emplace_back("FACTOR", "3");
  options.fast_math = true;
  ck::ElementwiseKernel k("const float *x, float *y", "y[i] = FACTOR * x[i]", "times_factor", {},
                          options);
  auto x = random_values<float>(37);
  ck::Array dy = ck::empty({37});
  k({ck::from_host(x), dy});
  auto y = dy.to_host<float>();
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(y[i], 3 * x[i]);
}

// A parameter of a struct type (a CUDA vector type, a struct of the
// preamble) takes a StructValue: its bytes, as the kernel lays the type out.
TEST_F(ElementwiseKernelTest, StructParametersTakeTheirBytesByValue) {
  struct Float3 {
    float x, y, z;
  };
  const Float3 pt{1.5f, -2.25f, 0.75f};
  const std::size_t n = 1001;
  auto x = random_values<float>(n);
  ck::Array dx = ck::from_host(x), dy = ck::empty({static_cast<std::int64_t>(n)});
  ck::ElementwiseKernel k("float3 pt, const float *x, float *y", "y[i] = pt.x * x[i] + pt.y - pt.z",
                          "affine3");
  k({ck::StructValue(&pt, sizeof pt, "Float3"), dx, dy});
  auto y = dy.to_host<float>();
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_NEAR(y[i], pt.x * x[i] + pt.y - pt.z, 2e-6f * (std::fabs(pt.x * x[i]) + 3.0f)) << i;

  struct Sample {
    int a;
    double b;
    char c;
  };
  const Sample s{7, -0.5, 3};
  ck::ElementwiseKernel ks("Sample s, const float *x, double *y", "y[i] = s.a * x[i] + s.b - s.c",
                           "sample", "struct Sample { int a; double b; char c; };");
  ck::Array dd = ck::empty({static_cast<std::int64_t>(n)}, DType::float64);
  ks({ck::StructValue(&s, sizeof s), dx, dd});
  auto d = dd.to_host<double>();
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_NEAR(d[i], static_cast<double>(static_cast<float>(s.a) * x[i]) + s.b - s.c, 1e-9)
        << i;  // s.a * x[i] is a float product

  ck::ReductionKernel dot(DType::float64, "0", "a + b", "s.a * (double)x[i] + s.b",
                          "Sample s, const float *x", "sample_sum",
                          "struct Sample { int a; double b; char c; };");
  double expected = 0;
  for (float v : x) expected += s.a * static_cast<double>(v) + s.b;
  EXPECT_NEAR(dot(ck::StructValue(&s, sizeof s), dx).to_host<double>()[0], expected,
              1e-9 * static_cast<double>(n));
}

TEST_F(ElementwiseKernelTest, StructParametersRefuseWhatDoesNotFit) {
  ck::ElementwiseKernel k("float3 pt, float *y", "y[i] = pt.x", "first3");
  ck::Array y = ck::empty({37});
  const float four[4] = {1, 2, 3, 4};
  // The ArgumentError's message contains `part`.
  auto refused = [](auto&& call, const std::string& part) {
    try {
      call();
    } catch (const ck::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "not refused; expected: " << part;
  };
  // The compiled parameter's size checks the bytes.
  refused(
      [&] {
        k({ck::StructValue(four, sizeof four, "float4"), y});
      },
      "parameter 0 'pt' (float3): passed a 16-byte struct");
  refused([&] { k({1.5, y}); }, "'pt' (float3) is a struct passed by value, but a number");
  ck::ElementwiseKernel scale("float a, float *y", "y[i] = a", "fill_a");
  refused(
      [&] {
        scale({ck::StructValue(four, 12, "a float3"), y});
      },
      "'a' (float) is a number, but a float3 was passed");
  ck::ReductionKernel sum(DType::float32, "0", "a + b", "pt.x * x[i]", "float2 pt, const float *x");
  refused([&] { sum(2.0, y); }, "'pt' (float2) is a struct passed by value, but a number");
  refused([&] { sum(ck::StructValue(four, sizeof four), y); }, "passed a 16-byte struct");
}
