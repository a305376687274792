// `cudakit profile [--trace FILE.json] [--output FILE] -- CMD...`: runs a
// program (a C++ binary, `python script.py`, ...) with CUDAKIT_PROFILE=1, so
// that at its exit the table of its launches per kernel is printed (and
// kept in FILE, and the launches written as a Chrome trace, when asked).
#pragma once

#include <string>
#include <vector>

namespace cudakit::cli {

struct ProfileOptions {
  std::string trace;                 // Chrome trace JSON written here at exit
  std::string output;                // the table also written here
  std::vector<std::string> command;  // the program and its arguments
};
int run_profile(const ProfileOptions& options);

}  // namespace cudakit::cli
