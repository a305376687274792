#include "platform/library_search.hpp"

#include <filesystem>
#include <string_view>
#include <system_error>

#ifndef CUDAKIT_CUDA_HOME
#define CUDAKIT_CUDA_HOME ""
#endif

namespace cudakit::detail {
namespace {

#if defined(__aarch64__)
constexpr const char* kTargetLibraryDir = "targets/sbsa-linux/lib";
#else
constexpr const char* kTargetLibraryDir = "targets/x86_64-linux/lib";
#endif

// The nvcc a shell would run, or empty.
std::filesystem::path nvcc_on_path() {
  std::string_view rest;
  const std::string path = environment("PATH");
  rest = path;
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view entry = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    if (entry.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(std::string(entry)) / "nvcc";
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

// A toolkit's library directories in each place a toolkit is looked for,
// then the dynamic loader's path.
void append_toolkit_locations(SearchPlan& plan, const std::vector<std::string>& sonames) {
  for (const std::string& dir : cuda_toolkit_library_directories())
    append_location(plan, dir + "/", sonames);
  for (const auto& soname : sonames) plan.candidates.push_back(soname);
}

// The plan of an explicitly named location, or an empty plan when the
// variable is unset.
bool explicit_plan(SearchPlan& plan, const char* variable,
                   const std::vector<std::string>& sonames) {
  std::string location = environment(variable);
  if (location.empty()) return false;
  append_location(plan, location, sonames);
  plan.explicit_location = true;
  return true;
}

}  // namespace

const std::vector<std::string>& cuda_driver_sonames() {
  static const std::vector<std::string> sonames = {"libcuda.so.1", "libcuda.so"};
  return sonames;
}

const std::vector<std::string>& nvrtc_sonames() {
  static const std::vector<std::string> sonames = {"libnvrtc.so.13", "libnvrtc.so.12",
                                                   "libnvrtc.so.11.2", "libnvrtc.so"};
  return sonames;
}

const std::vector<std::string>& cublas_sonames() {
  static const std::vector<std::string> sonames = {"libcublas.so.13", "libcublas.so.12",
                                                   "libcublas.so"};
  return sonames;
}

const std::vector<std::string>& nccl_sonames() {
  static const std::vector<std::string> sonames = {"libnccl.so.2", "libnccl.so"};
  return sonames;
}

const std::vector<std::string>& cuda_driver_directories() {
  // This machine's own multiarch directory only: a message listing the
  // places searched names no other architecture's.
  static const std::vector<std::string> directories = {
#if defined(__aarch64__)
    "/usr/lib/aarch64-linux-gnu",
#else
    "/usr/lib/x86_64-linux-gnu",
#endif
    "/usr/local/nvidia/lib64",
    "/usr/lib64",
    "/usr/lib/wsl/lib"
  };
  return directories;
}

SearchPlan cuda_driver_search_plan() {
  SearchPlan plan;
  if (explicit_plan(plan, kLibcudaLocationVariable, cuda_driver_sonames())) return plan;
  plan.candidates.push_back("libcuda.so.1");
  for (const auto& dir : cuda_driver_directories())
    plan.candidates.push_back(dir + "/libcuda.so.1");
  return plan;
}

const std::vector<std::string>& curand_sonames() {
  static const std::vector<std::string> sonames = {"libcurand.so.10", "libcurand.so"};
  return sonames;
}

std::vector<std::string> cuda_toolkit_roots() {
  std::vector<std::string> roots;
  auto add = [&roots](std::string root) {
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (root.empty()) return;
    for (const auto& kept : roots)
      if (kept == root) return;
    roots.push_back(std::move(root));
  };
  for (const char* variable : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"}) add(environment(variable));
  if (const std::filesystem::path nvcc = nvcc_on_path(); !nvcc.empty()) {
    add(nvcc.parent_path().parent_path().string());
    std::error_code ec;  // /usr/bin/nvcc may be a link into the toolkit
    const std::filesystem::path real = std::filesystem::canonical(nvcc, ec);
    if (!ec) add(real.parent_path().parent_path().string());
  }
  add(CUDAKIT_CUDA_HOME);
  add("/usr/local/cuda");
  return roots;
}

std::vector<std::string> cuda_toolkit_library_directories() {
  std::vector<std::string> dirs;
  for (const std::string& root : cuda_toolkit_roots())
    for (const char* sub : {"lib64", "lib", kTargetLibraryDir}) dirs.push_back(root + "/" + sub);
  return dirs;
}

SearchPlan nvrtc_search_plan() {
  SearchPlan plan;
  if (explicit_plan(plan, kNvrtcLocationVariable, nvrtc_sonames())) return plan;
  append_toolkit_locations(plan, nvrtc_sonames());
  return plan;
}

SearchPlan cublas_search_plan() {
  SearchPlan plan;
  if (explicit_plan(plan, kCublasLocationVariable, cublas_sonames())) return plan;
  append_toolkit_locations(plan, cublas_sonames());
  return plan;
}

const std::vector<std::string>& nvjitlink_sonames() {
  static const std::vector<std::string> sonames = {"libnvJitLink.so.13", "libnvJitLink.so.12",
                                                   "libnvJitLink.so"};
  return sonames;
}

SearchPlan nvjitlink_search_plan() {
  SearchPlan plan;
  if (explicit_plan(plan, kNvJitLinkLocationVariable, nvjitlink_sonames())) return plan;
  append_toolkit_locations(plan, nvjitlink_sonames());
  return plan;
}

SearchPlan curand_search_plan() {
  SearchPlan plan;
  if (explicit_plan(plan, kCurandLocationVariable, curand_sonames())) return plan;
  append_toolkit_locations(plan, curand_sonames());
  return plan;
}

SearchPlan nccl_search_plan() {
  SearchPlan plan;
  if (explicit_plan(plan, kNcclLocationVariable, nccl_sonames())) return plan;
  append_toolkit_locations(plan, nccl_sonames());
  return plan;
}

}  // namespace cudakit::detail
