// Graphs on the CPU backend. A capturing stream records the operations it is
// given (the same closures it would have queued: a launch with its argument
// values copied at capture time, a copy, a fill, an event's recording, a host
// function) instead of running them; an executable graph replays them, in
// order, as one task on the stream it is launched on. So capture runs
// nothing, replay runs the recorded sequence, and a replay gives the bits a
// direct run gives.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace cudakit::detail::cpu {

class CpuEvent;

struct RecordedOp {
  std::function<void()> task;
  std::function<void()> after;  // runs when the task counts as done
  const void* key = nullptr;    // the kernel of a launch; a tag for other operations
  // An event's recording: begun when a replay is queued (so waiting on the
  // event after queueing the replay waits for it), marked when it runs.
  std::shared_ptr<CpuEvent> event;
};

// The recordings a queued replay will mark: each event op's event and the
// sequence number its recording got when the replay was queued.
using EventRecordings = std::vector<std::pair<std::shared_ptr<CpuEvent>, std::uint64_t>>;

struct CpuGraph {
  int device = 0;
  std::vector<RecordedOp> ops;
};

// Tags for RecordedOp::key of operations that are not launches.
inline constexpr char kCopyOp = 0, kFillOp = 0, kEventOp = 0, kWaitOp = 0, kHostOp = 0,
                      kGraphOp = 0;

class CpuGraphExec {
 public:
  explicit CpuGraphExec(const CpuGraph& graph) : device_(graph.device), ops_(graph.ops) {}
  int device() const noexcept { return device_; }
  // Runs the operations in order, one replay at a time. After a failure the
  // remaining tasks are skipped (as a fault ends a GPU's work) but their
  // `after` steps still run, so nothing waiting on the graph's events hangs;
  // the failure is rethrown at the end.
  void run(const EventRecordings& recordings);
  // Begins the recording of each event op, for one replay being queued.
  EventRecordings begin_event_recordings();
  // Takes `graph`'s operations when they match this one's one for one (same
  // count, same kernels and kinds, in order); false otherwise.
  bool update(const CpuGraph& graph);

 private:
  const int device_;
  std::mutex mutex_;
  std::vector<RecordedOp> ops_;
};

}  // namespace cudakit::detail::cpu
