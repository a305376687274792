// cudakit::Linker over the scripted libcuda (cuda_fake_driver): sources
// compiled by NVRTC to relocatable PTX, files and libraries reach the
// driver's linker with its logs wired up; the linker's error log is in the
// error; inputs are checked as they are added. What the real linker does is
// covered by linker_gpu_test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "backend/cuda/ptx_entry_parser.hpp"
#include "cudakit/cudakit.hpp"
#include "unit/cuda_fake_driver.hpp"
#include "unit/cuda_fake_selected.hpp"
#include "unit/cuda_test_util.hpp"

namespace cudakit {
namespace {

namespace fs = std::filesystem;

using test::contains;

FakeCudaControl& fake() { return test::fake_control(); }

constexpr const char* kOuter = R"(
extern __device__ float scale(float x);
__global__ void outer(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = scale(a[i]);
}
)";
constexpr const char* kInner = R"(
__device__ float scale(float x) { return 2.0f * x + 1.0f; }
)";

class LinkerFake : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test::fake_libcuda_selected);
    device_.emplace(Device::get(BackendKind::cuda, 0));
  }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  std::optional<Device> device_;
  test::ScratchDir scratch_;
  const fs::path dir_{scratch_.str()};
};

TEST_F(LinkerFake, TwoSourcesCompiledRelocatableAndALibraryReachTheLinker) {
  write("libcudadevrt.a", "!<arch>\n");
  CompileOptions rdc;
  rdc.extra_flags = {"-rdc=true"};
  Linker linker(*device_);
  linker.add_source(kOuter, rdc, "outer.cu").add_source(kInner, {}, "inner.cu");
  linker.add_library("cudadevrt", {dir_});
  ASSERT_EQ(linker.inputs().size(), 3u);
  EXPECT_EQ(linker.inputs()[0].type, LinkInputType::ptx);
  EXPECT_EQ(linker.inputs()[0].name, "outer.cu");
  EXPECT_EQ(linker.inputs()[2].type, LinkInputType::library);
  // The PTX is relocatable (-rdc=true added for inner.cu too): scale is an
  // extern function in outer's PTX, a visible one in inner's.
  const std::string outer_ptx(linker.inputs()[0].data.begin(), linker.inputs()[0].data.end());
  EXPECT_TRUE(contains(outer_ptx, ".extern .func")) << outer_ptx;

  Module module = linker.link_module();
  EXPECT_EQ(fake().last_link_inputs, 3);
  EXPECT_TRUE(fake().last_ptx_terminated);
  EXPECT_EQ(fake().live_links.load(), 0);
  EXPECT_EQ(module.code().format, CodeFormat::cubin);
  EXPECT_EQ(module.code().arch, "sm_90");
  EXPECT_TRUE(contains(linker.info_log(), "linked 3 inputs")) << linker.info_log();
  // The kernels' sources are kept for their parameter types, their PTX
  // (both inputs, one after the other) for the parameter layouts.
  EXPECT_TRUE(contains(module.source(), "outer(float* a, int n)"));
  const auto entries = detail::parse_ptx_entries(module.code().ptx);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "outer");
  ASSERT_EQ(entries[0].layout.params.size(), 2u);
  EXPECT_EQ(entries[0].layout.params[0].size, 8u);
  EXPECT_EQ(entries[0].layout.params[1].size, 4u);
}

TEST_F(LinkerFake, DashLCudadevrtInTheOptionsAddsTheLibrary) {
  fs::create_directories(dir_ / "lib64");
  write("lib64/libcudadevrt.a", "!<arch>\n");
  CompileOptions options;
  options.extra_flags = {"-rdc=true", "-lcudadevrt"};
  Linker linker(*device_);
  {
    const test::ScopedEnv cuda_path("CUDA_PATH", dir_.string());
    linker.add_source(kOuter, options).add_source(kInner, options);
  }
  ASSERT_EQ(linker.inputs().size(), 3u);  // the library once
  EXPECT_EQ(linker.inputs()[1].type, LinkInputType::library);
  EXPECT_EQ(linker.inputs()[1].path, dir_ / "lib64" / "libcudadevrt.a");
}

TEST_F(LinkerFake, AnUndefinedSymbolFailsWithTheLinkersLog) {
  Linker linker(*device_);
  linker.add_source(
      "extern __device__ int undefined_function();\n"
      "__global__ void k(int* a) { a[0] = undefined_function(); }\n");
  try {
    linker.link();
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_TRUE(contains(e.message(), "Undefined reference to 'undefined_function'")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "-rdc=true")) << e.hint();
    EXPECT_EQ(e.code_name(), "CUDA_ERROR_INVALID_IMAGE");
  }
  EXPECT_EQ(fake().live_links.load(), 0);
}

