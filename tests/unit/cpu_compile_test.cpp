// The CPU backend's compile and load stages: kernels, parameter layouts,
// templates, globals, compiler errors and the constructs it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cpu_test_util.hpp"
#include "cudakit/error.hpp"

namespace cudakit::test {
namespace {

const char* kVecAdd = R"(
__global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

TEST(CpuCompile, VectorAddMatchesHostReference) {
  const int n = 10007;
  auto a = random_floats(n), b = random_floats(n);
  CpuBuffer<float> da(a), db(b), dc(n);
  CpuModuleHandle m(kVecAdd);
  m.run("vec_add", Dim3((n + 255) / 256), Dim3(256), da.get(), db.get(), dc.get(), n);
  auto c = dc.to_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

// GCC links crtfastmath.o into a -ffast-math object; its constructor turns on
// flush-to-zero in the loading thread. Loading a kernel must leave the host's
// float arithmetic alone (numpy in the same process lost its subnormals).
TEST(CpuCompile, FastMathModuleLeavesTheHostsSubnormalsAlone) {
  volatile float tiny = 1e-40f;  // subnormal
  ASSERT_GT(tiny * 1.0f, 0.0f);
  CompileOptions options;
  options.fast_math = true;
  CpuModuleHandle m(kVecAdd, options);
  EXPECT_GT(tiny * 1.0f, 0.0f) << "loading a fast-math kernel flushed the host's subnormals";
}

TEST(CpuCompile, ProducesAHostObjectForArchCpu) {
  CpuModuleHandle m(kVecAdd);
  EXPECT_EQ(m.code().format, CodeFormat::host_object);
  EXPECT_EQ(m.code().arch, "cpu");
  EXPECT_FALSE(m.code().image.empty());
}

TEST(CpuCompile, ListsExternCKernelsByTheirNames) {
  CpuModuleHandle m(std::string(kVecAdd) + "__global__ void other(int* p) { *p = 1; }\n");
  auto symbols = cpu().kernel_symbols(m.native());
  ASSERT_EQ(symbols.size(), 2u);
  EXPECT_EQ(symbols[0], "vec_add");
  EXPECT_EQ(symbols[1], "other");
}

TEST(CpuCompile, ParamLayoutGivesSizesKindsAndScalarTypes) {
  CpuModuleHandle m(R"(
struct Pair { double a; char b; };
__global__ void k(const float* p, int n, double x, unsigned char c, Pair s, unsigned long long u) {}
)");
  ParamLayout layout = cpu().param_layout(m.native(), "k");
  ASSERT_EQ(layout.params.size(), 6u);
  EXPECT_EQ(layout.params[0].kind, ParamKind::pointer);
  EXPECT_EQ(layout.params[0].size, sizeof(void*));
  EXPECT_EQ(layout.params[1].kind, ParamKind::scalar);
  EXPECT_EQ(layout.params[1].scalar, ScalarType::i32);
  EXPECT_EQ(layout.params[2].scalar, ScalarType::f64);
  EXPECT_EQ(layout.params[2].offset, 16u);
  EXPECT_EQ(layout.params[3].scalar, ScalarType::u8);
  EXPECT_EQ(layout.params[4].kind, ParamKind::aggregate);
  EXPECT_EQ(layout.params[4].size, 16u);
  EXPECT_EQ(layout.params[4].align, 8u);
  EXPECT_EQ(layout.params[5].scalar, ScalarType::u64);
}

TEST(CpuCompile, TemplateKernelsComeFromNameExpressions) {
  CompileOptions options;
  options.no_extern_c = true;
  options.name_expressions = {"scale<float>", "scale<int>"};
  CpuModuleHandle m(R"(
template <typename T>
__global__ void scale(T* x, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}
)",
                    options);
  auto symbols = cpu().kernel_symbols(m.native());
  ASSERT_EQ(symbols.size(), 2u);
  // C++ linkage: the real (mangled) symbols, as NVRTC's lowered names are.
  EXPECT_EQ(symbols[0], "_Z5scaleIfEvPT_S0_i");
  EXPECT_EQ(symbols[1], "_Z5scaleIiEvPT_S0_i");

  const int n = 1000;
  auto xf = random_floats(n);
  auto xi = random_ints<int>(n, -1000, 1000);
  CpuBuffer<float> df(xf);
  CpuBuffer<int> di(xi);
  m.run("scale<float>", Dim3(8), Dim3(128), df.get(), 2.5f, n);
  m.run("_Z5scaleIiEvPT_S0_i", Dim3(8), Dim3(128), di.get(), -3, n);
  auto rf = df.to_host();
  auto ri = di.to_host();
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(rf[i], xf[i] * 2.5f);
    ASSERT_EQ(ri[i], xi[i] * -3);
  }
  EXPECT_EQ(cpu().param_layout(m.native(), "scale<float>").params[1].scalar, ScalarType::f32);
  EXPECT_EQ(cpu().param_layout(m.native(), "scale<int>").params[1].scalar, ScalarType::i32);
}

TEST(CpuCompile, CppLinkageKernelIsFoundByItsPlainName) {
  CompileOptions options;
  options.no_extern_c = true;
  CpuModuleHandle m("namespace ops { __global__ void fill(int* p, int v) { p[threadIdx.x] = v; } }",
                    options);
  EXPECT_EQ(cpu().kernel_symbols(m.native()).at(0), "_ZN3ops4fillEPii");
  CpuBuffer<int> d(std::vector<int>(40, 1));
  m.run("fill", Dim3(1), Dim3(40), d.get(), 7);
  for (int v : d.to_host()) EXPECT_EQ(v, 7);
}

TEST(CpuCompile, GetGlobalReachesConstantAndDeviceVariables) {
  CpuModuleHandle m(R"(
__constant__ float coeffs[4];
__device__ int counter = 5;
__global__ void apply(float* out) {
  int i = threadIdx.x;
  out[i] = coeffs[i % 4] * i;
  if (i == 0) counter += 1;
}
)");
  auto [cptr, csize] = cpu().get_global(m.native(), "coeffs");
  EXPECT_EQ(csize, 4 * sizeof(float));
  auto coeffs = random_floats(4);
  cpu().copy(reinterpret_cast<void*>(cptr), coeffs.data(), csize, nullptr, false);
  CpuBuffer<float> out(50);
  m.run("apply", Dim3(1), Dim3(50), out.get());
  auto r = out.to_host();
  for (int i = 0; i < 50; ++i) EXPECT_EQ(r[i], coeffs[i % 4] * i);
  auto [dptr, dsize] = cpu().get_global(m.native(), "counter");
  EXPECT_EQ(dsize, sizeof(int));
  EXPECT_EQ(*reinterpret_cast<int*>(dptr), 6);
}

TEST(CpuCompile, MissingGlobalIsAnArgumentError) {
  CpuModuleHandle m(kVecAdd);
  EXPECT_THROW(cpu().get_global(m.native(), "nope"), ArgumentError);
}

TEST(CpuCompile, MissingKernelIsAnArgumentErrorListingTheKernels) {
  CpuModuleHandle m(kVecAdd);
  try {
    cpu().get_kernel(m.native(), "vec_sub");
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.what(), "vec_add")) << e.what();
  }
}

