#include "platform/nvjitlink_library.hpp"

#include <dlfcn.h>

#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

const char* const kInstallHint =
    "LTO-IR is linked by nvJitLink: install the CUDA toolkit's nvJitLink (apt: "
    "libnvjitlink-13-0, pip: nvidia-nvjitlink) or set CUDAKIT_NVJITLINK to libnvJitLink.so or "
    "its directory; or link PTX or cubins instead of LTO-IR";

}  // namespace

NvJitLink load_nvjitlink(const SearchPlan& plan) {
  OpenedLibrary lib = open_first(plan, RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    std::string hint = kInstallHint;
    if (plan.explicit_location)
      hint = "CUDAKIT_NVJITLINK is set but no nvJitLink loads from it; " + hint;
    throw LibraryNotFound("libnvJitLink (nvJitLink)", lib.tried, hint);
  }
  NvJitLink table;
  std::string missing;
#define CUDAKIT_LOAD(name)                                                         \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(lib.handle, #name)); \
  if (!table.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  CUDAKIT_LOAD(nvJitLinkCreate)
  CUDAKIT_LOAD(nvJitLinkDestroy)
  CUDAKIT_LOAD(nvJitLinkAddData)
  CUDAKIT_LOAD(nvJitLinkAddFile)
  CUDAKIT_LOAD(nvJitLinkComplete)
  CUDAKIT_LOAD(nvJitLinkGetLinkedCubinSize)
  CUDAKIT_LOAD(nvJitLinkGetLinkedCubin)
  CUDAKIT_LOAD(nvJitLinkGetErrorLogSize)
  CUDAKIT_LOAD(nvJitLinkGetErrorLog)
  CUDAKIT_LOAD(nvJitLinkGetInfoLogSize)
  CUDAKIT_LOAD(nvJitLinkGetInfoLog)
#undef CUDAKIT_LOAD
  if (!missing.empty()) {
    std::vector<std::string> tried = lib.tried;
    tried.back() = lib.path + " (loaded, but lacks " + missing + ")";
    throw LibraryNotFound("libnvJitLink (nvJitLink)", tried,
                          "this nvJitLink is too old for cudakit; " + std::string(kInstallHint));
  }
  table.path = loaded_path(lib.handle, "nvJitLinkCreate");
  if (table.path.empty()) table.path = lib.path;
  return table;
}

const NvJitLink& nvjitlink_library() {
  static LoadedOnce<NvJitLink> slot;
  return slot.get([] { return load_nvjitlink(nvjitlink_search_plan()); });
}

}  // namespace cudakit::detail
