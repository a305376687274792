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

DriverProbe probe_driver() {
  DriverProbe p;
  for (const char* name : {"libcuda.so.1", "libcuda.so"}) {
    p.searched.emplace_back(name);
    void* handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      const char* err = dlerror();
      if (p.load_error.empty() && err) p.load_error = err;
      continue;
    }
    p.loaded = true;
    p.load_error.clear();
    p.path = loaded_path(handle, name);
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
    // The handle stays open: the backend uses the same library.
    break;
  }
  std::set<std::string> copies;
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
                          "/usr/lib/wsl/lib", "/usr/lib/aarch64-linux-gnu"}) {
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

NvrtcProbe probe_nvrtc() {
  NvrtcProbe p;
  std::vector<std::string> candidates;
  if (auto explicit_path = env("CUDAKIT_NVRTC"); !explicit_path.empty())
    candidates.push_back(explicit_path);
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"}) {
    auto root = env(var);
    if (root.empty()) continue;
    for (const char* lib : {"lib64", "lib"}) {
      for (const char* so : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"})
        candidates.push_back((fs::path(root) / lib / so).string());
    }
  }
  for (const char* so : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"})
    candidates.push_back((fs::path("/usr/local/cuda/lib64") / so).string());
  for (const char* so : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    candidates.emplace_back(so);

  for (const auto& candidate : candidates) {
    if (candidate.find('/') != std::string::npos && !fs::exists(candidate)) {
      p.searched.push_back(candidate + " (absent)");
      continue;
    }
    p.searched.push_back(candidate);
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      const char* err = dlerror();
      if (err) p.load_error = err;
      continue;
    }
    p.loaded = true;
    p.load_error.clear();
    p.path = loaded_path(handle, candidate);
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
    break;
  }
  return p;
}

}  // namespace cudakit::cli
