// Kernels and launches a careless or hostile user writes: a DeviceBuffer with
// no memory passed to a launch, two __global__ functions of one name, static
// __shared__ memory past the GPU's limits, and (CPU backend) environment
// variables that are not numbers. The same sources build for the CPU backend
// (unit) and the GPU (gpu): code the CPU backend accepts must not fail on a
// GPU for a limit, and the other way round.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/module.hpp"
#include "cudakit/program.hpp"
#include "unit/array_test_support.hpp"

namespace {

namespace ck = cudakit;
using array_test::ArrayTest;

class LaunchHostileInput : public ArrayTest {
 protected:
  ck::Module build(const std::string& source, ck::CompileOptions options = {}) {
    return ck::compile(source, options, device());
  }
};

constexpr const char* fill_source = R"(
__global__ void fill(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}
)";

TEST_F(LaunchHostileInput, DeviceBufferWithoutMemoryIsRefusedBeforeTheLaunch) {
  const ck::Kernel fill = build(fill_source).kernel("fill");
  ck::DeviceBuffer<int> empty_buffer;
  EXPECT_THROW(fill.launch(ck::grid_for(64, 64), empty_buffer, 64), ck::ArgumentError);
  ck::DeviceBuffer<int> owner(64);
  ck::DeviceBuffer<int> taken = std::move(owner);
  try {
    fill.launch(ck::grid_for(64, 64), owner, 64);  // NOLINT: moved-from on purpose
    ADD_FAILURE() << "a moved-from buffer was launched";
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("moved-from"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("null pointer"), std::string::npos) << e.what();
  }
  // The buffer that took the memory launches.
  fill.launch(ck::grid_for(64, 64), taken, 64);
  const std::vector<int> host = taken.to_host();
  for (int i = 0; i < 64; ++i) ASSERT_EQ(host[static_cast<std::size_t>(i)], 3 * i + 1);
}

constexpr const char* overloaded_source = R"(
__global__ void scale(float* x, float s) { x[threadIdx.x] *= s; }
__global__ void scale(double* x, double s) { x[threadIdx.x] *= s; }
)";

TEST_F(LaunchHostileInput, OverloadedKernelsAreAClearCompileError) {
  // extern "C" (the default) cannot overload on either backend.
  EXPECT_THROW(build(overloaded_source), ck::CompileError);
  if (device().backend_kind() != ck::BackendKind::cpu) return;
  // With C++ linkage the CPU backend names the overloads and the way out.
  ck::CompileOptions options;
  options.no_extern_c = true;
  try {
    (void)build(overloaded_source, options);
    ADD_FAILURE() << "overloaded kernels compiled";
  } catch (const ck::CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'scale' is overloaded"), std::string::npos) << what;
    EXPECT_NE(what.find("float* x"), std::string::npos) << what;
    EXPECT_NE(what.find("double* x"), std::string::npos) << what;
    EXPECT_NE(what.find("name expression"), std::string::npos) << what;
    EXPECT_EQ(what.find("deduce"), std::string::npos) << what;
  }
}

// 40 KiB of static shared memory, every byte used so no compiler drops it.
constexpr const char* static_40k_source = R"(
__global__ void stage(const float* in, float* out, int n) {
  __shared__ float tile[10240];
  extern __shared__ float extra[];
  for (int i = threadIdx.x; i < 10240; i += blockDim.x) tile[i] = in[i % n];
  __syncthreads();
  float acc = 0;
  for (int i = threadIdx.x; i < 10240; i += blockDim.x) acc += tile[10239 - i];
  out[threadIdx.x] = acc;
  (void)extra;
}
)";