TEST(CpuCompile, SyntaxErrorIsACompileErrorWithTheCompilerLog) {
  try {
    CpuModuleHandle m("__global__ void broken(float* x) {\n  x[0] = undefined_name;\n}\n");
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.log(), "undefined_name")) << e.log();
    EXPECT_TRUE(contains(e.log(), "kernel.cu:2")) << e.log();
  }
}

TEST(CpuCompile, DefinesAndInMemoryHeadersReachTheCompiler) {
  CompileOptions options;
  options.defines = {{"FACTOR", "3"}};
  options.headers = {{"helpers/twice.h", "__device__ inline int twice(int x) { return 2 * x; }\n"}};
  CpuModuleHandle m(R"(
#include "helpers/twice.h"
__global__ void k(int* p) { p[threadIdx.x] = twice(threadIdx.x) * FACTOR; }
)",
                    options);
  CpuBuffer<int> d(33);
  m.run("k", Dim3(1), Dim3(33), d.get());
  auto r = d.to_host();
  for (int i = 0; i < 33; ++i) EXPECT_EQ(r[i], 6 * i);
}

TEST(CpuCompile, CudaHeadersCompileAsEmpty) {
  CpuModuleHandle m(R"(
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <math_constants.h>
__global__ void k(float* p) { p[0] = __half2float(__float2half(1.5f)) + CUDART_PI_F; }
)");
  CpuBuffer<float> d(1);
  m.run("k", Dim3(1), Dim3(1), d.get());
  EXPECT_NEAR(d.to_host()[0], 1.5f + 3.14159265f, 1e-6);
}

TEST(CpuCompile, CompilerIdentityNamesTheCompilerAndPrelude) {
  std::string id = cpu().compiler_identity();
  EXPECT_TRUE(contains(id, "prelude")) << id;
  EXPECT_EQ(cpu().default_arch(0), "cpu");
}

