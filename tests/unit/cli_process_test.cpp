// The `cudakit` binary as users run it: exit codes and what it prints.
// Runs without a GPU (compile targets sm_90 explicitly; demo and doctor use
// the CPU backend); tests that only make sense without a GPU skip on one.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cudakit/backend_kind.hpp"
#include "unit/child_process.hpp"

namespace {

namespace fs = std::filesystem;

// stdout and stderr together (the commands redirect 2>&1).
using Result = ::test::ProcessResult;

class CliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ =
        new fs::path(fs::temp_directory_path() / ("cudakit_cli_test_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    // Keep the user's cache out of the tests.
    setenv("CUDAKIT_CACHE_DIR", (*dir_ / "cache").c_str(), 1);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }

  static Result run(const std::string& args) {
    std::string command = std::string(CUDAKIT_CLI_PATH) + " " + args + " 2>&1";
    return ::test::run_process(command);
  }

  static std::string write_file(const std::string& name, const std::string& text) {
    fs::path path = *dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  static bool has_gpu() { return cudakit::backend_available(cudakit::BackendKind::cuda); }

  static fs::path* dir_;
};

fs::path* CliTest::dir_ = nullptr;

constexpr const char* vector_add = R"(
__global__ void add_kernel(const float *a, const float *b, float *c, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) c[idx] = a[idx] + b[idx];
}
)";

TEST_F(CliTest, HelpListsEverySubcommand) {
  Result r = run("--help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* sub : {"doctor", "info", "compile", "demo", "bench"})
    EXPECT_NE(r.output.find(sub), std::string::npos) << sub << "\n" << r.output;
}

TEST_F(CliTest, NoSubcommandIsAnError) { EXPECT_NE(run("").exit_code, 0); }

TEST_F(CliTest, UnknownSubcommandIsAnError) {
  Result r = run("frobnicate");
  EXPECT_NE(r.exit_code, 0);
}

TEST_F(CliTest, CompileWritesPtxForAnExplicitArchWithoutAGpu) {
  std::string src = write_file("vadd_ptx.cu", vector_add);
  std::string out = (*dir_ / "vadd.ptx").string();
  Result r = run("compile " + src + " --arch sm_90 --ptx -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  std::string ptx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(ptx.find(".entry add_kernel"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("sm_90"), std::string::npos);
}

TEST_F(CliTest, CompileWritesACubinByDefault) {
  std::string src = write_file("vadd_cubin.cu", vector_add);
  std::string out = (*dir_ / "vadd.cubin").string();
  Result r = run("compile " + src + " --arch sm_90 -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cubin"), std::string::npos) << r.output;
  std::ifstream in(out, std::ios::binary);
  std::array<char, 4> magic{};
  in.read(magic.data(), 4);
  EXPECT_EQ(std::string(magic.data(), 4), std::string("\x7f"
                                                      "ELF",
                                                      4));
}

TEST_F(CliTest, CompileWithoutArchAndWithoutGpuTargetsSm90WithANote) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: the default arch is the device's";
  std::string src = write_file("vadd_default.cu", vector_add);
  Result r = run("compile " + src);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no GPU found"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sm_90"), std::string::npos) << r.output;
}

TEST_F(CliTest, CompileErrorPrintsTheLogAndNumberedSourceAndExits1) {
  std::string src = write_file("broken.cu",
                               "__global__ void broken(float *a) {\n"
                               "    a[0] = undeclared_name;\n"
                               "}\n");
  Result r = run("compile " + src + " --arch sm_90");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("undeclared_name"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("a[0] = undeclared_name;"), std::string::npos) << r.output;
}

TEST_F(CliTest, CompileOfAMissingFileNamesItAndFails) {
  Result r = run("compile " + (*dir_ / "does_not_exist.cu").string() + " --arch sm_90");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("does_not_exist.cu"), std::string::npos) << r.output;
}

