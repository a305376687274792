// Communicators through NCCL (loaded on first use): the CUDA backend's half
// of cudakit::Communicator. The core has checked every request; this file
// maps it to NCCL's types and calls. NCCL has no timeouts of its own: a
// rank that never joins is reported after the timeout; an operation that
// does not complete within it (a rank never arrived, or died) is aborted by
// the watchdog (nccl_watchdog.hpp), which records an event after each
// operation or group, and reported at the stream's synchronize.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/nccl_watchdog.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"
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

// "recv of 16 float32 from peer 0", as the errors name an operation.
std::string describe(const CollectiveRequest& r) {
  std::string text = std::string(to_string(r.kind)) + " of " + std::to_string(r.count) + " " +
                     std::string(to_string(r.type));
  switch (r.kind) {
    case CollectiveKind::reduce:
    case CollectiveKind::broadcast:
      return text + " with root " + std::to_string(r.peer);
    case CollectiveKind::send:
      return text + " to peer " + std::to_string(r.peer);
    case CollectiveKind::recv:
      return text + " from peer " + std::to_string(r.peer);
    default:
      return text;
  }
}

// Events for the watchdog, reused: one per operation in flight.
class EventPool {
 public:
  NativeEvent take(int ordinal) {
    std::lock_guard lock(mutex_);
    std::vector<NativeEvent>& free = free_[ordinal];
    if (free.empty()) return nullptr;
    NativeEvent event = free.back();
    free.pop_back();
    return event;
  }
  void put(NativeEvent event, int ordinal) {
    std::lock_guard lock(mutex_);
    free_[ordinal].push_back(event);
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<NativeEvent>> free_;
};

// The operations of this thread's open group (Communicator::group_start):
// NCCL launches them at the outer group_end, where they are watched.
struct GroupedOp {
  WatchedComm* comm;
  NativeStream stream;
  std::string what;
};
struct ThreadGroup {
  int depth = 0;
  std::vector<GroupedOp> ops;
};
ThreadGroup& this_thread_group() {
  thread_local ThreadGroup group;
  return group;
}

WatchedComm& watched(NativeComm handle) { return *static_cast<WatchedComm*>(handle); }
ncclComm_t nccl_comm(const WatchedComm& comm) { return static_cast<ncclComm_t>(comm.nccl); }

// The calling thread's current context, put back at the end of a scope
// that makes other devices' current (events for the ranks of a group).
class ContextKept {
 public:
  explicit ContextKept(const CudaDriver& driver) : driver_(driver) {
    driver_.cuCtxGetCurrent(&saved_);
  }
  ~ContextKept() { driver_.cuCtxSetCurrent(saved_); }
  ContextKept(const ContextKept&) = delete;
  ContextKept& operator=(const ContextKept&) = delete;

 private:
  const CudaDriver& driver_;
  CUcontext saved_ = nullptr;
};

class NcclCollectives final : public CommBackend {
 public:
  explicit NcclCollectives(CudaBackend& backend) : backend_(backend), watchdog_(hooks()) {}

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
    return wrap(join->comm, ordinal, rank, nranks, timeout, std::make_shared<AbortGroup>());
  }

  std::vector<NativeComm> init_all(const std::vector<int>& ordinals,
                                   std::chrono::milliseconds timeout) override {
    const Nccl& api = nccl();
    for (int ordinal : ordinals) backend_.make_current(ordinal);  // retain each primary context
    std::vector<ncclComm_t> comms(ordinals.size());
    check(api.ncclCommInitAll(comms.data(), static_cast<int>(ordinals.size()), ordinals.data()),
          "creating " + std::to_string(ordinals.size()) + " ranks in one process (ncclCommInitAll)",
          nullptr);
    auto group = std::make_shared<AbortGroup>();
    std::vector<NativeComm> natives;
    const int nranks = static_cast<int>(ordinals.size());
    for (int r = 0; r < nranks; ++r)
      natives.push_back(wrap(comms[static_cast<std::size_t>(r)],
                             ordinals[static_cast<std::size_t>(r)], r, nranks, timeout, group));
    return natives;
  }

  // Waits for the rank's watched operations (each completes, or the
  // watchdog aborts the communicator); an aborted one is not destroyed
  // again (ncclCommAbort freed it).
  void destroy(NativeComm handle) noexcept override {
    if (!handle) return;
    const std::unique_ptr<WatchedComm> comm(&watched(handle));
    watchdog_.wait_idle(*comm);
    AbortGroup& group = *comm->group;
    std::lock_guard calls(group.calls);
    std::erase(group.members, comm->nccl);
    if (!group.aborted.load(std::memory_order_acquire)) nccl().ncclCommDestroy(nccl_comm(*comm));
  }

