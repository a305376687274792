#include "platform/curand_library.hpp"

#include <dlfcn.h>

#include <exception>
#include <mutex>

#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

const char* const kInstallHint =
    "install the CUDA toolkit's cuRAND (apt: libcurand-13-0, pip: nvidia-curand) or set "
    "CUDAKIT_CURAND to libcurand.so or its directory";

}  // namespace

Curand load_curand(const SearchPlan& plan) {
  OpenedLibrary lib = open_first(plan, RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    std::string hint = kInstallHint;
    if (plan.explicit_location) hint = "CUDAKIT_CURAND is set but no cuRAND loads from it; " + hint;
    throw LibraryNotFound("libcurand (cuRAND)", lib.tried, hint);
  }
  Curand table;
  std::string missing;
#define CUDAKIT_LOAD(name)                                                         \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(lib.handle, #name)); \
  if (!table.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  CUDAKIT_LOAD(curandGetVersion)
  CUDAKIT_LOAD(curandGetDirectionVectors32)
  CUDAKIT_LOAD(curandGetDirectionVectors64)
  CUDAKIT_LOAD(curandGetScrambleConstants32)
  CUDAKIT_LOAD(curandGetScrambleConstants64)
#undef CUDAKIT_LOAD
  if (!missing.empty()) {
    std::vector<std::string> tried = lib.tried;
    tried.back() = lib.path + " (loaded, but lacks " + missing + ")";
    throw LibraryNotFound("libcurand (cuRAND)", tried,
                          "this cuRAND is too old for cudakit; " + std::string(kInstallHint));
  }
  table.path = loaded_path(lib.handle, "curandGetVersion");
  if (table.path.empty()) table.path = lib.path;
  return table;
}

const Curand& curand_library() {
  static LoadedOnce<Curand> slot;
  return slot.get([] { return load_curand(curand_search_plan()); });
}

}  // namespace cudakit::detail
