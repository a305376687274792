#include "platform/library_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>

namespace cudakit::detail {
namespace {

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

void append_location(SearchPlan& plan, const std::string& location,
                     const std::vector<std::string>& sonames) {
  if (location.empty()) return;
  // A path that does not exist yet is still listed as a directory would be,
  // so the error shows what cudakit expected to find there.
  if (is_directory(location) || location.back() == '/') {
    std::string dir = location;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    for (const auto& soname : sonames) plan.candidates.push_back(dir + "/" + soname);
  } else {
    plan.candidates.push_back(location);
  }
}

OpenedLibrary open_first(const SearchPlan& plan, int dlopen_flags) {
  OpenedLibrary result;
  for (const auto& candidate : plan.candidates) {
    ::dlerror();
    void* handle = ::dlopen(candidate.c_str(), dlopen_flags);
    if (handle) {
      result.handle = handle;
      result.path = candidate;
      result.tried.push_back(candidate + " (loaded)");
      return result;
    }
    const char* why = ::dlerror();
    std::string reason = why ? why : "not found";
    // dlerror repeats the path; keep only what follows it.
    if (auto pos = reason.find(": "); pos != std::string::npos && reason.rfind(candidate, 0) == 0)
      reason = reason.substr(pos + 2);
    result.tried.push_back(candidate + " (" + reason + ")");
  }
  return result;
}

std::string directory_of(const std::string& path) {
  auto pos = path.rfind('/');
  return pos == std::string::npos ? std::string() : path.substr(0, pos);
}

std::string loaded_path(void* handle, const char* any_symbol) {
  void* symbol = handle ? ::dlsym(handle, any_symbol) : nullptr;
  Dl_info info{};
  if (symbol && ::dladdr(symbol, &info) != 0 && info.dli_fname) return info.dli_fname;
  return {};
}

}  // namespace cudakit::detail
