// Reads compute-sanitizer's text output and condenses it to one line per
// problem, kernel and source line: a planted bug in a 4096-thread launch is
// reported thousands of times, and what the user needs is where.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudakit::cli {

struct SanitizerFinding {
  std::string what;          // "Invalid __global__ write of size 4 bytes", "Race reported ..."
  std::string kernel;        // empty when the report names none
  std::string location;      // "file.cu:12", empty without line information
  std::string first_thread;  // "thread (100,0,0) block (0,0,0)" of the first report
  int count = 0;
};

class SanitizerReport {
 public:
  // Feeds one line of output (without its newline).
  void add_line(std::string_view line);
  // Closes the report being read; call once the output has ended.
  void finish();
  const std::vector<SanitizerFinding>& findings() const { return findings_; }
  int total() const;
  // Whether any finding carries a source location (line information was on).
  bool has_locations() const;
  // The summary printed after the run.
  std::string summary(std::string_view tool) const;

 private:
  void close_record();
  std::vector<SanitizerFinding> findings_;
  SanitizerFinding current_;
  bool open_ = false;
};

}  // namespace cudakit::cli
