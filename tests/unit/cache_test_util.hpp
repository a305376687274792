// Shared helpers of the compile-cache tests: a scratch directory and random
// CompiledCode values.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "cudakit/compiled_code.hpp"

namespace cudakit::test {

// A fresh directory under the system temp dir, removed with its content.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("cudakit-cache-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string random_text(std::mt19937_64& rng, std::size_t size) {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 ._;{}()\n";
  std::string s(size, ' ');
  for (auto& c : s) c = alphabet[rng() % (sizeof alphabet - 1)];
  return s;
}

// A CompiledCode with every field filled from `seed`: the same seed gives the
// same value (so separate processes can agree on what a key must hold).
inline CompiledCode random_code(std::uint64_t seed, std::size_t image_bytes = 0) {
  std::mt19937_64 rng(seed);
  CompiledCode code;
  code.format = static_cast<CodeFormat>(rng() % 4);
  if (image_bytes == 0) image_bytes = 1000 + rng() % 5000;
  code.image.resize(image_bytes);
  for (auto& b : code.image) b = static_cast<std::uint8_t>(rng());
  code.ptx = random_text(rng, 200 + rng() % 700);
  code.log = random_text(rng, rng() % 100);
  code.arch = "sm_" + std::to_string(50 + rng() % 50);
  const std::size_t names = rng() % 4;
  for (std::size_t i = 0; i < names; ++i)
    code.lowered_names.emplace_back("k<" + random_text(rng, 5) + ">", "_Z" + random_text(rng, 12));
  return code;
}

inline bool same_code(const CompiledCode& a, const CompiledCode& b) {
  return a.format == b.format && a.image == b.image && a.ptx == b.ptx && a.log == b.log &&
         a.arch == b.arch && a.lowered_names == b.lowered_names;
}

}  // namespace cudakit::test