TEST_F(LaunchHostileInput, StaticSharedMemoryIsCountedAsOnAGpu) {
  const ck::Kernel stage = build(static_40k_source).kernel("stage");
  EXPECT_EQ(stage.attributes().static_shared_bytes, 40960u);
  const auto in = random_values<float>(100);
  ck::DeviceBuffer<float> input(in.size()), output(128);
  input.copy_from(std::span<const float>(in));
  ck::LaunchConfig config{ck::Dim3(1), ck::Dim3(128)};
  config.shared_bytes = 8 * 1024;  // 40 + 8 KiB: exactly the 48 KiB a block may have
  stage.launch(config, input, output, 100);
  device().synchronize();
  config.shared_bytes = 16 * 1024;  // 40 + 16 KiB: refused, as on a GPU without an opt-in
  try {
    stage.launch(config, input, output, 100);
    ADD_FAILURE() << "56 KiB of shared memory was launched without an opt-in";
  } catch (const ck::LaunchConfigError& e) {
    EXPECT_EQ(e.requested(), 40960 + 16384) << e.what();
  }
  // After the opt-in the same launch runs, as on a GPU.
  stage.set_max_dynamic_shared_memory(16 * 1024);
  stage.launch(config, input, output, 100);
  device().synchronize();
}

TEST_F(LaunchHostileInput, StaticSharedMemoryPastTheLimitFailsToCompile) {
  const std::string source = R"(
__global__ void huge(const float* in, float* out) {
  __shared__ float tile[16384];  // 64 KiB: ptxas allows 48 KiB of static shared memory
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}
)";
  try {
    (void)build(source);
    ADD_FAILURE() << "a kernel with 64 KiB of static shared memory compiled";
  } catch (const ck::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("too much shared data"), std::string::npos) << e.what();
  }
}

// The CPU backend reads CUDAKIT_CPU_THREADS and CUDAKIT_CPU_STACK_SIZE once
// per process, so each value is tried in a child: this test binary again,
// running only the launch below.
TEST_F(LaunchHostileInput, LaunchForTheEnvironmentChild) {
  constexpr const char* barrier_source = R"(
__global__ void rotate(int* x) {
  __shared__ int s[64];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
)";
  const ck::Kernel rotate = build(barrier_source).kernel("rotate");
  ck::DeviceBuffer<int> x(64);
  std::vector<int> host(64);
  for (int i = 0; i < 64; ++i) host[static_cast<std::size_t>(i)] = i;
  x.copy_from(std::span<const int>(host));
  for (int k = 0; k < 3; ++k) rotate.launch(ck::LaunchConfig{ck::Dim3(1), ck::Dim3(64)}, x);
  EXPECT_EQ(x.to_host()[0], 3);
}

struct ChildRun {
  int exit_code = -1;
  std::string output;
};

ChildRun run_child_with(const std::string& environment) {
  const std::string command = environment + " " +
                              std::filesystem::read_symlink("/proc/self/exe").string() +
                              " --gtest_filter=*LaunchForTheEnvironmentChild* 2>&1";
  ChildRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.output.append(buffer.data(), n);
  r.exit_code = pclose(pipe);
  return r;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(LaunchHostileInput, InvalidCpuEnvironmentValuesWarnOnceAndFallBack) {
  if (device().backend_kind() != ck::BackendKind::cpu) GTEST_SKIP() << "CPU backend settings";
  for (const char* value : {"abc", "0", "-3", "12abc", "99999"}) {
    SCOPED_TRACE(value);
    const ChildRun r = run_child_with(std::string("CUDAKIT_CPU_THREADS='") + value + "'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(count(r.output, "warning: CUDAKIT_CPU_THREADS='" + std::string(value) + "'"), 1u)
        << r.output;
    EXPECT_NE(r.output.find("the number of cores"), std::string::npos) << r.output;
  }
  for (const char* value : {"big", "1K", "64X", "-1", "4096M", "99999999999999999999M"}) {
    SCOPED_TRACE(value);
    const ChildRun r = run_child_with(std::string("CUDAKIT_CPU_STACK_SIZE='") + value + "'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(count(r.output, "warning: CUDAKIT_CPU_STACK_SIZE='" + std::string(value) + "'"), 1u)
        << r.output;
    EXPECT_NE(r.output.find("(the default)"), std::string::npos) << r.output;
  }
  // Valid values are taken silently.
  const ChildRun fine = run_child_with("CUDAKIT_CPU_THREADS=2 CUDAKIT_CPU_STACK_SIZE=128K");
  EXPECT_EQ(fine.exit_code, 0) << fine.output;
  EXPECT_EQ(fine.output.find("warning"), std::string::npos) << fine.output;
}

}  // namespace