TEST_F(CliTest, CompileShowSourcePrintsTheExternCWrappedSourceNumbered) {
  std::string src = write_file("vadd_show.cu", vector_add);
  Result r = run("compile " + src + " --arch sm_90 --show-source");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("extern \"C\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("   1 | "), std::string::npos) << r.output;
}

TEST_F(CliTest, CompileResourceUsageReportsSharedMemoryOfTheTiledMatmul) {
  std::string src =
      write_file("tiles.cu",
                 "#define T 16\n"
                 "__global__ void tiles(const float *a, float *b) {\n"
                 "    __shared__ float s[T][T];\n"
                 "    s[threadIdx.y][threadIdx.x] = a[threadIdx.y * T + threadIdx.x];\n"
                 "    __syncthreads();\n"
                 "    b[threadIdx.y * T + threadIdx.x] = s[threadIdx.x][threadIdx.y];\n"
                 "}\n");
  Result r = run("compile " + src + " --arch sm_90 --resource-usage");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tiles"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1.0 KiB"), std::string::npos) << r.output;
}

TEST_F(CliTest, CompileNameExpressionPrintsTheLoweredSymbol) {
  std::string src = write_file("templ.cu",
                               "template <typename T>\n"
                               "__global__ void scale(T *x, T f, int n) {\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n) x[i] *= f;\n"
                               "}\n");
  Result r = run("compile " + src + " --arch sm_90 --no-extern-c --name-expression 'scale<float>'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("scale<float> -> _Z"), std::string::npos) << r.output;
}

TEST_F(CliTest, CompileDefinesReachThePreprocessor) {
  std::string src = write_file("needs_define.cu",
                               "#ifndef SCALE\n#error SCALE must be defined\n#endif\n"
                               "__global__ void k(float *x) { x[0] *= SCALE; }\n");
  EXPECT_EQ(run("compile " + src + " --arch sm_90 -D SCALE=2").exit_code, 0);
  Result missing = run("compile " + src + " --arch sm_90");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("SCALE must be defined"), std::string::npos) << missing.output;
}

TEST_F(CliTest, CompilePtxAndCubinTogetherAreRejected) {
  std::string src = write_file("vadd_both.cu", vector_add);
  EXPECT_NE(run("compile " + src + " --ptx --cubin").exit_code, 0);
}

TEST_F(CliTest, DoctorPrintsATaggedLinePerCheck) {
  Result r = run("doctor --cpu-ok");
  EXPECT_NE(r.output.find("[ ok ]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("NVRTC"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("selected backend"), std::string::npos) << r.output;
}

TEST_F(CliTest, DoctorWithoutAGpuSaysTheGpuPathIsUnusableAndFails) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  Result r = run("doctor");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GPU path unusable: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[FAIL]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fix:"), std::string::npos) << r.output;
}

TEST_F(CliTest, DoctorCpuOkExitsZeroWhenTheCpuBackendWorks) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  Result r = run("doctor --cpu-ok");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no GPU: running the vector add on the CPU backend"), std::string::npos)
      << r.output;
}

TEST_F(CliTest, InfoNamesTheBackendAndEveryDeviceAttribute) {
  Result r = run("info");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("backend = "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cpu backend: 1 device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("MAX_THREADS_PER_BLOCK = "), std::string::npos) << r.output;
  // The FAQ's device limits, with CUDA's defaults on the CPU backend.
  EXPECT_NE(r.output.find("limits: printf_fifo_size = 1.0 MiB, stack_size = 1.0 KiB per thread, "
                          "malloc_heap_size = 8.0 MiB"),
            std::string::npos)
      << r.output;
}

TEST_F(CliTest, DemoChecksEveryWorkloadAndPrintsTheTable) {
  Result r = run("demo --size tiny");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* what : {"vector add", "tiled matmul", "mean filter", "speed-up", "check"})
    EXPECT_NE(r.output.find(what), std::string::npos) << what << "\n" << r.output;
  EXPECT_EQ(r.output.find("WRONG"), std::string::npos) << r.output;
  if (!has_gpu()) {
    EXPECT_NE(r.output.find("no GPU: running on the CPU backend"), std::string::npos);
  }
}

TEST_F(CliTest, DemoRejectsAnUnknownSize) { EXPECT_NE(run("demo --size huge").exit_code, 0); }

