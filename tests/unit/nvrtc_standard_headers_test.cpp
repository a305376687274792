// Kernels written for nvcc include the C and C++ standard headers and use
// nvcc's implicit typedefs (uint, uchar, ...). Each kernel of the table, in
// PyCUDA's extern "C" wrapping (the default), is
// compiled for sm_90 with NVRTC (compile_only: no GPU needed, only the
// toolkit; skipped without NVRTC) and compiled and run on the CPU backend
// against a reference computed here on random input. Also: what a header
// that exists nowhere reports.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

// One kernel: `out[i] = ...` from x = in[i] (x in [0, 1)), i and n.
struct Case {
  std::string name;
  std::string includes;
  std::string body;
  std::function<double(float x, int i, int n)> reference;
};

// What ctest and GoogleTest print for a case: its name.
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

std::string kernel_source(const Case& c) {
  return c.includes +
         "\n__global__ void k(const float* in, float* out, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i >= n) return;\n"
         "  float x = in[i];\n  " +
         c.body + "\n}\n";
}

double bits_of(float x) {
  unsigned bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<double>(static_cast<long long>(bits) * 3 % 1000) + 1.0;
}

const std::vector<Case> kCases = {
    {"stdio_h", "#include <stdio.h>",
     "if (i == n + 1) printf(\"never %d\\n\", i);\n  out[i] = x + 1.0f;",
     [](float x, int, int) { return x + 1.0; }},
    {"math_h", "#include <math.h>", "out[i] = (float)(M_PI * x) + sqrtf(fabsf(x)) + (float)M_E;",
     [](float x, int, int) { return M_PI * x + std::sqrt(std::fabs(x)) + M_E; }},
    {"cmath", "#include <cmath>",
     "out[i] = std::sqrt(std::fabs(x)) + std::fmax(x, 0.5f) + (std::isnan(x) ? 1.0f : 0.0f) + "
     "(float)M_SQRT2;",
     [](float x, int, int) { return std::sqrt(x) + std::max(x, 0.5f) + M_SQRT2; }},
    {"stdint_h", "#include <stdint.h>",
     "uint32_t bits = __float_as_uint(x);\n  int64_t wide = (int64_t)bits * 3;\n"
     "  out[i] = (float)(wide % 1000) + (INT32_MAX == 2147483647 ? 1.0f : 0.0f);",
     [](float x, int, int) { return bits_of(x); }},
    {"cstdint", "#include <cstdint>",
     "std::uint16_t h = (std::uint16_t)(i * 7);\n  std::int8_t s = (std::int8_t)(i % 100);\n"
     "  out[i] = x * h + s + (float)(UINT16_MAX & 3);",
     [](float x, int i, int) { return x * static_cast<std::uint16_t>(i * 7) + i % 100 + 3; }},
    {"stddef_h", "#include <stddef.h>",
     "size_t at = (size_t)i;\n  ptrdiff_t d = &in[at] - in;\n"
     "  out[i] = x + (float)d + (float)offsetof(float2, y);",
     [](float x, int i, int) { return x + i + 4.0; }},
    {"cstddef", "#include <cstddef>",
     "std::size_t at = i;\n  std::ptrdiff_t back = n - 1 - (std::ptrdiff_t)at;\n"
     "  out[i] = x * (float)back;",
     [](float x, int i, int n) { return static_cast<double>(x) * (n - 1 - i); }},
    {"stdlib_h", "#include <stdlib.h>", "out[i] = (float)abs(i - n / 2) + x + (float)EXIT_FAILURE;",
     [](float x, int i, int n) { return std::abs(i - n / 2) + x + 1.0; }},
    {"cstdlib", "#include <cstdlib>",
     "out[i] = (float)std::abs(i - 500) + (float)std::div(i, 7).rem + x;",
     [](float x, int i, int) { return std::abs(i - 500) + i % 7 + x; }},
    {"assert_h", "#include <assert.h>", "assert(x >= 0.0f);\n  out[i] = x * 2.0f;",
     [](float x, int, int) { return x * 2.0; }},
    {"cassert", "#include <cassert>", "assert(i < n);\n  out[i] = x - 1.0f;",
     [](float x, int, int) { return x - 1.0; }},
    {"float_h", "#include <float.h>",
     "out[i] = x < FLT_MAX && DBL_MAX > 1e300 ? x + FLT_EPSILON * 1e6f : 0.0f;",
     [](float x, int, int) { return x + FLT_EPSILON * 1e6f; }},
    {"cfloat", "#include <cfloat>",
     "out[i] = (float)(x * DBL_EPSILON * 1e15) + (FLT_MANT_DIG == 24 ? 1.0f : 0.0f);",
     [](float x, int, int) { return x * DBL_EPSILON * 1e15 + 1.0; }},
    {"limits_h", "#include <limits.h>",
     "out[i] = x + (INT_MAX == 2147483647) + (float)(i % CHAR_BIT) + (UCHAR_MAX == 255);",
     [](float x, int i, int) { return x + 2.0 + i % 8; }},
    {"climits", "#include <climits>",
     "out[i] = (float)((unsigned)i * 2654435761u % 1000u) + (SHRT_MAX == 32767) * x + "
     "(UINT_MAX == 4294967295u);",
     [](float x, int i, int) { return static_cast<unsigned>(i) * 2654435761u % 1000u + x + 1.0; }},
    {"limits", "#include <limits>",
     "out[i] = fminf(x, std::numeric_limits<float>::max()) + "
     "(float)std::numeric_limits<int>::digits + std::numeric_limits<float>::epsilon();",
     [](float x, int, int) { return x + 31.0 + FLT_EPSILON; }},
    {"string_h", "#include <string.h>",
     "float copy;\n  memcpy(&copy, &x, sizeof copy);\n  unsigned char bytes[4] = {1, 2, 3, 4};\n"
     "  memset(bytes, 0, 3);\n  out[i] = copy + bytes[3];",
     [](float x, int, int) { return x + 4.0; }},
    {"cstring", "#include <cstring>",
     "float copy;\n  std::memcpy(&copy, &x, sizeof(float));\n  out[i] = copy * 3.0f;",
     [](float x, int, int) { return x * 3.0; }},
    {"type_traits", "#include <type_traits>",
     "using T = std::conditional<std::is_same<float, decltype(x)>::value, double, int>::type;\n"
     "  T wide = x;\n  out[i] = (float)(wide * 2) + (std::is_integral<T>::value ? 100.0f : 0.0f);",
     [](float x, int, int) { return x * 2.0; }},
    {"utility", "#include <utility>",
     "auto p = std::make_pair(x, i);\n  float a = x, b = 2.0f * x;\n  std::swap(a, b);\n"
     "  out[i] = a - b + p.first + (float)p.second;",
     [](float x, int i, int) { return 2.0 * x + i; }},
    {"algorithm", "#include <algorithm>",
     "float a = x, b = 1.0f;\n  std::swap(a, b);\n"
     "  out[i] = std::min(x, 0.5f) + std::max(x, 0.25f) + a;",
     [](float x, int, int) { return std::min(x, 0.5f) + std::max(x, 0.25f) + 1.0; }},
    {"complex", "#include <complex>",
     "std::complex<float> z(x, 1.0f);\n  z = z * z + std::complex<float>(0.5f, 0.0f);\n"
     "  out[i] = std::abs(z) + z.imag();",
     [](float x, int, int) {
       std::complex<double> z(x, 1.0);
       z = z * z + 0.5;
       return std::abs(z) + z.imag();
     }},
    {"iostream_sstream", "#include <iostream>\n#include <sstream>",
     "out[i] = x * 2.0f + (float)(std::ios_base::failbit != 0);",
     [](float x, int, int) { return x * 2.0 + 1.0; }},
    {"nvcc_typedefs_and_M_PI", "#include <math.h>",
     "uint u = (uint)i;\n  uchar c = (uchar)(i & 0xff);\n  ushort s = (ushort)(i * 3);\n"
     "  ulong l = (ulong)i * 1000ul;\n  out[i] = x * (float)M_PI + u + c + s + (float)(l % 7);",
     [](float x, int i, int) {
       return x * M_PI + i + (i & 0xff) + static_cast<unsigned short>(i * 3) + (i * 1000L) % 7;
     }},
    {"typedefs_without_any_include", "",
     "uint u = (uint)i;\n  uchar c = (uchar)(i % 200);\n  out[i] = x + u + c;",
     [](float x, int i, int) { return x + i + i % 200; }},
};

