// Streams and events on the CPU backend. A stream is an in-order queue with
// its own thread, so queued work runs concurrently with the host as it does
// on a GPU; an event is a host timestamp taken when its stream reaches it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "backend/cpu/cpu_graph.hpp"
#include "backend/cpu/interruptible_wait.hpp"

namespace cudakit::detail::cpu {

class CpuStream {
 public:
  // `device`: the ordinal of the (virtual) device the stream belongs to.
  CpuStream(bool non_blocking, int device);
  // Finishes the queued work first (a patient wait: an interrupt cancels
  // the running launches).
  ~CpuStream();
  CpuStream(const CpuStream&) = delete;
  CpuStream& operator=(const CpuStream&) = delete;

  bool non_blocking() const noexcept { return non_blocking_; }
  int device() const noexcept { return device_; }
  // Queues `task`; returns its ticket (tickets count up from 1). `after`, if
  // given, runs on the stream once the task counts as completed and before the
  // next task starts: an event recorded last on a stream is then never seen
  // complete while the stream still reports pending work.
  // While the stream captures, the task is recorded into the graph instead
  // (with `key`, see RecordedOp), and the last ticket is returned.
  std::uint64_t enqueue(std::function<void()> task, std::function<void()> after = {},
                        const void* key = nullptr);
  // While capturing: records `event`'s recording into the graph and returns
  // true; false (nothing done) when the stream is not capturing.
  bool capture_event_record(std::shared_ptr<CpuEvent> event);
  // Capture: from begin_capture until end_capture, enqueue records into `graph`.
  void begin_capture(std::shared_ptr<CpuGraph> graph);
  // The recorded graph; null when the stream was not capturing.
  std::shared_ptr<CpuGraph> end_capture();
  bool capturing();
  // The ticket of the last task queued (0: none yet).
  std::uint64_t last_ticket();
  bool reached(std::uint64_t ticket);
  // Blocks until the task with `ticket` (and all before it) has run, its
  // `after` included. `mode`: see interruptible_wait.hpp.
  void wait(std::uint64_t ticket, WaitMode mode = WaitMode::plain);
  // As wait(), but also returns while the running task is parked (a
  // collective waiting for its other ranks, which may need the caller's
  // thread to arrive): a synchronous copy on another device waits for the
  // work before it, never for a rank that cannot come.
  void wait_unless_parked(std::uint64_t ticket, WaitMode mode = WaitMode::plain);
  // Marks the task running on the calling thread's stream as parked for a
  // scope (nothing when the thread is no stream's).
  class Parked {
   public:
    Parked();
    ~Parked();
    Parked(const Parked&) = delete;
    Parked& operator=(const Parked&) = delete;

   private:
    CpuStream* stream_;
  };
  // True when nothing is queued or running.
  bool idle();
  // The first failure of a queued task since the last call, or null.
  std::exception_ptr take_error();

 private:
  void run();

  const bool non_blocking_;
  const int device_;
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  struct Entry {
    std::function<void()> task;
    std::function<void()> after;
  };
  std::deque<Entry> queue_;
  std::uint64_t submitted_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t finished_ = 0;  // completed, and its `after` has run
  std::exception_ptr error_;
  bool parked_ = false;
  std::shared_ptr<CpuGraph> capture_;  // non-null while capturing
  bool stop_ = false;
  std::thread thread_;
};

class CpuEvent {
 public:
  explicit CpuEvent(bool timing) : timing_(timing) {}
  bool timing() const noexcept { return timing_; }
  // A new recording; returns its sequence number for mark().
  std::uint64_t begin_record();
  // Called by the stream when it reaches the recording `sequence`.
  void mark(std::uint64_t sequence);
  bool complete();
  void wait(WaitMode mode = WaitMode::plain);
  // Waits for the recording that was the latest when it was called.
  void wait_for(std::uint64_t sequence);
  std::uint64_t latest();
  // Time of the last completed recording; false when there is none.
  bool time(std::chrono::steady_clock::time_point& out);

 private:
  const bool timing_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::uint64_t recorded_ = 0;
  std::uint64_t reached_ = 0;
  bool has_time_ = false;
  std::chrono::steady_clock::time_point when_{};
};

}  // namespace cudakit::detail::cpu
