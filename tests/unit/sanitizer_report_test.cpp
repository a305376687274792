// `cudakit check`'s summary of compute-sanitizer output: one line per
// problem, kernel and source line, from both the current and the older
// report formats.
#include "debug/sanitizer_report.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace cudakit::cli {
namespace {

SanitizerReport parse(const std::string& text) {
  SanitizerReport report;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) report.add_line(line);
  report.finish();
  return report;
}

const char* kMemcheck = R"(========= COMPUTE-SANITIZER
program output line
========= Invalid __global__ write of size 4 bytes
=========     at write_past_end(float *, int)+0x90 in /src/planted_oob.cu:3
=========     by thread (232,0,0) in block (3,0,0)
=========     Address 0x7f0000000fa0 is out of bounds
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cuLaunchKernel [0x2cf3a4] in libcuda.so.1
=========
========= Invalid __global__ write of size 4 bytes
=========     at write_past_end(float *, int)+0x90 in /src/planted_oob.cu:3
=========     by thread (233,0,0) in block (3,0,0)
=========     Address 0x7f0000000fa4 is out of bounds
=========
========= ERROR SUMMARY: 2 errors
)";

TEST(SanitizerReport, GroupsMemcheckErrorsByKernelAndLine) {
  SanitizerReport r = parse(kMemcheck);
  ASSERT_EQ(r.findings().size(), 1u);
  const SanitizerFinding& f = r.findings()[0];
  EXPECT_EQ(f.what, "Invalid __global__ write of size 4 bytes");
  EXPECT_EQ(f.kernel, "write_past_end");
  EXPECT_EQ(f.location, "planted_oob.cu:3");
  EXPECT_EQ(f.first_thread, "thread (232,0,0) block (3,0,0)");
  EXPECT_EQ(f.count, 2);
  std::string s = r.summary("memcheck");
  EXPECT_NE(s.find("planted_oob.cu:3  write_past_end: Invalid __global__ write"), std::string::npos)
      << s;
  EXPECT_NE(s.find("x2"), std::string::npos) << s;
}

TEST(SanitizerReport, ReadsTheOlderLocationFormat) {
  SanitizerReport r = parse(
      "========= Invalid __global__ read of size 4\n"
      "=========     at 0x00000070 in /tmp/k.cu:7:scale(float*)\n"
      "=========     by thread (1,0,0) in block (0,0,0)\n");
  ASSERT_EQ(r.findings().size(), 1u);
  EXPECT_EQ(r.findings()[0].kernel, "scale");
  EXPECT_EQ(r.findings()[0].location, "k.cu:7");
}

TEST(SanitizerReport, NamesRacesAtTheirFirstAccess) {
  SanitizerReport r = parse(
      "========= Error: Race reported between Write access at reverse_block(float *, const float "
      "*)+0x80 in /src/planted_race.cu:4\n"
      "=========     and Read access at reverse_block(float *, const float *)+0xa0 in "
      "/src/planted_race.cu:5 [1016 hazards]\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
  ASSERT_EQ(r.findings().size(), 1u);
  EXPECT_EQ(r.findings()[0].kernel, "reverse_block");
  EXPECT_EQ(r.findings()[0].location, "planted_race.cu:4");
  EXPECT_NE(r.summary("racecheck").find("planted_race.cu:4  reverse_block: Error: Race reported"),
            std::string::npos)
      << r.summary("racecheck");
  // The other access's line is named too.
  EXPECT_EQ(r.findings()[0].what,
            "Error: Race reported between Write access and Read access at planted_race.cu:5");
}

TEST(SanitizerReport, NamesPythonFilesLines) {
  // A @cuda.jit kernel's #line directives name the Python file.
  SanitizerReport r = parse(
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at fill_ones+0x70 in /home/me/fill.py:9\n"
      "=========     by thread (100,0,0) in block (0,0,0)\n"
      "========= Error: Race reported between Write access at reverse_block+0x80 in "
      "/home/me/race.py:12\n"
      "=========     and Read access at reverse_block+0xa0 in /home/me/race.py:13 [1016 "
      "hazards]\n");
  ASSERT_EQ(r.findings().size(), 2u);
  std::string s = r.summary("memcheck");
  EXPECT_NE(s.find("fill.py:9  fill_ones: Invalid __global__ write"), std::string::npos) << s;
  EXPECT_NE(s.find("race.py:12  reverse_block: Error: Race reported between Write access and "
                   "Read access at race.py:13"),
            std::string::npos)
      << s;
}

TEST(SanitizerReport, CleanRunSaysSoAndMissingLinesAreExplained) {
  SanitizerReport clean = parse("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(clean.findings().empty());
  EXPECT_NE(clean.summary("memcheck").find("no problems found"), std::string::npos);
  SanitizerReport bare = parse(
      "========= Invalid __shared__ write of size 4 bytes\n"
      "=========     at k+0x10\n");
  ASSERT_EQ(bare.findings().size(), 1u);
  EXPECT_EQ(bare.findings()[0].kernel, "k");
  EXPECT_NE(bare.summary("memcheck").find("-lineinfo"), std::string::npos);
}

}  // namespace
}  // namespace cudakit::cli