TEST_F(CliTest, BenchLaunchPrintsTheRatioAgainstTheRawLaunch) {
  Result r = run("bench launch --launches 200 --repeats 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("launch ratio (cudakit / raw): "), std::string::npos) << r.output;
}

TEST_F(CliTest, BenchRejectsAnUnknownBenchmark) { EXPECT_NE(run("bench everything").exit_code, 0); }

// The 3x3 filter's steps against the copy ceilings; every output is checked.
TEST_F(CliTest, BenchConvPrintsTheStepsAgainstTheCeilings) {
  Result r = run("bench conv --repeats 1 --steps 1,4,5a,6b,shipped");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* what :
       {"(ceiling) copy: cuMemcpyDtoD", "(ceiling) copy kernel: 16-byte", "of best ceiling",
        "1 naive (tutorial)", "4 + 16-byte loads", "5a strips", "6b bulk copies", "[shipped]",
        "x the tutorial's naive kernel"})
    EXPECT_NE(r.output.find(what), std::string::npos) << what << "\n" << r.output;
  EXPECT_EQ(r.output.find("WRONG"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("2 shared-memory"), std::string::npos) << r.output;
}

// --timing idle times launches on an idle GPU (the window holds the host's
// submission); queued, the default, behind a GPU hold. Both run on the CPU
// backend (no hold there); anything else is refused with the choices.
TEST_F(CliTest, BenchConvTakesEitherTiming) {
  for (const char* timing : {"queued", "idle"}) {
    Result r = run(std::string("bench conv --repeats 1 --steps 1,6t --timing ") + timing);
    ASSERT_EQ(r.exit_code, 0) << timing << "\n" << r.output;
    EXPECT_NE(r.output.find("6t strips"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("WRONG"), std::string::npos) << r.output;
  }
  Result bad = run("bench conv --timing soon");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("--timing"), std::string::npos) << bad.output;
}

// --warp-times runs each strip step once more with every warp's start and
// end recorded, and prints a row of percentiles for each; the steps before
// the strips have no such build and get no row.
TEST_F(CliTest, BenchConvTimesEachWarpOfTheStripSteps) {
  Result r = run("bench conv --repeats 1 --steps 1,5a,7l --warp-times");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto table = r.output.find("warp times:");
  ASSERT_NE(table, std::string::npos) << r.output;
  for (const char* row : {"\n| 5a ", "\n| 7l "})
    EXPECT_NE(r.output.find(row, table), std::string::npos) << row << "\n" << r.output;
  EXPECT_EQ(r.output.find("\n| 1 ", table), std::string::npos) << r.output;
  Result none = run("bench conv --repeats 1 --steps 1 --warp-times");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("none of these steps is a strip kernel"), std::string::npos)
      << none.output;
}

TEST_F(CliTest, BenchConvNamesTheStepsOnAnUnknownLabel) {
  Result r = run("bench conv --steps 1,9z");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("no step is called '9z'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("5a"), std::string::npos) << r.output;  // the labels there are
}

}  // namespace

TEST_F(CliTest, CompileWithoutOutputSaysNothingWasWritten) {
  std::string src = write_file("vadd_check_only.cu", vector_add);
  Result r = run("compile --arch sm_90 " + src);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nothing written; -o FILE writes the cubin"), std::string::npos)
      << r.output;
}

TEST_F(CliTest, BackendNamesAreTakenInAnyCase) {
  Result upper =
      ::test::run_process("CUDAKIT_BACKEND=CPU " + std::string(CUDAKIT_CLI_PATH) + " info 2>&1");
  ASSERT_EQ(upper.exit_code, 0) << upper.output;
  EXPECT_NE(upper.output.find("backend = cpu"), std::string::npos) << upper.output;
  Result unknown =
      ::test::run_process("CUDAKIT_BACKEND=tpu " + std::string(CUDAKIT_CLI_PATH) + " info 2>&1");
  EXPECT_NE(unknown.exit_code, 0) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown backend 'tpu'"), std::string::npos) << unknown.output;
  EXPECT_NE(unknown.output.find("'cuda' (also 'gpu') or 'cpu', in any case"), std::string::npos)
      << unknown.output;
}

TEST_F(CliTest, DoctorSearchesOnlyThisArchitecturesLibraryDirectory) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: the driver is found";
  Result r = run("doctor");
#if defined(__aarch64__)
  EXPECT_EQ(r.output.find("x86_64-linux-gnu/libcuda"), std::string::npos) << r.output;
#else
  EXPECT_EQ(r.output.find("aarch64"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), std::string::npos) << r.output;
#endif
}
