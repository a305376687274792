// Small helpers shared by the CLI's commands: timing statistics, random
// inputs and plain-text tables.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace cudakit::cli {

inline double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

// Wall-clock milliseconds since construction.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Fresh random inputs each run (never zeros: a kernel that writes nothing
// must not pass a check by accident).
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> out(n);
  for (auto& v : out) v = std::bernoulli_distribution(0.5)(gen) ? dist(gen) : -dist(gen);
  return out;
}

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> dist(1, 255);
  std::vector<std::uint8_t> out(n);
  for (auto& v : out) v = static_cast<std::uint8_t>(dist(gen));
  return out;
}

inline std::uint64_t fresh_seed() { return std::random_device{}(); }

inline std::string fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

// Milliseconds with a precision that suits their size.
inline std::string format_ms(double ms) {
  if (ms <= 0) return "-";
  return fixed(ms, ms < 1 ? 4 : ms < 100 ? 3 : 1);
}

inline std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return fixed(v, u == 0 ? 0 : 1) + " " + units[u];
}

// A table printed with aligned columns and a header rule.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const {
    std::vector<std::size_t> width;
    for (const auto& row : rows_)
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (width.size() <= c) width.push_back(0);
        width[c] = std::max(width[c], row[c].size());
      }
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      out << "|";
      for (std::size_t c = 0; c < width.size(); ++c) {
        std::string cell = c < rows_[r].size() ? rows_[r][c] : "";
        out << ' ' << cell << std::string(width[c] - cell.size(), ' ') << " |";
      }
      out << '\n';
      if (r == 0) {
        out << "|";
        for (auto w : width) out << std::string(w + 2, '-') << "|";
        out << '\n';
      }
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace cudakit::cli
