#include "platform/cublas_library.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <exception>
#include <mutex>

#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

const char* const kInstallHint =
    "install the CUDA toolkit's cuBLAS (apt: libcublas-13-0, pip: nvidia-cublas) or set "
    "CUDAKIT_CUBLAS to libcublas.so or its directory";

}  // namespace

Cublas load_cublas(const SearchPlan& plan) {
  // libcublas needs libcublasLt of the same version: load it from the same
  // directory first, globally, so the dependency resolves to that copy.
  SearchPlan with_lt;
  with_lt.explicit_location = plan.explicit_location;
  for (const auto& candidate : plan.candidates) {
    if (std::string dir = directory_of(candidate); !dir.empty()) {
      std::string name = candidate.substr(dir.size() + 1);
      std::string lt =
          dir + "/" + std::string("libcublasLt") + name.substr(std::string("libcublas").size());
      if (::access(candidate.c_str(), F_OK) == 0) ::dlopen(lt.c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
    with_lt.candidates.push_back(candidate);
  }
  OpenedLibrary lib = open_first(with_lt, RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    std::string hint = kInstallHint;
    if (plan.explicit_location) hint = "CUDAKIT_CUBLAS is set but no cuBLAS loads from it; " + hint;
    throw CublasNotFound("libcublas (cuBLAS)", lib.tried, hint);
  }
  Cublas table;
  std::string missing;
#define CUDAKIT_LOAD(name)                                                         \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(lib.handle, #name)); \
  if (!table.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  CUDAKIT_LOAD(cublasCreate_v2)
  CUDAKIT_LOAD(cublasDestroy_v2)
  CUDAKIT_LOAD(cublasGetVersion_v2)
  CUDAKIT_LOAD(cublasSetStream_v2)
  CUDAKIT_LOAD(cublasSetMathMode)
  CUDAKIT_LOAD(cublasGemmEx)
  CUDAKIT_LOAD(cublasGemmStridedBatchedEx)
#undef CUDAKIT_LOAD
  if (!missing.empty()) {
    std::vector<std::string> tried = lib.tried;
    tried.back() = lib.path + " (loaded, but lacks " + missing + ")";
    throw CublasNotFound("libcublas (cuBLAS)", tried,
                         "this cuBLAS is too old for cudakit; " + std::string(kInstallHint));
  }
  table.path = loaded_path(lib.handle, "cublasCreate_v2");
  if (table.path.empty()) table.path = lib.path;
  return table;
}

const Cublas& cublas() {
  static LoadedOnce<Cublas> slot;
  return slot.get([] { return load_cublas(cublas_search_plan()); });
}

std::string cublas_status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "CUBLAS_STATUS_LICENSE_ERROR";
    default:
      return "cublasStatus_t " + std::to_string(static_cast<int>(status));
  }
}

}  // namespace cudakit::detail
