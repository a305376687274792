// `cudakit profile [--trace F] [--output F] -- CMD...` on a small program
// (tests/profile/profile_workload.cpp): the program's own output and exit
// code pass through, the table lists its kernel and its fused expression
// with their call counts and GB/s, the trace is valid JSON with one event
// per launch, --output keeps the table; bad input gets a clear message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "unit/child_process.hpp"

namespace {

const std::string cli = std::string(CUDAKIT_BINARY_DIR) + "/bin/cudakit";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::string temp_path(const char* tag, const char* ext) {
  return ::testing::TempDir() + "cudakit_profile_cli_" + tag + "_" + std::to_string(::getpid()) +
         ext;
}

TEST(ProfileCli, TableTraceAndOutputForAProgram) {
  const std::string trace = temp_path("trace", ".json"), table = temp_path("table", ".txt");
  const ::test::ProcessResult r =
      ::test::run_process("CUDAKIT_BACKEND=cpu " + cli + " profile --trace " + trace +
                          " --output " + table + " -- " + PROFILE_WORKLOAD + " 2>&1");
  const std::string& out = r.output;
  EXPECT_EQ(r.exit_code, 0) << out;
  EXPECT_NE(out.find("profile workload: results correct"), std::string::npos) << out;
  EXPECT_NE(out.find("5 launches of 2 kernels"), std::string::npos) << out;
  // saxpy: 3 calls, GB/s from the two launches that declared their bytes.
  EXPECT_TRUE(std::regex_search(
      out,
      std::regex(
          R"(\nsaxpy +3 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]+  grid 40x1x1 block 256x1x1)")))
      << out;
  // The fused expression, named by itself, with its GB/s.
  EXPECT_TRUE(std::regex_search(
      out,
      std::regex(
          R"(\nadd\(multiply\(in0, in1\), in0\) +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]+  grid)")))
      << out;
  EXPECT_NE(out.find("trace of 5 launches written to " + trace), std::string::npos) << out;

  const std::string kept = read_file(table);
  EXPECT_NE(kept.find("5 launches of 2 kernels"), std::string::npos) << kept;
  EXPECT_NE(kept.find("saxpy"), std::string::npos) << kept;

  const std::string json = read_file(trace);
  std::size_t events = 0;
  for (std::size_t at = 0; (at = json.find("\"ph\": \"X\"", at)) != std::string::npos; ++at)
    ++events;
  EXPECT_EQ(events, 5u) << json;
  if (std::system("python3 -c 'pass' > /dev/null 2>&1") == 0) {
    const std::string check = ::test::run_process(
                                  "python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); "
                                  "print('events', len(d['traceEvents']), sorted({e['name'] for e "
                                  "in d['traceEvents']}))\" " +
                                  trace + " 2>&1")
                                  .output;
    EXPECT_NE(check.find("events 5 ['add(multiply(in0, in1), in0)', 'saxpy']"), std::string::npos)
        << check;
  }
  std::remove(trace.c_str());
  std::remove(table.c_str());
}

TEST(ProfileCli, ExitCodeOfTheProgramPassesThrough) {
  const ::test::ProcessResult r = ::test::run_process(cli + " profile -- sh -c 'exit 3' 2>&1");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  // A program that launches nothing prints no table (it never used cudakit).
  EXPECT_EQ(r.output.find("launches of"), std::string::npos) << r.output;
}

TEST(ProfileCli, BadInputIsExplained) {
  ::test::ProcessResult r = ::test::run_process(cli + " profile 2>&1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("COMMAND"), std::string::npos) << r.output;

  r = ::test::run_process(cli + " profile --trace /nonexistent-dir/t.json -- true 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("its directory does not exist"), std::string::npos) << r.output;

  r = ::test::run_process(cli + " profile -- /nonexistent/program 2>&1");
  EXPECT_EQ(r.exit_code, 127) << r.output;
  EXPECT_NE(r.output.find("cannot start '/nonexistent/program'"), std::string::npos) << r.output;
}

}  // namespace
