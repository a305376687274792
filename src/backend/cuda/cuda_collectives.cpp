// Communicators through NCCL (loaded on first use): the CUDA backend's half
// of cudakit::Communicator. The core has checked every request; this file
// maps it to NCCL's types and calls. NCCL has no timeouts of its own: a
// rank that never joins is reported after the timeout, but one that never
// arrives at a collective blocks its stream (the CPU backend reports it).
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "cudakit/error.hpp"
#include "platform/nccl_library.hpp"

namespace cudakit::detail {
namespace {

ncclDataType_t nccl_type(ScalarType type) {
  switch (type) {
    case ScalarType::i8:
      return ncclInt8;
    case ScalarType::u8:
      return ncclUint8;
    case ScalarType::i32:
      return ncclInt32;
    case ScalarType::u32:
      return ncclUint32;
    case ScalarType::i64:
      return ncclInt64;
    case ScalarType::u64:
      return ncclUint64;
    case ScalarType::f16:
      return ncclFloat16;
    case ScalarType::bf16:
      return ncclBfloat16;
    case ScalarType::f64:
      return ncclFloat64;
    default:
      return ncclFloat32;
  }
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::prod:
      return ncclProd;
    case ReduceOp::max:
      return ncclMax;
    case ReduceOp::min:
      return ncclMin;
    case ReduceOp::avg:
      return ncclAvg;
    case ReduceOp::sum:
      break;
  }
  return ncclSum;
}

void* address(DevicePtr p) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)); }

class NcclCollectives final : public CommBackend {
 public:
  explicit NcclCollectives(CudaBackend& backend) : backend_(backend) {}

  UniqueIdBytes unique_id() override {
    ncclUniqueId id{};
    check(nccl().ncclGetUniqueId(&id), "making a unique id (ncclGetUniqueId)", nullptr);
    UniqueIdBytes bytes{};
    static_assert(sizeof id == kUniqueIdBytes);
    std::memcpy(bytes.data(), &id, sizeof id);
    return bytes;
  }