TEST(CpuCompile, LoadingACubinIsNotSupported) {
  CompiledCode code;
  code.format = CodeFormat::cubin;
  code.image = {1, 2, 3};
  EXPECT_THROW(cpu().load_module(0, code), NotSupported);
}

// ---- constructs the CPU cannot run: a CompileError naming each, with its line ----

void expect_refused(const std::string& source, const std::string& construct, int line) {
  try {
    CpuModuleHandle m(source);
    FAIL() << "expected CompileError for " << construct;
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), construct)) << e.what();
    EXPECT_TRUE(contains(e.log(), "kernel.cu:" + std::to_string(line) + ":")) << e.log();
  }
}

TEST(CpuUnsupported, InlineAssemblyIsRefusedWithItsLine) {
  expect_refused(
      "__global__ void k(int* p) {\n  int lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
      "  p[0] = lane;\n}\n",
      "inline assembly", 3);
}

TEST(CpuUnsupported, VolatileAssemblyIsRefused) {
  expect_refused("__global__ void k() {\n  asm volatile(\"trap;\");\n}\n", "inline assembly", 2);
}

TEST(CpuUnsupported, EmptyAssemblyBarrierRunsAndPtxConstraintsAreRefused) {
  // An empty template with register or memory operands: no instructions.
  CpuModuleHandle m(
      "__global__ void k(int* p) {\n  int a = p[0] * 3;\n"
      "  asm volatile(\"\" : : \"r\"(a) : \"memory\");\n  p[0] = a + 1;\n}\n");
  const int value = random_ints(1, -1000, 1000)[0];
  CpuBuffer<int> d(std::vector<int>{value});
  m.run("k", Dim3(1), Dim3(1), d.get());
  EXPECT_EQ(d.to_host()[0], value * 3 + 1);
  // PTX's 16-bit register constraint has no meaning on the host.
  expect_refused("__global__ void k(short* p) {\n  asm volatile(\"\" : : \"h\"(p[0]));\n}\n",
                 "inline assembly", 2);
}

// Texture and surface references are globals of the module (records the
// host fills when it binds them by name); objects and their functions compile.
TEST(CpuTextures, ReferencesAreGlobalsAndObjectsCompile) {
  CpuModuleHandle m(R"(
texture<float, 2> tex;
texture<uchar4, 1, cudaReadModeNormalizedFloat> colors;
surface<void, cudaSurfaceType3D> volume;
__global__ void k(float* out, cudaTextureObject_t t, cudaSurfaceObject_t s) {
  out[0] = tex2D(tex, 0.5f, 0.5f) + tex1Dfetch(colors, 0).x + tex2D<float>(t, 0.f, 0.f);
  float4 v;
  tex2D(&v, t, 1.f, 1.f);
  float l1, l3, g;
  tex1DLod(&l1, t, 0.5f, 0.f);
  tex3DLod(&l3, t, 0.5f, 0.5f, 0.5f, 0.f);
  tex2DGrad(&g, t, 0.5f, 0.5f, make_float2(0.f, 0.f), make_float2(0.f, 0.f));
  float4 four = tex2Dgather<float4>(t, 0.5f, 0.5f, 1);
  out[1] = l1 + l3 + g + four.w + tex1DLayered<float>(t, 0.5f, 1) +
           tex2DLayered<float>(t, 0.5f, 0.5f, 0) + tex1D<float>(t, 0.5f);
  surf2DLayeredwrite(out[1], s, 0, 0, 0, cudaBoundaryModeClamp);
  surf1DLayeredwrite(surf1Dread<float>(s, 0, cudaBoundaryModeZero), s, 0, 0);
  surf3Dwrite(v.x, volume, 0, 0, 0, cudaBoundaryModeZero);
  surf2Dwrite(out[0], s, 4, 1);
}
)");
  for (const char* name : {"tex", "colors", "volume"}) {
    const auto [address, size] = cpu().get_global(m.native(), name);
    EXPECT_NE(address, 0u) << name;
    EXPECT_EQ(size, 128u) << name;
  }
}

TEST(CpuUnsupported, CubeMapTexturesAreRefused) {
  expect_refused(
      "__global__ void k(cudaTextureObject_t t, float* out) {\n  out[0] = texCubemap<float>(t, "
      "0.f, 0.f, 1.f);\n}\n",
      "cube map textures", 2);
}

