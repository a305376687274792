// Graphs on the CPU backend. A capturing stream records the operations it is
// given (the same closures it would have queued: a launch with its argument
// values copied at capture time, a copy, a fill, an event's recording, a host
// function) instead of running them; an executable graph replays them, in
// order, as one task on the stream it is launched on. So capture runs
// nothing, replay runs the recorded sequence, and a replay gives the bits a
// direct run gives.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace cudakit::detail::cpu {

struct RecordedOp {
  std::function<void()> task;
  std::function<void()> after;  // runs when the task counts as done (event marks)
  const void* key = nullptr;    // the kernel of a launch; a tag for other operations
};

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
  void run();
  // Takes `graph`'s operations when they match this one's one for one (same
  // count, same kernels and kinds, in order); false otherwise.
  bool update(const CpuGraph& graph);

 private:
  const int device_;
  std::mutex mutex_;
  std::vector<RecordedOp> ops_;
};

}  // namespace cudakit::detail::cpu
