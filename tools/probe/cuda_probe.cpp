#include "probe/cuda_probe.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

namespace cudakit::cli {
namespace {

namespace fs = std::filesystem;

std::string loaded_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) {
    std::error_code ec;
    fs::path resolved = fs::canonical(map->l_name, ec);
    return ec ? std::string(map->l_name) : resolved.string();
  }
  return fallback;
}

template <class F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

// "path (reason)" of the last candidate that failed to open.
std::string last_failure(const detail::OpenedLibrary& lib) {
  return lib.tried.empty() ? std::string("nothing to try") : lib.tried.back();
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

std::string format_cuda_version(int version) {
  std::ostringstream out;
  out << version / 1000 << '.' << (version % 1000) / 10;
  return out.str();
}

std::string format_archs(const std::vector<int>& archs) {
  std::string out;
  for (int a : archs) {
    if (!out.empty()) out += ' ';
    out += "sm_" + std::to_string(a);
  }
  return out;
}

bool looks_like_toolkit(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / "include" / "cuda.h", ec) ||
         fs::exists(fs::path(dir) / "bin" / "nvcc", ec);
}

std::string find_on_path(const std::string& program) {
  std::string path = env("PATH");
  std::stringstream parts(path);
  std::string dir;
  while (std::getline(parts, dir, ':')) {
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

DriverProbe probe_driver(const detail::SearchPlan& plan) {
  DriverProbe p;
  p.explicit_location = plan.explicit_location;
  p.searched = plan.candidates;
  // RTLD_GLOBAL: the handle stays open and the backend uses the same library.
  detail::OpenedLibrary lib = detail::open_first(plan, RTLD_NOW | RTLD_GLOBAL);
  if (!lib.handle) {
    p.load_error = last_failure(lib);
  } else {
    void* handle = lib.handle;
    p.loaded = true;
    p.path = loaded_path(handle, lib.path);
    using VersionFn = int (*)(int*);
    using InitFn = int (*)(unsigned);
    using ErrorFn = int (*)(int, const char**);
    if (auto get_version = symbol<VersionFn>(handle, "cuDriverGetVersion")) get_version(&p.version);
    if (auto init = symbol<InitFn>(handle, "cuInit")) {
      p.init_status = init(0);
      if (p.init_status != 0) {
        const char* text = nullptr;
        if (auto name_fn = symbol<ErrorFn>(handle, "cuGetErrorName");
            name_fn && name_fn(p.init_status, &text) == 0 && text)
          p.init_status_name = text;
        text = nullptr;
        if (auto str_fn = symbol<ErrorFn>(handle, "cuGetErrorString");
            str_fn && str_fn(p.init_status, &text) == 0 && text)
          p.init_status_text = text;
      }
    }
  }
  std::set<std::string> copies;
  for (const auto& dir : detail::cuda_driver_directories()) {
    std::error_code ec;
    fs::path candidate = fs::path(dir) / "libcuda.so.1";
    if (fs::exists(candidate, ec)) {
      fs::path real = fs::canonical(candidate, ec);
      copies.insert(ec ? candidate.string() : real.string());
    }
  }
  p.installed_copies.assign(copies.begin(), copies.end());
  return p;
}

NvrtcProbe probe_nvrtc(const detail::SearchPlan& plan) {
  NvrtcProbe p;
  p.explicit_location = plan.explicit_location;
  p.searched = plan.candidates;
  detail::OpenedLibrary lib = detail::open_first(plan, RTLD_NOW | RTLD_GLOBAL);
  if (!lib.handle) {
    p.load_error = last_failure(lib);
    return p;
  }
  void* handle = lib.handle;
  p.loaded = true;
  p.path = loaded_path(handle, lib.path);
  using VersionFn = int (*)(int*, int*);
  using CountFn = int (*)(int*);
  using ArchsFn = int (*)(int*);
  if (auto version = symbol<VersionFn>(handle, "nvrtcVersion")) version(&p.major, &p.minor);
  auto count_fn = symbol<CountFn>(handle, "nvrtcGetNumSupportedArchs");
  auto archs_fn = symbol<ArchsFn>(handle, "nvrtcGetSupportedArchs");
  int count = 0;
  if (count_fn && archs_fn && count_fn(&count) == 0 && count > 0) {
    p.archs.resize(std::size_t(count));
    if (archs_fn(p.archs.data()) != 0) p.archs.clear();
  }
  return p;
}

}  // namespace cudakit::cli
