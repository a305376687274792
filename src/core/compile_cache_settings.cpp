#include "core/compile_cache_settings.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace cudakit::detail {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<std::size_t> parse_byte_size(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  std::size_t digits = 0;
  bool dot = false;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) ||
                                  (text[digits] == '.' && !dot))) {
    dot = dot || text[digits] == '.';
    ++digits;
  }
  if (digits == 0 || (digits == 1 && dot)) return std::nullopt;
  const std::string number(text.substr(0, digits));
  std::string unit = lower(text.substr(digits));
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  double scale = 1;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib")
    scale = 1024.0;
  else if (unit == "m" || unit == "mb" || unit == "mib")
    scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gb" || unit == "gib")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tb" || unit == "tib")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return std::nullopt;
  const double value = std::strtod(number.c_str(), nullptr) * scale;
  if (!std::isfinite(value) || value < 0 || value > 9.0e18) return std::nullopt;
  return static_cast<std::size_t>(value);
}

CompileCacheSettings compile_cache_settings(const std::function<const char*(const char*)>& getenv) {
  auto get = [&](const char* name) -> std::string_view {
    const char* v = getenv ? getenv(name) : std::getenv(name);
    return v ? std::string_view(v) : std::string_view();
  };
  CompileCacheSettings s;

  const std::string flag = lower(get("CUDAKIT_CACHE"));
  if (flag == "0" || flag == "off" || flag == "false" || flag == "no") {
    s.enabled = false;
  } else if (!flag.empty() && flag != "1" && flag != "on" && flag != "true" && flag != "yes") {
    s.warnings.push_back("CUDAKIT_CACHE='" + flag + "' is not 0/1/on/off; the cache stays on");
  }

  if (auto dir = get("CUDAKIT_CACHE_DIR"); !dir.empty()) {
    s.directory = dir;
  } else if (auto xdg = get("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/') {
    // The XDG spec says relative values are invalid and must be ignored.
    s.directory = std::string(xdg) + "/cudakit";
  } else if (auto home = get("HOME"); !home.empty()) {
    s.directory = std::string(home) + "/.cache/cudakit";
  }

  if (auto max = get("CUDAKIT_CACHE_MAX_BYTES"); !max.empty()) {
    if (auto bytes = parse_byte_size(max)) {
      s.max_bytes = *bytes;
    } else {
      s.warnings.push_back("CUDAKIT_CACHE_MAX_BYTES='" + std::string(max) +
                           "' is not a size (e.g. 1073741824, 512M, 2G); using 1 GiB");
    }
  }
  return s;
}

}  // namespace cudakit::detail
