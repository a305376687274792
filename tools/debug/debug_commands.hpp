// `cudakit run` and `cudakit check`: start a user's program under the
// checking tools (the CPU backend's AddressSanitizer, compute-sanitizer on a
// GPU) with the settings they need, so users need not know them.
#pragma once

#include <string>
#include <vector>

namespace cudakit::cli {

struct RunOptions {
  bool sanitize = false;             // CPU backend with AddressSanitizer + UBSan
  std::vector<std::string> command;  // the program and its arguments
};
int run_run(const RunOptions& options);

struct CheckOptions {
  std::string tool = "memcheck";  // memcheck | racecheck | initcheck | synccheck
  std::vector<std::string> command;
};
int run_check(const CheckOptions& options);

}  // namespace cudakit::cli
