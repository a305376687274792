// Module::load_file tells the image format from the content: a cubin, a
// fatbin, PTX and a CPU backend shared object each load as what they are
// whatever the file is called; the extension decides only when the content
// is none of them, and a file that is neither is an error naming the file
// and what it holds. Images come from NVRTC (skipped without it), from nvcc
// at build time (skipped without it), and from the CPU backend's compiler.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/module_file.hpp"
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

class ModuleFormat : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cudakit_module_format_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const void* data, std::size_t bytes) {
    fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    return p;
  }
  fs::path write(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    return write(name, bytes.data(), bytes.size());
  }
  fs::path write(const std::string& name, const std::string& text) {
    return write(name, text.data(), text.size());
  }
  // The error load_file gives for `path` (fails the test when it loads).
  std::string load_error(const fs::path& path) {
    try {
      detail::read_module_file(path);
    } catch (const ArgumentError& e) {
      return e.what();
    }
    ADD_FAILURE() << path << " was accepted";
    return {};
  }
  fs::path dir_;
};

// An NVRTC compile for sm_90 (no device needed); nullopt without NVRTC.
std::optional<CompiledCode> nvrtc_sm90() {
  CompileOptions options;
  options.arch = "sm_90";
  options.use_cache = false;
  try {
    return compile_only(add_one_source, options, BackendKind::cuda);
  } catch (const NvrtcNotFound&) {
    return std::nullopt;
  }
}

// A file nvcc made at build time; empty when nvcc was not found.
fs::path nvcc_sample(const std::string& name) {
#ifdef CUDAKIT_MODULE_SAMPLES
  fs::path p = fs::path(CUDAKIT_MODULE_SAMPLES) / name;
  if (fs::exists(p)) return p;
#endif
  (void)name;
  return {};
}

// A minimal ELF64 little-endian header.
std::vector<std::uint8_t> elf_header(std::uint16_t type, std::uint16_t machine,
                                     std::uint8_t abi_version, std::uint32_t flags) {
  std::vector<std::uint8_t> h(64, 0);
  h[0] = 0x7f, h[1] = 'E', h[2] = 'L', h[3] = 'F';
  h[4] = 2, h[5] = 1, h[6] = 1, h[8] = abi_version;
  h[16] = static_cast<std::uint8_t>(type), h[17] = static_cast<std::uint8_t>(type >> 8);
  h[18] = static_cast<std::uint8_t>(machine), h[19] = static_cast<std::uint8_t>(machine >> 8);
  for (int i = 0; i < 4; ++i)
    h[48 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(flags >> (8 * i));
  return h;
}

TEST_F(ModuleFormat, NvrtcCubinNamedPtxIsReadAsACubin) {
  auto code = nvrtc_sm90();
  if (!code) GTEST_SKIP() << "NVRTC is not installed here";
  ASSERT_EQ(code->format, CodeFormat::cubin);
  CompiledCode read = detail::read_module_file(write("kernel.ptx", code->image));
  EXPECT_EQ(read.format, CodeFormat::cubin);
  EXPECT_EQ(read.arch, "sm_90");
  EXPECT_EQ(read.image, code->image);
  EXPECT_TRUE(read.ptx.empty());
}

TEST_F(ModuleFormat, NvrtcPtxNamedCubinIsReadAsPtx) {
  auto code = nvrtc_sm90();
  if (!code) GTEST_SKIP() << "NVRTC is not installed here";
  ASSERT_FALSE(code->ptx.empty());
  CompiledCode read = detail::read_module_file(write("kernel.cubin", code->ptx));
  EXPECT_EQ(read.format, CodeFormat::ptx);
  EXPECT_EQ(read.arch, "compute_90");
  EXPECT_EQ(read.ptx, code->ptx);
  ASSERT_FALSE(read.image.empty());
  EXPECT_EQ(read.image.back(), 0);  // the driver reads PTX as a C string
  EXPECT_EQ(read.image.size(), code->ptx.size() + 1);
}

TEST_F(ModuleFormat, PtxSavedWithItsTerminatorKeepsOneTerminator) {
  std::string text = ".version 9.0\n.target sm_90\n.address_size 64\n";
  text.push_back('\0');
  CompiledCode read = detail::read_module_file(write("kernel.img", text));
  EXPECT_EQ(read.format, CodeFormat::ptx);
  EXPECT_EQ(read.ptx, text.substr(0, text.size() - 1));
  EXPECT_EQ(read.image.size(), text.size());
}

TEST_F(ModuleFormat, NvccCubinWithoutExtensionIsReadAsACubin) {
  fs::path p = nvcc_sample("add_one_cubin");
  if (p.empty()) GTEST_SKIP() << "nvcc was not found when the tests were built";
  CompiledCode read = detail::read_module_file(p);
  EXPECT_EQ(read.format, CodeFormat::cubin);
  EXPECT_EQ(read.arch, "sm_90");
}

TEST_F(ModuleFormat, NvccFatbinNamedDatIsReadAsAFatbin) {
  fs::path p = nvcc_sample("add_one_fatbin.dat");
  if (p.empty()) GTEST_SKIP() << "nvcc was not found when the tests were built";
  EXPECT_EQ(detail::read_module_file(p).format, CodeFormat::fatbin);
}

TEST_F(ModuleFormat, NvccPtxNamedTxtIsReadAsPtx) {
  fs::path p = nvcc_sample("add_one_ptx.txt");
  if (p.empty()) GTEST_SKIP() << "nvcc was not found when the tests were built";
  CompiledCode read = detail::read_module_file(p);
  EXPECT_EQ(read.format, CodeFormat::ptx);
  EXPECT_EQ(read.arch, "compute_90");
  EXPECT_NE(read.ptx.find(".entry add_one"), std::string::npos);
}

TEST_F(ModuleFormat, PtxAfterBlockAndLineCommentsIsPtx) {
  auto sniffed = detail::sniff_code_format(std::vector<std::uint8_t>{});
  EXPECT_FALSE(sniffed.format);
  const std::string text =
      "\n/* generated\n   by hand */\n  // a line\n\n.version 8.5\n.target sm_80\n";
  CompiledCode read = detail::read_module_file(write("k", text));
  EXPECT_EQ(read.format, CodeFormat::ptx);
  EXPECT_EQ(read.arch, "compute_80");
}

TEST_F(ModuleFormat, CubinArchIsReadFromBothElfFlagLayouts) {
  auto v8 = detail::sniff_code_format(elf_header(2, 190, 8, 0x06005a04));
  EXPECT_EQ(v8.format, CodeFormat::cubin);
  EXPECT_EQ(v8.arch, "sm_90");
  auto v7 = detail::sniff_code_format(elf_header(2, 190, 7, 0x00500550));
  EXPECT_EQ(v7.format, CodeFormat::cubin);
  EXPECT_EQ(v7.arch, "sm_80");
}

TEST_F(ModuleFormat, CpuSharedObjectNamedCubinRunsOnTheCpuBackend) {
  CompileOptions options;
  options.arch = "cpu";
  CompiledCode code = compile_only(add_one_source, options, BackendKind::cpu);
  ASSERT_EQ(code.format, CodeFormat::host_object);
  fs::path p = write("kernel.cubin", code.image);
  const Device cpu = Device::get(BackendKind::cpu, 0);
  Module mod = Module::load_file(p, cpu);
  EXPECT_EQ(mod.code().format, CodeFormat::host_object);
  EXPECT_EQ(mod.code().arch, "cpu");
  const int n = 1237;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> host(n);
  for (auto& x : host) x = dist(rng);
  std::vector<float> out = host;
  mod.kernel("add_one").launch(grid_for(n, 128), InOut(out), n);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[static_cast<std::size_t>(i)], host[static_cast<std::size_t>(i)] + 1.0f);
}

