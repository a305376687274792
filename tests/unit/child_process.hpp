// Tests that run a program (the CLI, or this test binary again as a child
// with other settings) and read what it printed.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace test {

struct ProcessResult {
  int exit_code = -1;  // -1 when the program did not exit normally
  std::string output;  // what the command wrote to its stdout
};

// Runs `command` through the shell and returns its output and exit code.
inline ProcessResult run_process(const std::string& command) {
  ProcessResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The path of the running test binary (to start it again as a child).
inline std::string self_path() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace test