  // ncclCommInitRank waits for every rank with no limit of its own: it runs
  // on a thread of its own, and a rank not there within `timeout` is an
  // error here. The abandoned init finishes (or not) on its thread; a
  // communicator it makes after all is aborted.
  NativeComm init_rank(int nranks, const UniqueIdBytes& id, int rank, int ordinal,
                       std::chrono::milliseconds timeout) override {
    const Nccl& api = nccl();
    const std::string doing = "joining rank " + std::to_string(rank) + " of " +
                              std::to_string(nranks) + " on device " + std::to_string(ordinal) +
                              " (ncclCommInitRank)";
    struct Join {
      std::mutex mutex;
      std::condition_variable done;
      bool finished = false;
      bool abandoned = false;
      ncclResult_t result = ncclSuccess;
      ncclComm_t comm = nullptr;
      std::exception_ptr failure;
    };
    auto join = std::make_shared<Join>();
    ncclUniqueId nccl_id{};
    std::memcpy(&nccl_id, id.data(), sizeof nccl_id);
    std::thread([this, &api, join, nccl_id, nranks, rank, ordinal] {
      ncclComm_t comm = nullptr;
      ncclResult_t result = ncclSuccess;
      std::exception_ptr failure;
      try {
        backend_.make_current(ordinal);
        result = api.ncclCommInitRank(&comm, nranks, nccl_id, rank);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard lock(join->mutex);
      if (join->abandoned) {
        if (comm) api.ncclCommAbort(comm);
        return;
      }
      join->finished = true;
      join->result = result;
      join->comm = comm;
      join->failure = failure;
      join->done.notify_all();
    }).detach();
    std::unique_lock lock(join->mutex);
    if (!join->done.wait_for(lock, timeout, [&] { return join->finished; })) {
      join->abandoned = true;
      throw CommunicatorError(doing,
                              "not every rank joined within " +
                                  std::to_string(static_cast<double>(timeout.count()) / 1000.0) +
                                  " s (NCCL does not say which)",
                              "start every rank's process with the same unique id and nranks; "
                              "the timeout is create()'s argument or CUDAKIT_COMM_TIMEOUT "
                              "(seconds)");
    }
    if (join->failure) std::rethrow_exception(join->failure);
    check(join->result, doing, nullptr);
    return join->comm;
  }

  std::vector<NativeComm> init_all(const std::vector<int>& ordinals,
                                   std::chrono::milliseconds) override {
    const Nccl& api = nccl();
    for (int ordinal : ordinals) backend_.make_current(ordinal);  // retain each primary context
    std::vector<ncclComm_t> comms(ordinals.size());
    check(api.ncclCommInitAll(comms.data(), static_cast<int>(ordinals.size()), ordinals.data()),
          "creating " + std::to_string(ordinals.size()) + " ranks in one process (ncclCommInitAll)",
          nullptr);
    return std::vector<NativeComm>(comms.begin(), comms.end());
  }

  void destroy(NativeComm comm) noexcept override {
    if (comm) nccl().ncclCommDestroy(static_cast<ncclComm_t>(comm));
  }

  void enqueue(NativeComm handle, const CollectiveRequest& r, NativeStream native) override {
    const Nccl& api = nccl();
    auto comm = static_cast<ncclComm_t>(handle);
    auto stream = static_cast<cudaStream_t>(native);
    const ncclDataType_t type = nccl_type(r.type);
    const std::string doing = std::string(to_string(r.kind)) + " of " + std::to_string(r.count) +
                              " " + std::string(to_string(r.type));
    switch (r.kind) {
      case CollectiveKind::all_reduce:
        return check(api.ncclAllReduce(address(r.send), address(r.recv), r.count, type,
                                       nccl_op(r.op), comm, stream),
                     doing, comm);
      case CollectiveKind::reduce:
        return check(api.ncclReduce(address(r.send), address(r.recv), r.count, type, nccl_op(r.op),
                                    r.peer, comm, stream),
                     doing, comm);
      case CollectiveKind::broadcast:
        return check(api.ncclBroadcast(address(r.send), address(r.recv), r.count, type, r.peer,
                                       comm, stream),
                     doing, comm);
      case CollectiveKind::all_gather:
        return check(
            api.ncclAllGather(address(r.send), address(r.recv), r.count, type, comm, stream), doing,
            comm);
      case CollectiveKind::reduce_scatter:
        return check(api.ncclReduceScatter(address(r.send), address(r.recv), r.count, type,
                                           nccl_op(r.op), comm, stream),
                     doing, comm);
      case CollectiveKind::send:
        return check(api.ncclSend(address(r.send), r.count, type, r.peer, comm, stream), doing,
                     comm);
      case CollectiveKind::recv:
        return check(api.ncclRecv(address(r.recv), r.count, type, r.peer, comm, stream), doing,
                     comm);
      case CollectiveKind::all_to_all:
        return all_to_all(api, comm, r, type, stream, doing);
    }
  }

  void group_start() override { check(nccl().ncclGroupStart(), "ncclGroupStart", nullptr); }
  void group_end() override { check(nccl().ncclGroupEnd(), "ncclGroupEnd", nullptr); }

 private:
  // NCCL has no all_to_all: one group of a send and a receive per peer.
  void all_to_all(const Nccl& api, ncclComm_t comm, const CollectiveRequest& r, ncclDataType_t type,
                  cudaStream_t stream, const std::string& doing) {
    int nranks = 0;
    check(api.ncclCommCount(comm, &nranks), doing, comm);
    const std::size_t block = r.count * scalar_size(r.type);
    check(api.ncclGroupStart(), doing, comm);
    ncclResult_t result = ncclSuccess;
    for (int p = 0; p < nranks && result == ncclSuccess; ++p) {
      const std::size_t offset = static_cast<std::size_t>(p) * block;
      result = api.ncclSend(address(r.send + offset), r.count, type, p, comm, stream);
      if (result == ncclSuccess)
        result = api.ncclRecv(address(r.recv + offset), r.count, type, p, comm, stream);
    }
    const ncclResult_t ended = api.ncclGroupEnd();
    check(result != ncclSuccess ? result : ended, doing, comm);
  }

  static void check(ncclResult_t result, const std::string& doing, ncclComm_t comm) {
    if (result == ncclSuccess || result == ncclInProgress) return;
    const Nccl& api = nccl();
    std::string message = api.ncclGetErrorString(result);
    if (const char* last = api.ncclGetLastError(comm); last && *last)
      message += std::string(": ") + last;
    throw CommunicatorError(
        "NCCL " + doing, message,
        "every rank must call the same collectives in the same order; NCCL_DEBUG=INFO "
        "traces what NCCL does",
        {}, static_cast<int>(result), nccl_result_name(result));
  }

  CudaBackend& backend_;
};

}  // namespace

CommBackend* CudaBackend::collectives() {
  std::call_once(collectives_once_,
                 [this] { collectives_ = std::make_unique<NcclCollectives>(*this); });
  return collectives_.get();
}

}  // namespace cudakit::detail
