// The collectives part of the backend seam: communicators across ranks
// (one device each) and the operations queued on a rank's stream. The CUDA
// backend implements it over NCCL; the CPU backend over its virtual devices
// in one process and TCP between processes. The core's Communicator
// (src/distributed/) has checked every request before it gets here: counts,
// dtypes, ops, roots and peers in range, buffers on the rank's device.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/reduce_op.hpp"

namespace cudakit::detail {

using NativeComm = void*;  // ncclComm_t, or the CPU backend's communicator
inline constexpr std::size_t kUniqueIdBytes = 128;
using UniqueIdBytes = std::array<std::uint8_t, kUniqueIdBytes>;

enum class CollectiveKind : std::uint8_t {
  all_reduce,
  reduce,
  broadcast,
  all_gather,
  reduce_scatter,
  all_to_all,
  send,
  recv,
};
// "all_reduce", ... as the API names them.
inline const char* to_string(CollectiveKind kind) noexcept {
  constexpr const char* names[] = {"all_reduce",     "reduce",     "broadcast", "all_gather",
                                   "reduce_scatter", "all_to_all", "send",      "recv"};
  return names[static_cast<int>(kind)];
}

// One operation of one rank, in NCCL's terms: `count` is the elements each
// rank contributes to or receives from each rank (all_reduce, reduce,
// broadcast, send, recv: the buffers' size; all_gather: the send size, recv
// holds count x nranks; reduce_scatter: the recv size, send holds count x
// nranks; all_to_all: each peer's share, both hold count x nranks).
struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::all_reduce;
  DevicePtr send = 0;
  DevicePtr recv = 0;
  std::size_t count = 0;
  ScalarType type = ScalarType::f32;
  ReduceOp op = ReduceOp::sum;
  int peer = 0;  // the root of reduce and broadcast, the peer of send and recv
};

class CommBackend {
 public:
  virtual ~CommBackend() = default;

  // A new id for create(): NCCL's ncclGetUniqueId; on the CPU backend, the
  // address of a hub this process starts.
  virtual UniqueIdBytes unique_id() = 0;
  // Joins rank `rank` of `nranks` on device `ordinal`; returns once every
  // rank has joined, or throws CommunicatorError after `timeout`.
  virtual NativeComm init_rank(int nranks, const UniqueIdBytes& id, int rank, int ordinal,
                               std::chrono::milliseconds timeout) = 0;
  // One communicator per device, rank i on ordinals[i], in this process.
  virtual std::vector<NativeComm> init_all(const std::vector<int>& ordinals,
                                           std::chrono::milliseconds timeout) = 0;
  virtual void destroy(NativeComm comm) noexcept = 0;
  // Queues the operation on `stream` (of the communicator's device). Errors
  // found while it runs (ranks that disagree, a rank that never arrives)
  // surface when the stream is synchronized.
  virtual void enqueue(NativeComm comm, const CollectiveRequest& request, NativeStream stream) = 0;
  // Operations between group_start and group_end (per thread, nestable) are
  // issued together at the outer group_end: the calls of several ranks
  // from one thread, and sends and receives that would wait for each other.
  virtual void group_start() = 0;
  virtual void group_end() = 0;
};

// The collectives of `backend`; NotSupported when it has none.
inline CommBackend& comm_backend_of(Backend& backend) {
  if (auto* comm = backend.collectives()) return *comm;
  throw NotSupported("using a Communicator", "this backend has no collectives");
}

}  // namespace cudakit::detail
