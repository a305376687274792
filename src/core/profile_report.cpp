// ProfileReport: launches summed up per kernel, the table CUDAKIT_PROFILE=1
// prints, and the Chrome trace.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/launch_profiler.hpp"
#include "cudakit/error.hpp"
#include "cudakit/profiler.hpp"

namespace cudakit {
namespace {

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

namespace detail {

ProfileReport summarize_launches(std::vector<ProfiledLaunch> launches) {
  ProfileReport report;
  std::map<std::string, std::size_t> row_of;
  std::map<std::string, double> timed_with_bytes_ms;
  for (const ProfiledLaunch& l : launches) {
    auto [it, fresh] = row_of.emplace(l.name, report.rows.size());
    if (fresh) {
      ProfileRow row;
      row.name = l.name;
      row.grid = l.grid;
      row.block = l.block;
      row.min_ms = 1e300;
      report.rows.push_back(std::move(row));
    }
    ProfileRow& row = report.rows[it->second];
    ++row.calls;
    if (!(l.grid == row.grid) || !(l.block == row.block)) row.shapes_vary = true;
    if (l.duration_ms >= 0) {
      row.total_ms += l.duration_ms;
      row.min_ms = std::min(row.min_ms, l.duration_ms);
      row.max_ms = std::max(row.max_ms, l.duration_ms);
      if (l.bytes_moved > 0) {
        row.bytes_moved += l.bytes_moved;
        timed_with_bytes_ms[l.name] += l.duration_ms;
      }
    }
  }
  for (ProfileRow& row : report.rows) {
    if (row.min_ms > 1e299) row.min_ms = 0;
    row.mean_ms = row.calls ? row.total_ms / double(row.calls) : 0.0;
    const double ms = timed_with_bytes_ms[row.name];
    if (row.bytes_moved > 0 && ms > 0) row.gb_per_s = double(row.bytes_moved) / (ms * 1e6);
  }
  std::stable_sort(
      report.rows.begin(), report.rows.end(),
      [](const ProfileRow& a, const ProfileRow& b) { return a.total_ms > b.total_ms; });
  report.launches = std::move(launches);
  return report;
}

}  // namespace detail

std::string ProfileReport::to_string() const {
  std::string out;
  char line[512];
  std::snprintf(
      line, sizeof line, "cudakit profile: %zu launch%s of %zu kernel%s (times from events)\n",
      launches.size(), launches.size() == 1 ? "" : "es", rows.size(), rows.size() == 1 ? "" : "s");
  out += line;
  // Array expressions can have long names: the column widens to fit.
  int width = 32;
  for (const ProfileRow& r : rows) width = std::max(width, static_cast<int>(r.name.size()));
  width = std::min(width, 72);
  std::snprintf(line, sizeof line, "%-*s %7s %11s %11s %11s %11s %9s  %s\n", width, "kernel",
                "calls", "total ms", "mean ms", "min ms", "max ms", "GB/s", "launch shape");
  out += line;
  for (const ProfileRow& r : rows) {
    char rate[32] = "-";
    if (r.gb_per_s > 0) std::snprintf(rate, sizeof rate, "%.2f", r.gb_per_s);
    const std::string shape = "grid " + r.grid.to_string() + " block " + r.block.to_string() +
                              (r.shapes_vary ? " + others" : "");
    std::snprintf(line, sizeof line, "%-*s %7ld %11.4f %11.4f %11.4f %11.4f %9s  %s\n", width,
                  r.name.c_str(), r.calls, r.total_ms, r.mean_ms, r.min_ms, r.max_ms, rate,
                  shape.c_str());
    out += line;
  }
  return out;
}

void ProfileReport::write_chrome_trace(const std::string& path) const {
  std::ofstream out(path);
  out << "{\"traceEvents\": [\n";
  bool first = true;
  // Numbers through snprintf, not the stream: iostream number formatting
  // crashed inside the Python extension on a GPU machine (see Scalar).
  for (const ProfiledLaunch& l : launches) {
    char numbers[192];
    std::snprintf(numbers, sizeof numbers, "\"ts\": %.3f, \"dur\": %.3f, \"pid\": %d, \"tid\": %d",
                  l.start_ms * 1000.0, std::max(0.0, l.duration_ms) * 1000.0, l.device, l.stream);
    char bytes[32];
    std::snprintf(bytes, sizeof bytes, "%zu", l.bytes_moved);
    out << (first ? "" : ",\n") << "  {\"name\": \"" << json_escape(l.name)
        << "\", \"cat\": \"kernel\", \"ph\": \"X\", " << numbers << ", \"args\": {\"grid\": \""
        << l.grid.to_string() << "\", \"block\": \"" << l.block.to_string()
        << "\", \"bytes\": " << bytes << "}}";
    first = false;
  }
  out << "\n], \"displayTimeUnit\": \"ms\"}\n";
  if (!out)
    throw ArgumentError("writing the profile's Chrome trace to " + path,
                        "the file cannot be written",
                        "give a path in a directory that exists and is writable");
}

}  // namespace cudakit