TEST_F(LinkerFake, DataThatIsNotPtxFailsAtTheLinkWithTheLog) {
  Linker linker(*device_);
  linker.add_data(std::string_view("not ptx at all"), LinkInputType::ptx, "bad.ptx");
  try {
    linker.link();
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_TRUE(contains(e.context(), "bad.ptx")) << e.what();
    EXPECT_TRUE(contains(e.message(), "not PTX")) << e.what();
  }
  EXPECT_EQ(fake().live_links.load(), 0);
}

TEST_F(LinkerFake, BadInputsAreRefusedWhenAdded) {
  Linker linker(*device_);
  EXPECT_THROW(linker.add_data(std::string_view(), LinkInputType::ptx), ArgumentError);
  try {
    linker.add_file(dir_ / "missing.a", LinkInputType::library);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.what(), "missing.a")) << e.what();
    EXPECT_TRUE(contains(e.what(), "does not exist")) << e.what();
  }
  EXPECT_THROW(linker.add_file(dir_, LinkInputType::library), ArgumentError);
  try {
    linker.link();
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.what(), "nothing was added")) << e.what();
  }
}

TEST_F(LinkerFake, AMissingLibraryNamesEveryPlaceLookedIn) {
  try {
    find_cuda_library("cudadevrt", {dir_ / "nowhere"});
    FAIL() << "expected LibraryNotFound";
  } catch (const LibraryNotFound& e) {
    EXPECT_TRUE(contains(e.what(), (dir_ / "nowhere" / "libcudadevrt.a").string())) << e.what();
    EXPECT_TRUE(contains(e.hint(), "cuda_libdir")) << e.hint();
  }
  EXPECT_THROW(find_cuda_library("../x"), ArgumentError);
  write("libcudadevrt.a", "!<arch>\n");
  EXPECT_EQ(find_cuda_library("cudadevrt", {dir_ / "nowhere", dir_}), dir_ / "libcudadevrt.a");
}

TEST_F(LinkerFake, LtoIrIsLinkedByNvJitLinkWithTheOtherInputs) {
  if (!gpu_compiler_info().lto_ir) GTEST_SKIP() << "this NVRTC has no nvrtcGetLTOIR";
  CompileOptions lto;
  lto.arch = "sm_90";
  lto.lto_ir = true;
  lto.extra_flags = {"-rdc=true"};
  const CompiledCode inner = compile_only(kInner, lto);
  ASSERT_EQ(inner.format, CodeFormat::ltoir);
  Linker linker(*device_);
  linker.add_source(kOuter, {}, "outer.cu").add_code(inner, "inner.ltoir");
  EXPECT_EQ(linker.inputs()[1].type, LinkInputType::ltoir);
  CompiledCode linked;
  fake().last_link_inputs = -1;  // (what the driver's linker would set)
  try {
    linked = linker.link();
  } catch (const LibraryNotFound& e) {
    EXPECT_TRUE(contains(e.what(), "CUDAKIT_NVJITLINK")) << e.what();
    GTEST_SKIP() << "no nvJitLink here: " << e.what();
  }
  // A real cubin from nvJitLink (scale resolved), not the driver's linker.
  EXPECT_EQ(fake().last_link_inputs, -1);
  EXPECT_EQ(linked.format, CodeFormat::cubin);
  ASSERT_GT(linked.image.size(), 4u);
  EXPECT_EQ(std::string(linked.image.begin(), linked.image.begin() + 4),
            "\x7f"
            "ELF");

  Linker missing(*device_);
  missing.add_source(kOuter, {}, "outer.cu")
      .add_data(std::string_view("not LTO-IR"), LinkInputType::ltoir, "bad.ltoir");
  try {
    missing.link();
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_TRUE(contains(e.context(), "bad.ltoir")) << e.what();
    EXPECT_TRUE(contains(e.context(), "nvJitLink")) << e.what();
  }
}

TEST(LinkInputTypes, ParseTheirNames) {
  EXPECT_EQ(parse_link_input_type("LTOIR"), LinkInputType::ltoir);
  EXPECT_EQ(parse_link_input_type("PTX"), LinkInputType::ptx);
  EXPECT_EQ(parse_link_input_type("library"), LinkInputType::library);
  EXPECT_EQ(parse_link_input_type("fatbinary"), LinkInputType::fatbin);
  EXPECT_FALSE(parse_link_input_type("elf").has_value());
  EXPECT_EQ(to_string(LinkInputType::object), "object");
}

TEST(LinkerCpu, TheCpuBackendSaysLinkingNeedsAGpu) {
  try {
    Linker linker(Device::get(BackendKind::cpu, 0));
    FAIL() << "expected NotSupported";
  } catch (const NotSupported& e) {
    EXPECT_TRUE(contains(e.what(), "dynamic parallelism")) << e.what();
    EXPECT_TRUE(contains(e.what(), "GPU")) << e.what();
  }
}

}  // namespace
}  // namespace cudakit
