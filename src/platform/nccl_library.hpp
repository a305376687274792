// NCCL (libnccl), loaded with dlopen on first use, for Communicator's
// collectives on the CUDA backend. nccl.h is included for its types only.
#pragma once

#include <nccl.h>

#include <string>

#include "platform/library_loader.hpp"
#include "platform/library_search.hpp"

namespace cudakit::detail {

struct Nccl {
  ncclResult_t (*ncclGetVersion)(int*) = nullptr;
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*ncclCommInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*ncclCommInitAll)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*ncclCommDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*ncclCommAbort)(ncclComm_t) = nullptr;
  ncclResult_t (*ncclCommGetAsyncError)(ncclComm_t, ncclResult_t*) = nullptr;
  ncclResult_t (*ncclCommCount)(const ncclComm_t, int*) = nullptr;
  ncclResult_t (*ncclCommCuDevice)(const ncclComm_t, int*) = nullptr;
  ncclResult_t (*ncclCommUserRank)(const ncclComm_t, int*) = nullptr;
  ncclResult_t (*ncclAllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                cudaStream_t) = nullptr;
  ncclResult_t (*ncclReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int,
                             ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*ncclBroadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                                cudaStream_t) = nullptr;
  ncclResult_t (*ncclAllGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                                cudaStream_t) = nullptr;
  ncclResult_t (*ncclReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                    ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*ncclSend)(const void*, size_t, ncclDataType_t, int, ncclComm_t,
                           cudaStream_t) = nullptr;
  ncclResult_t (*ncclRecv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*ncclGroupStart)() = nullptr;
  ncclResult_t (*ncclGroupEnd)() = nullptr;
  const char* (*ncclGetErrorString)(ncclResult_t) = nullptr;
  const char* (*ncclGetLastError)(ncclComm_t) = nullptr;
  std::string path;  // the file libnccl was loaded from
  int version = 0;   // ncclGetVersion: 22803 = 2.28.3
};

// Throws NcclNotFound listing every path tried.
Nccl load_nccl(const SearchPlan& plan);
// The process-wide instance, loaded once (thread-safe); throws NcclNotFound.
const Nccl& nccl();

// "ncclInvalidArgument" for a status.
std::string nccl_result_name(ncclResult_t result);

}  // namespace cudakit::detail
