// The `cudakit` binary given what a careless or hostile user gives it: a
// mistyped command, an arch NVRTC does not know, a virtual arch with --cubin,
// an empty -D, negative counts, a binary file, a directory, a device, a
// named pipe with no writer. Each is a short, clear error and a failing exit
// code, never a hang, a success for another target or pages of compiler output.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "unit/child_process.hpp"

namespace {

namespace fs = std::filesystem;

// stdout and stderr together (the commands redirect 2>&1).
using Result = ::test::ProcessResult;

class CliHostileInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("cudakit_cli_hostile_test_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    setenv("CUDAKIT_CACHE_DIR", (*dir_ / "cache").c_str(), 1);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }

  // Runs the CLI under a time limit: a hang fails the test (exit 124).
  static Result run(const std::string& args) {
    const std::string command =
        "timeout 60 " + std::string(CUDAKIT_CLI_PATH) + " " + args + " 2>&1 </dev/null";
    return ::test::run_process(command);
  }

  static std::string write_file(const std::string& name, const std::string& text) {
    const fs::path path = *dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  static bool mentions(const Result& r, const std::string& text) {
    return r.output.find(text) != std::string::npos;
  }

  static fs::path* dir_;
};

fs::path* CliHostileInput::dir_ = nullptr;

constexpr const char* kernel_source = "__global__ void k(int* p) { p[0] = 1; }\n";

TEST_F(CliHostileInput, UnknownCommandIsNamedWithTheCommandsThereAre) {
  const Result r = run("frobnicate");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(mentions(r, "unknown command 'frobnicate'")) << r.output;
  EXPECT_TRUE(mentions(r, "compile")) << r.output;
}

TEST_F(CliHostileInput, ArchTheCompilerDoesNotKnowIsAnError) {
  const std::string src = write_file("arch999.cu", kernel_source);
  const std::string out = (*dir_ / "arch999.out").string();
  const Result r = run("compile " + src + " --arch sm_999 -o " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(mentions(r, "sm_999")) << r.output;
  EXPECT_FALSE(fs::exists(out)) << "no code for another arch may be written";
}

TEST_F(CliHostileInput, VirtualArchWithCubinIsAnError) {
  const std::string src = write_file("virtual.cu", kernel_source);
  const Result r = run("compile " + src + " --arch compute_90 --cubin");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(mentions(r, "virtual arch")) << r.output;
  EXPECT_TRUE(mentions(r, "sm_90")) << r.output;
}

TEST_F(CliHostileInput, ExplicitArchesThatExistStillCompile) {
  const std::string src = write_file("fine.cu", kernel_source);
  for (const char* args : {"--arch sm_90", "--arch sm_90 --ptx", "--arch compute_90"}) {
    const Result r = run("compile " + src + " " + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  }
}

TEST_F(CliHostileInput, EmptyDefineIsAnErrorAndDoesNotSwallowTheNextOption) {
  const std::string src = write_file("define.cu", kernel_source);
  const Result r = run("compile " + src + " -D '' --arch sm_90 --ptx");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(mentions(r, "has no name")) << r.output;
  EXPECT_FALSE(mentions(r, "invalid macro definition")) << r.output;
  const Result bad_name = run("compile " + src + " -D '1X=2' --arch sm_90 --ptx");
  EXPECT_EQ(bad_name.exit_code, 1) << bad_name.output;
  EXPECT_TRUE(mentions(bad_name, "not a C identifier")) << bad_name.output;
  const Result empty_include = run("compile " + src + " -I '' --arch sm_90 --ptx");
  EXPECT_EQ(empty_include.exit_code, 1) << empty_include.output;
  const Result fine = run("compile " + src + " -D 'F(x)=x' -D N=3 --arch sm_90 --ptx");
  EXPECT_EQ(fine.exit_code, 0) << fine.output;
}

TEST_F(CliHostileInput, NegativeCountsAreErrors) {
  for (const char* args : {"bench launch --launches -5", "bench launch --repeats -1",
                           "bench launch --repeats 0", "demo --repeats -2"}) {
    const Result r = run(args);
    EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_TRUE(mentions(r, "not in range")) << args << "\n" << r.output;
  }
}

TEST_F(CliHostileInput, BinaryFileIsAShortError) {
  const Result r = run(std::string("compile ") + CUDAKIT_CLI_PATH + " --arch sm_90");
  EXPECT_EQ(r.exit_code, 1) << r.output.substr(0, 2000);
  EXPECT_TRUE(mentions(r, "binary data")) << r.output.substr(0, 2000);
  EXPECT_LT(r.output.size(), 1000u) << r.output.substr(0, 2000);
}

TEST_F(CliHostileInput, DirectoryAndDeviceAreErrors) {
  const Result dir = run("compile " + dir_->string() + " --arch sm_90");
  EXPECT_EQ(dir.exit_code, 1) << dir.output;
  EXPECT_TRUE(mentions(dir, "directory")) << dir.output;
  const Result zero = run("compile /dev/zero --arch sm_90");
  EXPECT_EQ(zero.exit_code, 1) << zero.output;
  EXPECT_TRUE(mentions(zero, "device")) << zero.output;
}

// `cudakit compile <(generate)` reads a pipe: pipes stay allowed.
TEST_F(CliHostileInput, SourceFromAPipeCompiles) {
  const fs::path fifo = *dir_ / "source.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // The writer opens without blocking, retrying until the CLI opens the
  // reading end (ENXIO before), for at most 60 s.
  std::thread writer([&] {
    for (int attempt = 0; attempt < 6000; ++attempt) {
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) {
        const std::string text = kernel_source;
        (void)!::write(fd, text.data(), text.size());
        ::close(fd);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const Result r = run("compile " + fifo.string() + " --arch sm_90 --ptx");
  writer.join();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(mentions(r, "compute_90")) << r.output;
}

}  // namespace
