#include "debug/sanitizer_report.hpp"

#include <regex>
#include <sstream>

namespace cudakit::cli {
namespace {

constexpr std::string_view kPrefix = "=========";

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

// Lines of the tool's own framing, not a problem report.
bool is_framing(std::string_view text) {
  for (std::string_view start :
       {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
        "Target application returned", "Saved host", "Host Frame", "Device Frame"})
    if (text.starts_with(start)) return true;
  return text.empty();
}

// "at fill_ones(float *, int)+0x90 in /src/missing_check.cu:3" (current
// tools) or "at 0x90 in /src/missing_check.cu:3:fill_ones" (older ones).
bool find_location(const std::string& text, std::string& kernel, std::string& location) {
  static const std::regex current(R"(at (.+?)\+0x[0-9a-fA-F]+ in (.+?):(\d+))");
  static const std::regex older(R"(at 0x[0-9a-fA-F]+ in (.+?):(\d+):([^\s]+))");
  auto base = [](const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  auto function_name = [](std::string f) {
    if (auto paren = f.find('('); paren != std::string::npos) f.erase(paren);
    return f;
  };
  std::smatch m;
  if (std::regex_search(text, m, older)) {
    kernel = function_name(m[3].str());
    location = base(m[1].str()) + ":" + m[2].str();
    return true;
  }
  if (std::regex_search(text, m, current)) {
    kernel = function_name(m[1].str());
    location = base(m[2].str()) + ":" + m[3].str();
    return true;
  }
  static const std::regex no_line(R"(at (.+?)\+0x[0-9a-fA-F]+)");
  if (std::regex_search(text, m, no_line)) {
    kernel = function_name(m[1].str());
    return true;
  }
  return false;
}

}  // namespace

void SanitizerReport::add_line(std::string_view line) {
  if (!line.starts_with(kPrefix)) return;  // the program's own output
  std::string_view rest = line.substr(kPrefix.size());
  const bool indented = rest.starts_with("  ");
  std::string text = trim(rest);
  if (!indented) {
    close_record();
    if (is_framing(text)) return;
    current_ = SanitizerFinding{};
    current_.what = text;
    // Racecheck names the first access on the heading itself.
    if (auto between = text.find(" at ");
        between != std::string::npos && text.starts_with("Error: Race reported between")) {
      find_location(text, current_.kernel, current_.location);
      current_.what = text.substr(0, between);
    }
    open_ = true;
    return;
  }
  if (!open_) return;
  // Racecheck names the other access on the next line ("and Read access at
  // reverse_block+0xa0 in /src/race.cu:5 [1016 hazards]"): both lines of
  // the race belong in the summary.
  if (text.starts_with("and ") &&
      current_.what.find("Race reported between") != std::string::npos) {
    std::string other_kernel, other_location;
    if (auto at = text.find(" at "); at != std::string::npos &&
                                     find_location(text, other_kernel, other_location) &&
                                     !other_location.empty())
      current_.what += " " + text.substr(0, at) + " at " + other_location;
    return;
  }
  if (current_.location.empty() && current_.kernel.empty() && text.starts_with("at "))
    find_location(text, current_.kernel, current_.location);
  static const std::regex thread(R"(by thread \(([^)]*)\) in block \(([^)]*)\))");
  std::smatch m;
  if (current_.first_thread.empty() && std::regex_search(text, m, thread))
    current_.first_thread = "thread (" + m[1].str() + ") block (" + m[2].str() + ")";
}

void SanitizerReport::finish() { close_record(); }

void SanitizerReport::close_record() {
  if (!open_) return;
  open_ = false;
  for (auto& f : findings_)
    if (f.what == current_.what && f.kernel == current_.kernel && f.location == current_.location) {
      ++f.count;
      return;
    }
  current_.count = 1;
  findings_.push_back(current_);
}

int SanitizerReport::total() const {
  int n = 0;
  for (const auto& f : findings_) n += f.count;
  return n;
}

bool SanitizerReport::has_locations() const {
  for (const auto& f : findings_)
    if (!f.location.empty()) return true;
  return false;
}

std::string SanitizerReport::summary(std::string_view tool) const {
  std::ostringstream out;
  if (findings_.empty()) {
    out << "cudakit check (" << tool << "): no problems found\n";
    return out.str();
  }
  out << "cudakit check (" << tool << "): " << total() << " report" << (total() == 1 ? "" : "s")
      << " at " << findings_.size() << " place" << (findings_.size() == 1 ? "" : "s") << "\n";
  for (const auto& f : findings_) {
    out << "  " << (f.location.empty() ? "(no line)" : f.location) << "  "
        << (f.kernel.empty() ? "(host)" : f.kernel) << ": " << f.what;
    if (f.count > 1) out << "  x" << f.count;
    if (!f.first_thread.empty()) out << "  (first: " << f.first_thread << ")";
    out << "\n";
  }
  if (!has_locations())
    out << "  no source lines: kernels compiled outside cudakit need -lineinfo\n";
  return out.str();
}

}  // namespace cudakit::cli
