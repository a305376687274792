// The CPU backend through the public API, as a user meets it: compile,
// Module::kernel, checked launches with buffers and In/Out, templates by name
// expression, globals, and the compile cache's CPU entries.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu_test_util.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit::test {
namespace {

Device cpu_device() { return Device::get(BackendKind::cpu, 0); }

TEST(CpuPublicApi, VectorAddWithInAndOut) {
  Module mod = compile(R"(
__global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)",
                       {}, cpu_device());
  const int n = 4099;
  auto a = random_floats(n), b = random_floats(n);
  std::vector<float> c(n);
  LaunchConfig config = grid_for(n, 128);
  config.stream = StreamRef{};
  Kernel k = mod.kernel("vec_add");
  k.launch(config, In(a), In(b), Out(c), n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]);
}

TEST(CpuPublicApi, ProgramCarriesSourceHeadersDefinesAndNameExpressions) {
  // One Program value, with a header given as text, a define and a name
  // expression, compiled for the device and compiled without loading.
  Program program(R"(
#include "scale.h"
template <typename T>
__global__ void scale(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * SCALE + OFFSET;
}
)");
  program.options.no_extern_c = true;
  program.header("scale.h", "#define SCALE 3")
      .define("OFFSET", "1")
      .name_expression("scale<float>");
  ASSERT_EQ(program.options.headers.size(), 1u);
  Module mod = compile(program, cpu_device());
  const int n = 1001;
  auto x = random_floats(n);
  const std::vector<float> original = x;
  mod.kernel("scale<float>").launch(grid_for(n, 128), InOut(x), n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(x[i], original[i] * 3 + 1) << "index " << i;
  const CompiledCode code = compile_only(program, BackendKind::cpu);
  EXPECT_FALSE(code.image.empty());
}

TEST(CpuPublicApi, LaunchArgumentsAreCheckedAgainstTheParameters) {
  Module mod = compile("__global__ void k(float* x, int n) { x[0] = n; }", {}, cpu_device());
  DeviceBuffer<float> x(cpu_device(), 4);
  Kernel k = mod.kernel("k");
  EXPECT_THROW(k.launch(grid_for(1, 1), x), ArgumentError);        // too few
  EXPECT_THROW(k.launch(grid_for(1, 1), x, 1, 2), ArgumentError);  // too many
}

TEST(CpuPublicApi, TemplateKernelByNameExpressionAndPlainName) {
  CompileOptions options;
  options.no_extern_c = true;
  options.name_expressions = {"axpy<double>"};
  Module mod = compile(R"(
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)",
                       options, cpu_device());
  const int n = 777;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = random_floats(1)[0];
    y[i] = random_floats(1)[0];
  }
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i) expected[i] = 1.5 * x[i] + y[i];
  mod.kernel("axpy<double>").launch(grid_for(n, 64), 1.5, In(x), InOut(y), n);
  for (int i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(y[i], expected[i]);
  EXPECT_NO_THROW(mod.kernel("axpy"));  // the only instantiation
}

TEST(CpuPublicApi, ConstantMemoryThroughGetGlobal) {
  Module mod = compile(R"(
__constant__ float weights[3];
__global__ void weigh(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * weights[i % 3];
}
)",
                       {}, cpu_device());
  auto w = random_floats(3);
  mod.get_global("weights").copy_from_host(w.data(), sizeof(float) * 3);
  const int n = 301;
  auto in = random_floats(n);
  std::vector<float> out(n);
  mod.kernel("weigh").launch(grid_for(n, 32), In(in), Out(out), n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * w[i % 3]);
}

TEST(CpuPublicApi, UnsupportedConstructIsACompileErrorFromCompile) {
  EXPECT_THROW(compile("__global__ void k() { asm(\"exit;\"); }", {}, cpu_device()), CompileError);
}

TEST(CpuPublicApi, CompileOnlyForArchCpuNeedsNoDevice) {
  CompileOptions options;
  options.arch = "cpu";
  CompiledCode code =
      compile_only("__global__ void k(int* p) { *p = 3; }", options, BackendKind::cpu);
  EXPECT_EQ(code.format, CodeFormat::host_object);
  Module mod = Module::load(code, cpu_device());
  EXPECT_EQ(mod.kernel_names(), std::vector<std::string>{"k"});
}

}  // namespace
}  // namespace cudakit::test