TEST(CpuUnsupported, MultiGridCooperativeSyncIsRefused) {
  expect_refused(
      "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
      "__global__ void k() {\n  cg::this_multi_grid().sync();\n}\n",
      "multi-grid cooperative synchronization", 4);
}

TEST(CpuUnsupported, WmmaIsRefused) {
  expect_refused(
      "#include <mma.h>\n__global__ void k() {\n  using namespace nvcuda;\n"
      "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;\n}\n",
      "wmma", 3);
}

// ---- device-side launches (dynamic parallelism): the child grid runs inline ----

constexpr const char* kLaunchingSource = R"(
__global__ void child(const int* in, int* out, unsigned slot, int chunk, int n) {
  int i = slot * chunk + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * in[i] + (int)(gridDim.x * 1000 + blockDim.x * 100);
}
__global__ void parent(const int* in, int* out, int* coords, int chunk, int n) {
  __shared__ int seen[64];
  seen[threadIdx.x] = in[blockIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    child<<<(chunk + 7) / 8, dim3(8)>>>(in, out, blockIdx.x, chunk, n);  // blockIdx.x: a copy
  // The launching thread's own coordinates are back after the child grid.
  coords[blockIdx.x * blockDim.x + threadIdx.x] =
      threadIdx.x + 10 * blockIdx.x + 1000 * blockDim.x + 100000 * gridDim.x + 0 * seen[0];
}
)";

TEST(CpuDeviceLaunch, AChildGridRunsAndTheParentsCoordinatesAreRestored) {
  CpuModuleHandle m(kLaunchingSource);
  const int n = 203, chunk = 30, blocks = (n + chunk - 1) / chunk, threads = 6;
  std::vector<int> in = random_ints<int>(n, -1000, 1000);
  CpuBuffer<int> din(in), dout(std::vector<int>(n, -7)), coords(blocks * threads);
  m.run("parent", Dim3(blocks), Dim3(threads), din.get(), dout.get(), coords.get(), chunk, n);
  const std::vector<int> out = dout.to_host(), seen = coords.to_host();
  const int child_grid = (chunk + 7) / 8;
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 3 * in[i] + child_grid * 1000 + 8 * 100) << i;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t)
      ASSERT_EQ(seen[b * threads + t], t + 10 * b + 1000 * threads + 100000 * blocks);
}

TEST(CpuDeviceLaunch, AChildThatSynchronizesIsRefusedWithItsLine) {
  expect_refused(
      "__global__ void child(int* p) { __syncthreads(); p[threadIdx.x] = 1; }\n"
      "__global__ void parent(int* p) {\n  child<<<1, 4>>>(p);\n}\n",
      "device-side launch of 'child', which synchronizes", 3);
}

TEST(CpuDeviceLaunch, AChildFromAnotherSourceIsRefused) {
  expect_refused(
      "__global__ void elsewhere(int* p);\n"
      "__global__ void parent(int* p) {\n  elsewhere<<<1, 4>>>(p);\n}\n",
      "a kernel this source does not define", 3);
}

TEST(CpuDeviceLaunch, ALaunchInsideAMacroIsRefused) {
  expect_refused(
      "__global__ void child(int* p) { p[threadIdx.x] = 1; }\n"
      "#define LAUNCH(p) child<<<1, 4>>>(p)\n"
      "__global__ void parent(int* p) { LAUNCH(p); }\n",
      "a device-side kernel launch inside a macro", 2);
}

TEST(CpuUnsupported, ShiftsAreNoLaunch) {
  CpuModuleHandle m(
      "__global__ void k(unsigned* p) {\n"
      "  unsigned a = p[0]<<2, b = a << 1;\n"
      "  p[0] = b | (p[1] >> 1) << 3 | (a<<(1)) << 4;\n}\n");
  CpuBuffer<unsigned> d(std::vector<unsigned>{5u, 6u});
  m.run("k", Dim3(1), Dim3(1), d.get());
  EXPECT_EQ(d.to_host()[0], ((5u << 2) << 1) | ((6u >> 1) << 3) | (((5u << 2) << 1) << 4));
}

TEST(CpuUnsupported, ConstructInsideACommentOrStringIsAccepted) {
  CpuModuleHandle m(
      "// asm(\"trap;\") and tex2D in a comment\n"
      "__global__ void k(int* p) { const char* s = \"asm tex2D\"; p[0] = s[0]; }\n");
  CpuBuffer<int> d(1);
  m.run("k", Dim3(1), Dim3(1), d.get());
  EXPECT_EQ(d.to_host()[0], 'a');
}

}  // namespace
}  // namespace cudakit::test
