#include "backend/cpu/cpu_stream.hpp"

#include <cstdio>
#include <utility>

namespace cudakit::detail::cpu {

namespace {
// The stream whose thread this is (null on other threads).
thread_local CpuStream* t_running_stream = nullptr;
}  // namespace

CpuStream::CpuStream(bool non_blocking, int device) : non_blocking_(non_blocking), device_(device) {
  thread_ = std::thread([this] {
    t_running_stream = this;
    run();
  });
}

CpuStream::~CpuStream() {
  {
    std::unique_lock lock(mutex_);
    const std::uint64_t last = submitted_;
    wait_until_done(
        done_cv_, lock, [&] { return finished_ >= last; }, WaitMode::patient);
    stop_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

std::uint64_t CpuStream::enqueue(std::function<void()> task, std::function<void()> after,
                                 const void* key) {
  std::uint64_t ticket;
  {
    std::lock_guard lock(mutex_);
    if (capture_) {
      capture_->ops.push_back(RecordedOp{std::move(task), std::move(after), key});
      return submitted_;
    }
    queue_.push_back(Entry{std::move(task), std::move(after)});
    ticket = ++submitted_;
  }
  work_cv_.notify_one();
  return ticket;
}

bool CpuStream::capture_event_record(std::shared_ptr<CpuEvent> event) {
  std::lock_guard lock(mutex_);
  if (!capture_) return false;
  capture_->ops.push_back(RecordedOp{{}, {}, &kEventOp, std::move(event)});
  return true;
}

void CpuStream::begin_capture(std::shared_ptr<CpuGraph> graph) {
  std::lock_guard lock(mutex_);
  capture_ = std::move(graph);
}

std::shared_ptr<CpuGraph> CpuStream::end_capture() {
  std::lock_guard lock(mutex_);
  return std::exchange(capture_, nullptr);
}

bool CpuStream::capturing() {
  std::lock_guard lock(mutex_);
  return capture_ != nullptr;
}

std::uint64_t CpuStream::last_ticket() {
  std::lock_guard lock(mutex_);
  return submitted_;
}

bool CpuStream::reached(std::uint64_t ticket) {
  std::lock_guard lock(mutex_);
  return completed_ >= ticket;
}

void CpuStream::wait(std::uint64_t ticket, WaitMode mode) {
  std::unique_lock lock(mutex_);
  wait_until_done(
      done_cv_, lock, [&] { return finished_ >= ticket; }, mode);
}

void CpuStream::wait_unless_parked(std::uint64_t ticket, WaitMode mode) {
  std::unique_lock lock(mutex_);
  wait_until_done(
      done_cv_, lock, [&] { return finished_ >= ticket || parked_; }, mode);
}

CpuStream::Parked::Parked() : stream_(t_running_stream) {
  if (!stream_) return;
  {
    std::lock_guard lock(stream_->mutex_);
    stream_->parked_ = true;
  }
  stream_->done_cv_.notify_all();
}

CpuStream::Parked::~Parked() {
  if (!stream_) return;
  std::lock_guard lock(stream_->mutex_);
  stream_->parked_ = false;
}

bool CpuStream::idle() {
  std::lock_guard lock(mutex_);
  return completed_ == submitted_;
}

std::exception_ptr CpuStream::take_error() {
  std::lock_guard lock(mutex_);
  return std::exchange(error_, nullptr);
}

void CpuStream::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // Drain before stopping: destroying a stream finishes its work.
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;
    Entry entry = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::exception_ptr failure;
    try {
      if (entry.task) entry.task();
    } catch (...) {
      failure = std::current_exception();
    }
    // Kernel printf output appears when the work completes, as on a GPU.
    std::fflush(stdout);
    entry.task = nullptr;
    lock.lock();
    if (failure && !error_) error_ = failure;
    ++completed_;
    if (entry.after) {
      lock.unlock();
      entry.after();
      entry.after = nullptr;
      lock.lock();
    }
    // Waiters return only now: after a stream synchronize, every event
    // recorded on the stream before it is complete, as with CUDA.
    finished_ = completed_;
    done_cv_.notify_all();
  }
}

std::uint64_t CpuEvent::begin_record() {
  std::lock_guard lock(mutex_);
  return ++recorded_;
}

void CpuEvent::mark(std::uint64_t sequence) {
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    if (sequence > reached_) {
      reached_ = sequence;
      when_ = now;
      has_time_ = true;
    }
  }
  cv_.notify_all();
}

bool CpuEvent::complete() {
  std::lock_guard lock(mutex_);
  return reached_ >= recorded_;
}

void CpuEvent::wait(WaitMode mode) {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = recorded_;
  wait_until_done(
      cv_, lock, [&] { return reached_ >= target; }, mode);
}

void CpuEvent::wait_for(std::uint64_t sequence) {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return reached_ >= sequence; });
}

std::uint64_t CpuEvent::latest() {
  std::lock_guard lock(mutex_);
  return recorded_;
}

bool CpuEvent::time(std::chrono::steady_clock::time_point& out) {
  std::lock_guard lock(mutex_);
  if (!has_time_ || reached_ < recorded_) return false;
  out = when_;
  return true;
}

}  // namespace cudakit::detail::cpu