CompileOptions sm90() {
  CompileOptions options;
  options.arch = "sm_90";
  options.use_cache = false;
  return options;
}

// Runs `body`, turning a missing NVRTC into a skip.
#define SKIP_WITHOUT_NVRTC(body)                                    \
  try {                                                             \
    body;                                                           \
  } catch (const NvrtcNotFound& e) {                                \
    GTEST_SKIP() << "NVRTC is not installed here: " << e.message(); \
  }

class StandardHeader : public ::testing::TestWithParam<Case> {};

TEST_P(StandardHeader, CompilesWithNvrtcForSm90) {
  const Case& c = GetParam();
  SKIP_WITHOUT_NVRTC({
    try {
      CompiledCode code = compile_only(kernel_source(c), sm90(), BackendKind::cuda);
      EXPECT_FALSE(code.image.empty());
      EXPECT_EQ(code.log.find("warning"), std::string::npos) << code.log;
    } catch (const CompileError& e) {
      FAIL() << e.what();
    }
  });
}

TEST_P(StandardHeader, RunsOnTheCpuBackendAsTheReference) {
  const Case& c = GetParam();
  const int n = 1000;  // not a multiple of the block
  std::mt19937 random(std::hash<std::string>{}(c.name));
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> input(n);
  for (float& value : input) value = uniform(random);

  Device cpu = Device::get(BackendKind::cpu, 0);
  Module module = compile(kernel_source(c), CompileOptions{}, cpu);
  DeviceBuffer<float> in(cpu, n), out(cpu, n);
  in.copy_from(std::span<const float>(input));
  module.kernel("k").launch(grid_for(n, 128), in, out, n);
  cpu.synchronize();
  const std::vector<float> result = out.to_host();
  for (int i = 0; i < n; ++i) {
    const double expected = c.reference(input[i], i, n);
    ASSERT_NEAR(result[i], expected, 1e-5 * std::max(1.0, std::fabs(expected)))
        << c.name << " at " << i << " for x = " << input[i];
  }
}

