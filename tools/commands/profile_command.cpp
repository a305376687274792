// `cudakit profile -- CMD...` (see profile_command.hpp). The program itself
// does the recording: every cudakit process reads CUDAKIT_PROFILE when its
// first backend starts and prints the table at exit, so this command only
// sets the environment and replaces itself with the program.
#include "commands/profile_command.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "debug/program_search.hpp"

namespace cudakit::cli {
namespace {

// A file that can be created at `path`: its directory exists. Checked
// before the program runs rather than after it has taken its time.
bool directory_exists_for(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return true;
  const std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int run_profile(const ProfileOptions& options) {
  if (options.command.empty()) {
    std::cerr << "cudakit profile: no program given; e.g. cudakit profile -- ./my_program, "
                 "or cudakit profile --trace trace.json -- python my_script.py\n";
    return 2;
  }
  for (const auto* file : {&options.trace, &options.output}) {
    if (!file->empty() && !directory_exists_for(*file)) {
      std::cerr << "cudakit profile: cannot write " << *file
                << ": its directory does not exist; create it or give another path\n";
      return 2;
    }
  }
  ::setenv("CUDAKIT_PROFILE", "1", 1);
  if (!options.trace.empty()) ::setenv("CUDAKIT_PROFILE_TRACE", options.trace.c_str(), 1);
  if (!options.output.empty()) ::setenv("CUDAKIT_PROFILE_OUTPUT", options.output.c_str(), 1);
  std::cerr << "cudakit profile: CUDAKIT_PROFILE=1"
            << (options.trace.empty() ? "" : " CUDAKIT_PROFILE_TRACE=" + options.trace)
            << "; the table of launches is printed when the program exits\n";
  return exec_command(options.command, "profile");
}

}  // namespace cudakit::cli
