// The CUDA backend's watchdog over NCCL operations, as PyTorch's
// ProcessGroupNCCL has one: NCCL has no timeouts, and a rank that never
// arrives at a collective (it died, hangs, or skipped the call) leaves the
// other ranks' kernels spinning and their streams blocked for ever. After
// each operation (or group) an event is recorded on its stream and handed
// to watch(); a thread, started at the first watch() and idle while nothing
// is pending, polls the oldest event of each stream every few ms. An
// operation not complete within its communicator's timeout after it was
// queued gets its communicator aborted (ncclCommAbort unblocks the kernels),
// every pending operation of the ranks made with it filed as a
// CommunicatorError on its stream (surfacing at that stream's or device's
// synchronize), and each later call on those ranks refused.
//
// The CUDA and NCCL calls are hooks, so the bookkeeping is tested without
// a GPU (tests/unit/nccl_watchdog_test.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {

// The ranks made together (one create(), or all ranks of one local()): a
// timeout aborts them all.
struct AbortGroup {
  // Held around every NCCL call on the members, and around their abort.
  std::mutex calls;
  // Set (after `reason`) once the members were aborted; they must not be
  // used or destroyed again (ncclCommAbort frees them).
  std::atomic<bool> aborted{false};
  std::string reason;
  // The ncclComm_t of each member not destroyed yet.
  std::vector<void*> members;
};

// What a NativeComm of the CUDA backend points to.
struct WatchedComm {
  void* nccl = nullptr;  // ncclComm_t
  int ordinal = 0;
  int rank = 0;
  int nranks = 1;
  std::chrono::milliseconds timeout{};
  std::shared_ptr<AbortGroup> group;
};

// "2 s", "0.5 s".
std::string format_seconds(std::chrono::milliseconds duration);
// "NCCL recv of 16 float32 from peer 0 on rank 0 of 1 (device 0)".
std::string describe_operation(const WatchedComm& comm, const std::string& what);
// The error of an operation (`what`, e.g. "recv of 16 float32 from peer 0")
// that did not complete within the communicator's timeout.
CommunicatorError timeout_error(const WatchedComm& comm, const std::string& what);
// The error of an operation on a communicator aborted earlier.
CommunicatorError aborted_error(const WatchedComm& comm, const std::string& what);

class CollectiveWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  struct Hooks {
    // Whether `event` (of device `ordinal`) has completed; an exception
    // counts as completed (the stream reports its own errors).
    std::function<bool(NativeEvent event, int ordinal)> completed;
    // `event` is no longer watched: back to the pool.
    std::function<void(NativeEvent event, int ordinal)> release;
    // The operation on `stream` failed with `error` (file it for the stream's synchronize).
    std::function<void(NativeStream stream, int ordinal, std::exception_ptr error)> fail_stream;
    // Abort every member of `group` (called with group.calls held).
    std::function<void(AbortGroup& group)> abort;
  };

  explicit CollectiveWatchdog(Hooks hooks,
                              std::chrono::milliseconds poll = std::chrono::milliseconds(5));
  // Stops the thread; events still pending are left as they are.
  ~CollectiveWatchdog();
  CollectiveWatchdog(const CollectiveWatchdog&) = delete;
  CollectiveWatchdog& operator=(const CollectiveWatchdog&) = delete;

  // Watches `event`, recorded on `stream` after operation `what` of `comm`
  // (queued at `queued`). The caller holds comm.group->calls.
  void watch(WatchedComm& comm, NativeStream stream, NativeEvent event, std::string what,
             Clock::time_point queued = Clock::now());
  // Returns once no operation of `comm` is pending: each completed, or its
  // communicator was aborted (at most its timeout and a poll later).
  void wait_idle(const WatchedComm& comm);
  std::size_t pending() const;

 private:
  struct Entry {
    WatchedComm* comm;
    NativeEvent event;
    std::string what;
    Clock::time_point deadline;
  };
  struct Late {
    WatchedComm* comm = nullptr;
    std::string what;
  };
  void run();
  // One round: drops completed operations; returns the first late one of
  // each group.
  std::vector<Late> sweep(Clock::time_point now);
  // Aborts the group of `late` unless a caller holds its lock (next round then).
  void abort(std::unique_lock<std::mutex>& lock, const Late& late);
  bool has_pending(const WatchedComm& comm) const;

  Hooks hooks_;
  std::chrono::milliseconds poll_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;                       // work arrived, or stop
  std::condition_variable idle_;                       // operations left
  std::map<NativeStream, std::deque<Entry>> pending_;  // per stream, in queue order
  std::size_t count_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cudakit::detail
