// Module::load_file on a GPU: NVRTC's cubin and PTX and nvcc's fatbin, each
// saved under a name that says another format, load by their content and
// run. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

namespace fs = std::filesystem;

constexpr const char* add_one_source = R"(
__global__ void add_one(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}
)";

class ModuleFormatGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!backend_available(BackendKind::cuda)) GTEST_SKIP() << "no CUDA device on this machine";
    device_.emplace(Device::get(BackendKind::cuda, 0));
    dir_ = fs::temp_directory_path() /
           ("cudakit_module_format_gpu_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const void* data, std::size_t bytes) {
    fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    return p;
  }
  CompiledCode nvrtc_for_device() {
    CompileOptions options;
    options.arch = device_->arch();
    options.use_cache = false;
    return compile_only(add_one_source, options, BackendKind::cuda);
  }
  // Loads `path` and checks add_one on fresh random data.
  void expect_add_one_runs(const fs::path& path, CodeFormat format) {
    Module mod = Module::load_file(path, *device_);
    EXPECT_EQ(mod.code().format, format);
    const int n = 4099;
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<float> host(n);
    for (auto& x : host) x = dist(rng);
    std::vector<float> out = host;
    mod.kernel("add_one").launch(grid_for(n, 128), InOut(out), n);
    for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], host[i] + 1.0f) << i;
  }
  std::optional<Device> device_;
  fs::path dir_;
};

TEST_F(ModuleFormatGpu, NvrtcCubinNamedPtxRuns) {
  CompiledCode code = nvrtc_for_device();
  ASSERT_EQ(code.format, CodeFormat::cubin);
  expect_add_one_runs(write("kernel.ptx", code.image.data(), code.image.size()), CodeFormat::cubin);
}

TEST_F(ModuleFormatGpu, NvrtcPtxNamedCubinRuns) {
  CompiledCode code = nvrtc_for_device();
  ASSERT_FALSE(code.ptx.empty());
  expect_add_one_runs(write("kernel.cubin", code.ptx.data(), code.ptx.size()), CodeFormat::ptx);
}

TEST_F(ModuleFormatGpu, NvccFatbinNamedDatRuns) {
#ifdef CUDAKIT_MODULE_SAMPLES
  fs::path p = fs::path(CUDAKIT_MODULE_SAMPLES) / "add_one_fatbin.dat";
  if (!fs::exists(p)) GTEST_SKIP() << "nvcc did not make " << p;
  expect_add_one_runs(p, CodeFormat::fatbin);
#else
  GTEST_SKIP() << "nvcc was not found when the tests were built";
#endif
}

}  // namespace
}  // namespace cudakit
