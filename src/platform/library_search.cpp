#include "platform/library_search.hpp"

#ifndef CUDAKIT_CUDA_HOME
#define CUDAKIT_CUDA_HOME ""
#endif

namespace cudakit::detail {
namespace {

// A toolkit's library directory in each place a toolkit is looked for:
// $CUDA_PATH, $CUDA_HOME, the toolkit cudakit was built with, /usr/local/cuda.
void append_toolkit_locations(SearchPlan& plan, const std::vector<std::string>& sonames) {
  for (const char* variable : {"CUDA_PATH", "CUDA_HOME"})
    if (std::string root = environment(variable); !root.empty())
      append_location(plan, root + "/lib64/", sonames);
  if (*CUDAKIT_CUDA_HOME)
    append_location(plan, std::string(CUDAKIT_CUDA_HOME) + "/lib64/", sonames);
  append_location(plan, "/usr/local/cuda/lib64/", sonames);
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

const std::vector<std::string>& cuda_driver_directories() {
  static const std::vector<std::string> directories = {
      "/usr/lib/x86_64-linux-gnu", "/usr/local/nvidia/lib64", "/usr/lib64", "/usr/lib/wsl/lib",
      "/usr/lib/aarch64-linux-gnu"};
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

}  // namespace cudakit::detail