INSTANTIATE_TEST_SUITE_P(NvrtcStandardHeaders, StandardHeader, ::testing::ValuesIn(kCases),
                         [](const auto& test) { return test.param.name; });

#define EXPECT_CONTAINS(text, part)                                                           \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "missing: " << (part) << "\n" \
                                                             << (text)

TEST(NvrtcStandardHeaders, AHeaderThatExistsNowhereNamesTheChainAndTheSearchedPlaces) {
  CompileOptions options = sm90();
  options.headers = {{"outer.h", "#pragma once\n#include \"inner.h\"\n"},
                     {"inner.h", "#pragma once\n\n#include <no_such_header_anywhere.h>\n"}};
  options.include_dirs = {"/nonexistent/cudakit/includes"};
  SKIP_WITHOUT_NVRTC({
    try {
      compile_only("#include <math.h>\n#include \"outer.h\"\n__global__ void k() {}\n", options,
                   BackendKind::cuda);
      FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
      EXPECT_CONTAINS(e.log(), "cannot open source file \"no_such_header_anywhere.h\"");
      const std::string what = e.what();
      EXPECT_CONTAINS(what,
                      "is included at inner.h line 3, included from outer.h line 2, "
                      "included from kernel.cu line 2");
      EXPECT_CONTAINS(what, "the headers given with the compile (outer.h, inner.h)");
      EXPECT_CONTAINS(what, "/nonexistent/cudakit/includes, ");
      EXPECT_CONTAINS(what, "/cccl");
      EXPECT_CONTAINS(what, "stand-ins for standard headers (stdio.h");
    }
  });
}

TEST(NvrtcStandardHeaders, AMissingHeaderIncludedFromAHeaderOnDiskNamesItsIncluder) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("cudakit_missing_header_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "on_disk.h") << "#pragma once\n#include \"gone_missing.h\"\n";
  CompileOptions options = sm90();
  options.include_dirs = {dir.string()};
  SKIP_WITHOUT_NVRTC({
    try {
      compile_only("// a comment\n#include <on_disk.h>\n__global__ void k() {}\n", options,
                   BackendKind::cuda);
      ADD_FAILURE() << "expected CompileError";
    } catch (const CompileError& e) {
      EXPECT_CONTAINS(e.what(), "\"gone_missing.h\" is included at " +
                                    (dir / "on_disk.h").string() +
                                    " line 2, included from kernel.cu line 2");
      EXPECT_CONTAINS(e.what(), "the headers given with the compile (none)");
    }
  });
  std::filesystem::remove_all(dir);
}

TEST(NvrtcStandardHeaders, AHeaderTheUserGivesWinsOverTheStandIn) {
  CompileOptions options = sm90();
  options.headers = {{"math.h", "#pragma once\n#define M_PI 3\n"}};
  SKIP_WITHOUT_NVRTC({
    EXPECT_NO_THROW(
        compile_only("#include <math.h>\nstatic_assert(M_PI == 3, \"the user's "
                     "math.h\");\n__global__ void k() {}",
                     options, BackendKind::cuda));
  });
}

TEST(NvrtcStandardHeaders, ErrorsKeepTheUsersLineNumbersAfterStandardIncludes) {
  const std::string source =
      "#include <cmath>\n#include <limits>\n__global__ void k(float* x) {\n  oops;\n}\n";
  SKIP_WITHOUT_NVRTC({
    try {
      compile_only(source, sm90(), BackendKind::cuda);
      FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
      EXPECT_CONTAINS(e.log(), "kernel.cu(4): error");
    }
  });
}

}  // namespace
}  // namespace cudakit
