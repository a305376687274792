// The CLI's subcommands: each takes its parsed options and returns the
// process exit code. main.cpp wires them to CLI11.
#pragma once

#include <string>
#include <vector>

namespace cudakit::cli {

struct DoctorOptions {
  bool cpu_ok = false;  // exit 0 when the GPU path is unusable but the CPU backend works
};
int run_doctor(const DoctorOptions& options);

int run_info();

struct CompileCommandOptions {
  std::string file;
  std::string arch;  // empty: the device's, else sm_90
  bool ptx = false;
  bool cubin = false;
  std::string output;  // "-" for stdout
  bool resource_usage = false;
  bool show_source = false;
  std::vector<std::string> defines;  // NAME=VAL or NAME
  std::vector<std::string> include_dirs;
  std::string std = "c++17";
  bool no_extern_c = false;
  std::vector<std::string> name_expressions;
};
int run_compile(const CompileCommandOptions& options);

struct DemoOptions {
  std::string size = "auto";  // auto | tiny | small | full
  int repeats = 0;            // 0: chosen per backend
};
int run_demo(const DemoOptions& options);

struct BenchOptions {
  std::string what = "all";  // launch | compile | all
  int launches = 0;          // per repeat; 0: chosen per backend
  int repeats = 7;
  std::string plot;               // conv: an SVG chart written here
  std::string steps = "all";      // conv: which filter steps (select_conv_steps)
  std::string timing = "queued";  // conv: queued (GPU time) | idle (with the submission)
  bool warp_times = false;        // conv: each warp's time in one launch of each strip step
};
int run_bench(const BenchOptions& options);

}  // namespace cudakit::cli
