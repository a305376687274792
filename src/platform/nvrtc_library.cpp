#include "platform/nvrtc_library.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <exception>
#include <filesystem>
#include <mutex>

#include "cudakit/error.hpp"

#ifndef CUDAKIT_CUDA_HOME
#define CUDAKIT_CUDA_HOME ""
#endif

namespace cudakit::detail {
namespace {

const char* const kInstallHint =
    "install the CUDA toolkit's NVRTC (apt: cuda-nvrtc-13-0, pip: nvidia-cuda-nvrtc) or set "
    "CUDAKIT_NVRTC to libnvrtc.so or its directory";

bool file_exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

// The toolkit layout is <root>/lib64/libnvrtc.so and <root>/include; pip
// wheels put headers in <root>/include beside <root>/lib.
std::string find_include_dir(const std::string& library_path) {
  std::vector<std::string> roots;
  if (std::string dir = directory_of(library_path); !dir.empty()) roots.push_back(dir + "/..");
  for (const char* env : {"CUDA_PATH", "CUDA_HOME"})
    if (std::string value = environment(env); !value.empty()) roots.push_back(value);
  if (*CUDAKIT_CUDA_HOME) roots.push_back(CUDAKIT_CUDA_HOME);
  roots.push_back("/usr/local/cuda");
  for (const auto& root : roots) {
    if (!file_exists(root + "/include/cuda_fp16.h")) continue;
    // Without the "lib64/.." detour, as the file system resolves it: the
    // path is shown in compile errors (the directories searched).
    std::error_code ignored;
    std::filesystem::path resolved = std::filesystem::canonical(root + "/include", ignored);
    return resolved.empty() ? root + "/include" : resolved.string();
  }
  return {};
}

}  // namespace

Nvrtc load_nvrtc(const SearchPlan& plan) {
  OpenedLibrary lib = open_first(plan, RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    std::string hint = kInstallHint;
    if (plan.explicit_location)
      hint =
          "CUDAKIT_NVRTC is set but no NVRTC loads from it: point it at libnvrtc.so.13 or "
          "its directory, or unset it to search the usual places; " +
          hint;
    throw NvrtcNotFound("libnvrtc (the CUDA run-time compiler)", lib.tried, hint);
  }
  Nvrtc table;
  std::string missing;
#define CUDAKIT_LOAD(name)                                                         \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(lib.handle, #name)); \
  if (!table.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  CUDAKIT_NVRTC_FUNCTIONS(CUDAKIT_LOAD)
#undef CUDAKIT_LOAD
  if (!missing.empty()) {
    std::vector<std::string> tried = lib.tried;
    tried.back() = lib.path + " (loaded, but lacks " + missing + ")";
    throw NvrtcNotFound("libnvrtc (the CUDA run-time compiler)", tried,
                        "this NVRTC is too old for cudakit (it needs CUDA 11.2 or newer); " +
                            std::string(kInstallHint));
  }
  table.nvrtcGetLTOIRSize =
      reinterpret_cast<decltype(table.nvrtcGetLTOIRSize)>(::dlsym(lib.handle, "nvrtcGetLTOIRSize"));
  table.nvrtcGetLTOIR =
      reinterpret_cast<decltype(table.nvrtcGetLTOIR)>(::dlsym(lib.handle, "nvrtcGetLTOIR"));
  if (!table.nvrtcGetLTOIR) table.nvrtcGetLTOIRSize = nullptr;
  table.path = loaded_path(lib.handle, "nvrtcVersion");
  if (table.path.empty()) table.path = lib.path;

  // Builtins of the same version, from the same directory, before the first
  // compile; NVRTC would otherwise resolve them through the loader's path.
  if (std::string dir = directory_of(table.path); !dir.empty()) {
    for (const char* builtins : {"libnvrtc-builtins.so", "libnvrtc-builtins.so.13.0"}) {
      if (::dlopen((dir + "/" + builtins).c_str(), RTLD_NOW | RTLD_GLOBAL)) break;
    }
  }

  table.nvrtcVersion(&table.major, &table.minor);
  int count = 0;
  if (table.nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    table.archs.resize(static_cast<std::size_t>(count));
    if (table.nvrtcGetSupportedArchs(table.archs.data()) != NVRTC_SUCCESS) table.archs.clear();
  }
  table.include_dir = find_include_dir(table.path);
  return table;
}

const Nvrtc& nvrtc() {
  static LoadedOnce<Nvrtc> slot;
  return slot.get([] { return load_nvrtc(nvrtc_search_plan()); });
}

std::string nvrtc_error_name(nvrtcResult result) {
  switch (result) {
    case NVRTC_SUCCESS:
      return "NVRTC_SUCCESS";
    case NVRTC_ERROR_OUT_OF_MEMORY:
      return "NVRTC_ERROR_OUT_OF_MEMORY";
    case NVRTC_ERROR_PROGRAM_CREATION_FAILURE:
      return "NVRTC_ERROR_PROGRAM_CREATION_FAILURE";
    case NVRTC_ERROR_INVALID_INPUT:
      return "NVRTC_ERROR_INVALID_INPUT";
    case NVRTC_ERROR_INVALID_PROGRAM:
      return "NVRTC_ERROR_INVALID_PROGRAM";
    case NVRTC_ERROR_INVALID_OPTION:
      return "NVRTC_ERROR_INVALID_OPTION";
    case NVRTC_ERROR_COMPILATION:
      return "NVRTC_ERROR_COMPILATION";
    case NVRTC_ERROR_BUILTIN_OPERATION_FAILURE:
      return "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE";
    case NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION:
      return "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION";
    case NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:
      return "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION";
    case NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID:
      return "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID";
    case NVRTC_ERROR_INTERNAL_ERROR:
      return "NVRTC_ERROR_INTERNAL_ERROR";
    default:
      return "nvrtcResult " + std::to_string(static_cast<int>(result));
  }
}

}  // namespace cudakit::detail