TEST_F(ModuleFormat, ExtensionDecidesWhenTheContentIsUnknown) {
  std::vector<std::uint8_t> junk = {0x01, 0x02, 0x03, 0x04, 0xfe, 0x00, 0x99, 0x10};
  EXPECT_EQ(detail::read_module_file(write("odd.cubin", junk)).format, CodeFormat::cubin);
  EXPECT_EQ(detail::read_module_file(write("odd.FATBIN", junk)).format, CodeFormat::fatbin);
  EXPECT_EQ(detail::read_module_file(write("odd.so", junk)).arch, "cpu");
}

TEST_F(ModuleFormat, UnknownContentAndExtensionIsAnErrorNamingFileAndContent) {
  std::vector<std::uint8_t> junk = {0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03, 0x04};
  fs::path p = write("blob.bin", junk);
  std::string what = load_error(p);
  EXPECT_NE(what.find(p.string()), std::string::npos) << what;
  EXPECT_NE(what.find("binary data beginning de ad be ef 00 01 02 03"), std::string::npos) << what;
  EXPECT_NE(what.find("'.bin'"), std::string::npos) << what;
  EXPECT_NE(what.find("cubin"), std::string::npos) << what;  // the hint lists the formats
}

TEST_F(ModuleFormat, CudaSourceIsAnErrorSayingItIsNotCompiled) {
  std::string what = load_error(write("kernel.cu", std::string(add_one_source)));
  EXPECT_NE(what.find("CUDA C source"), std::string::npos) << what;
}

TEST_F(ModuleFormat, CommentsOnlyIsAnError) {
  std::string what = load_error(write("kernel.txt", std::string("// nothing\n/* here */\n")));
  EXPECT_NE(what.find("nothing but blank space and comments"), std::string::npos) << what;
}

TEST_F(ModuleFormat, EmptyFileIsAnError) {
  std::string what = load_error(write("empty.cubin", std::string()));
  EXPECT_NE(what.find("0 bytes"), std::string::npos) << what;
}

TEST_F(ModuleFormat, RelocatableHostObjectIsAnError) {
  std::string what = load_error(write("kernel.so", elf_header(1, 62, 0, 0)));
  EXPECT_NE(what.find("relocatable object for x86-64"), std::string::npos) << what;
}

TEST_F(ModuleFormat, MissingFileIsAnError) {
  std::string what = load_error(dir_ / "absent.cubin");
  EXPECT_NE(what.find("cannot be opened"), std::string::npos) << what;
}

}  // namespace
}  // namespace cudakit