  void enqueue(NativeComm handle, const CollectiveRequest& r, NativeStream stream) override {
    WatchedComm& comm = watched(handle);
    const std::string what = describe(r);
    std::lock_guard calls(comm.group->calls);
    if (comm.group->aborted.load(std::memory_order_acquire)) throw aborted_error(comm, what);
    launch(nccl_comm(comm), r, static_cast<cudaStream_t>(stream), what);
    ThreadGroup& group = this_thread_group();
    if (group.depth > 0)
      group.ops.push_back(GroupedOp{&comm, stream, what});
    else
      watch(comm, stream, what);
  }

  void group_start() override {
    check(nccl().ncclGroupStart(), "ncclGroupStart", nullptr);
    ++this_thread_group().depth;
  }

  // The outer group_end launches the group's operations: then one event per
  // communicator and stream is watched.
  void group_end() override {
    ThreadGroup& group = this_thread_group();
    if (group.depth != 1) {
      if (group.depth > 1) --group.depth;
      return check(nccl().ncclGroupEnd(), "ncclGroupEnd", nullptr);
    }
    group.depth = 0;
    const std::vector<GroupedOp> ops = std::move(group.ops);
    group.ops.clear();
    std::vector<AbortGroup*> groups;
    for (const GroupedOp& op : ops) groups.push_back(op.comm->group.get());
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    std::vector<std::unique_lock<std::mutex>> locks;
    for (AbortGroup* g : groups) locks.emplace_back(g->calls);
    check(nccl().ncclGroupEnd(), "ncclGroupEnd", nullptr);
    if (ops.empty()) return;
    const ContextKept kept(backend_.driver());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto same = [&](const GroupedOp& o) {
        return o.comm == ops[i].comm && o.stream == ops[i].stream;
      };
      if (std::any_of(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(i), same)) continue;
      const auto n = std::count_if(ops.begin(), ops.end(), same);
      watch(*ops[i].comm, ops[i].stream,
            n == 1 ? ops[i].what
                   : ops[i].what + " (in a group of " + std::to_string(n) + " operations)");
    }
  }

 private:
  NativeComm wrap(ncclComm_t nccl_handle, int ordinal, int rank, int nranks,
                  std::chrono::milliseconds timeout, std::shared_ptr<AbortGroup> group) {
    group->members.push_back(nccl_handle);
    return new WatchedComm{nccl_handle, ordinal, rank, nranks, timeout, std::move(group)};
  }

  CollectiveWatchdog::Hooks hooks() {
    CollectiveWatchdog::Hooks h;
    h.completed = [this](NativeEvent event, int ordinal) {
      backend_.make_current(ordinal);
      return backend_.query_event(event);
    };
    h.release = [this](NativeEvent event, int ordinal) { events_.put(event, ordinal); };
    h.fail_stream = [this](NativeStream stream, int ordinal, std::exception_ptr error) {
      backend_.stream_faults().file(stream, ordinal, std::move(error));
    };
    h.abort = [](AbortGroup& group) {
      for (void* member : group.members) nccl().ncclCommAbort(static_cast<ncclComm_t>(member));
    };
    return h;
  }

  // An event after the operation just queued on `stream`, for the watchdog
  // (not while the stream is being captured into a graph: that event would
  // complete only when the graph runs).
  void watch(WatchedComm& comm, NativeStream stream, std::string what) {
    if (capturing(stream)) return;
    NativeEvent event = events_.take(comm.ordinal);
    if (!event) event = backend_.create_event(comm.ordinal, false);
    try {
      backend_.record_event(event, stream);
    } catch (...) {
      events_.put(event, comm.ordinal);
      throw;
    }
    watchdog_.watch(comm, stream, event, std::move(what));
  }

  bool capturing(NativeStream stream) {
    try {
      return backend_.is_capturing(stream);
    } catch (const NotSupported&) {
      return false;  // a driver without graphs captures nothing
    } catch (const Error&) {
      return true;  // the driver cannot say (the legacy stream during a capture): not watched
    }
  }

  void launch(ncclComm_t comm, const CollectiveRequest& r, cudaStream_t stream,
              const std::string& doing) {
    const Nccl& api = nccl();
    const ncclDataType_t type = nccl_type(r.type);
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
  EventPool events_;
  CollectiveWatchdog watchdog_;  // last: its thread stops before the rest goes
};

}  // namespace

CommBackend* CudaBackend::collectives() {
  std::call_once(collectives_once_,
                 [this] { collectives_ = std::make_unique<NcclCollectives>(*this); });
  return collectives_.get();
}

}  // namespace cudakit::detail
