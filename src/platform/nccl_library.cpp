#include "platform/nccl_library.hpp"

#include <dlfcn.h>

#include <exception>
#include <mutex>
#include <vector>

#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

const char* const kInstallHint =
    "install NCCL (apt: libnccl2, pip: nvidia-nccl-cu13) or set CUDAKIT_NCCL to libnccl.so.2 "
    "or its directory";

}  // namespace

Nccl load_nccl(const SearchPlan& plan) {
  OpenedLibrary lib = open_first(plan, RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    std::string hint = kInstallHint;
    if (plan.explicit_location) hint = "CUDAKIT_NCCL is set but no NCCL loads from it; " + hint;
    throw NcclNotFound("libnccl (NCCL)", lib.tried, hint);
  }
  Nccl table;
  std::string missing;
#define CUDAKIT_LOAD(name)                                                         \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(lib.handle, #name)); \
  if (!table.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  CUDAKIT_LOAD(ncclGetVersion)
  CUDAKIT_LOAD(ncclGetUniqueId)
  CUDAKIT_LOAD(ncclCommInitRank)
  CUDAKIT_LOAD(ncclCommInitAll)
  CUDAKIT_LOAD(ncclCommDestroy)
  CUDAKIT_LOAD(ncclCommAbort)
  CUDAKIT_LOAD(ncclCommGetAsyncError)
  CUDAKIT_LOAD(ncclCommCount)
  CUDAKIT_LOAD(ncclCommCuDevice)
  CUDAKIT_LOAD(ncclCommUserRank)
  CUDAKIT_LOAD(ncclAllReduce)
  CUDAKIT_LOAD(ncclReduce)
  CUDAKIT_LOAD(ncclBroadcast)
  CUDAKIT_LOAD(ncclAllGather)
  CUDAKIT_LOAD(ncclReduceScatter)
  CUDAKIT_LOAD(ncclSend)
  CUDAKIT_LOAD(ncclRecv)
  CUDAKIT_LOAD(ncclGroupStart)
  CUDAKIT_LOAD(ncclGroupEnd)
  CUDAKIT_LOAD(ncclGetErrorString)
  CUDAKIT_LOAD(ncclGetLastError)
#undef CUDAKIT_LOAD
  if (!missing.empty()) {
    std::vector<std::string> tried = lib.tried;
    tried.back() = lib.path + " (loaded, but lacks " + missing + ")";
    throw NcclNotFound(
        "libnccl (NCCL)", tried,
        "this NCCL is too old for cudakit (2.19 or newer is needed); " + std::string(kInstallHint));
  }
  table.ncclGetVersion(&table.version);
  table.path = loaded_path(lib.handle, "ncclGetVersion");
  if (table.path.empty()) table.path = lib.path;
  return table;
}

const Nccl& nccl() {
  static LoadedOnce<Nccl> slot;
  return slot.get([] { return load_nccl(nccl_search_plan()); });
}

std::string nccl_result_name(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "ncclSuccess";
    case ncclUnhandledCudaError:
      return "ncclUnhandledCudaError";
    case ncclSystemError:
      return "ncclSystemError";
    case ncclInternalError:
      return "ncclInternalError";
    case ncclInvalidArgument:
      return "ncclInvalidArgument";
    case ncclInvalidUsage:
      return "ncclInvalidUsage";
    case ncclRemoteError:
      return "ncclRemoteError";
    case ncclInProgress:
      return "ncclInProgress";
    default:
      return "ncclResult_t " + std::to_string(static_cast<int>(result));
  }
}

}  // namespace cudakit::detail
