// Finding programs and runtime libraries for the commands that start other
// programs (`cudakit run`, `cudakit check`).
#pragma once

#include <string>
#include <vector>

namespace cudakit::cli {

// The first executable `name` in the directories of PATH; empty if none.
std::string find_in_path(const std::string& name);

// An executable file at `path`.
bool is_executable(const std::string& path);

// The host compiler's AddressSanitizer runtime (`c++ -print-file-name=
// libasan.so`, honouring CUDAKIT_CXX and CXX as the CPU backend does); empty
// when the compiler has none.
std::string asan_runtime();

// The host compiler's C++ runtime (`c++ -print-file-name=libstdc++.so`),
// preloaded with the sanitizer runtime into a program that does not link it
// (Python): AddressSanitizer finds the __cxa_throw it intercepts only in a
// library loaded before it starts, and without it the first C++ exception
// aborts the process. Empty when the compiler has none (e.g. libc++).
std::string cxx_runtime();

// Replaces this process with `command` (PATH searched); returns only on
// failure, with the exit status to use after saying why.
int exec_command(const std::vector<std::string>& command, const char* who);

}  // namespace cudakit::cli
