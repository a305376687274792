#include "backend/cuda/nccl_watchdog.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace cudakit::detail {
namespace {

const char* const kRecreateHint =
    "create a new communicator (a new unique id, on every rank); every rank must call the same "
    "collectives in the same order; the timeout is create()'s argument or CUDAKIT_COMM_TIMEOUT "
    "(seconds)";

}  // namespace

std::string format_seconds(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
  return text;
}

std::string describe_operation(const WatchedComm& comm, const std::string& what) {
  return "NCCL " + what + " on rank " + std::to_string(comm.rank) + " of " +
         std::to_string(comm.nranks) + " (device " + std::to_string(comm.ordinal) + ")";
}

CommunicatorError timeout_error(const WatchedComm& comm, const std::string& what) {
  return CommunicatorError(describe_operation(comm, what),
                           "it did not complete within " + format_seconds(comm.timeout) +
                               ": a rank did not arrive at it, or died; the communicator was "
                               "aborted (ncclCommAbort), its results are not valid, and it "
                               "cannot be used again",
                           kRecreateHint);
}

CommunicatorError aborted_error(const WatchedComm& comm, const std::string& what) {
  return CommunicatorError(describe_operation(comm, what),
                           "the communicator was aborted earlier: " + comm.group->reason,
                           kRecreateHint);
}

CollectiveWatchdog::CollectiveWatchdog(Hooks hooks, std::chrono::milliseconds poll)
    : hooks_(std::move(hooks)), poll_(poll) {}

CollectiveWatchdog::~CollectiveWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  idle_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CollectiveWatchdog::watch(WatchedComm& comm, NativeStream stream, NativeEvent event,
                               std::string what, Clock::time_point queued) {
  std::lock_guard lock(mutex_);
  pending_[stream].push_back(Entry{&comm, event, std::move(what), queued + comm.timeout});
  if (count_++ == 0) wake_.notify_one();
  if (!thread_.joinable() && !stop_) thread_ = std::thread([this] { run(); });
}

void CollectiveWatchdog::wait_idle(const WatchedComm& comm) {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return stop_ || !has_pending(comm); });
}

std::size_t CollectiveWatchdog::pending() const {
  std::lock_guard lock(mutex_);
  return count_;
}

bool CollectiveWatchdog::has_pending(const WatchedComm& comm) const {
  for (const auto& [stream, queue] : pending_)
    for (const Entry& e : queue)
      if (e.comm == &comm) return true;
  return false;
}

void CollectiveWatchdog::run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (count_ == 0) {
      wake_.wait(lock, [&] { return stop_ || count_ > 0; });
      continue;
    }
    try {
      const std::size_t before = count_;
      // Each abort lets go of the lock: a group not aborted yet is looked up again.
      for (const Late& late : sweep(Clock::now())) abort(lock, late);
      if (count_ < before) idle_.notify_all();
    } catch (...) {
      // Out of memory for a message: try again next round.
    }
    if (!stop_) wake_.wait_for(lock, poll_, [&] { return stop_; });
  }
}

std::vector<CollectiveWatchdog::Late> CollectiveWatchdog::sweep(Clock::time_point now) {
  std::vector<Late> late;
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::deque<Entry>& queue = it->second;
    // A stream's events complete in order: only its oldest is asked.
    while (!queue.empty()) {
      const Entry& head = queue.front();
      bool done = true;
      try {
        done = hooks_.completed(head.event, head.comm->ordinal);
      } catch (...) {
      }
      if (!done) break;
      hooks_.release(head.event, head.comm->ordinal);
      queue.pop_front();
      --count_;
    }
    for (const Entry& e : queue) {
      if (e.deadline > now) continue;
      const auto same_group = [&](const Late& l) { return l.comm->group == e.comm->group; };
      if (std::none_of(late.begin(), late.end(), same_group)) late.push_back(Late{e.comm, e.what});
    }
    it = queue.empty() ? pending_.erase(it) : std::next(it);
  }
  return late;
}

void CollectiveWatchdog::abort(std::unique_lock<std::mutex>& lock, const Late& late) {
  const std::shared_ptr<AbortGroup> group = late.comm->group;
  std::unique_lock calls(group->calls, std::try_to_lock);
  if (!calls.owns_lock() || group->aborted.load(std::memory_order_acquire)) return;
  const CommunicatorError error = timeout_error(*late.comm, late.what);
  const std::exception_ptr failure = std::make_exception_ptr(error);
  group->reason = describe_operation(*late.comm, late.what) + ": " + error.message();
  // Filed before the abort ends the kernels: a synchronize that returns
  // then finds the error.
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::deque<Entry>& queue = it->second;
    bool filed = false;
    for (auto e = queue.begin(); e != queue.end();) {
      if (e->comm->group != group) {
        ++e;
        continue;
      }
      if (!filed) hooks_.fail_stream(it->first, e->comm->ordinal, failure);
      filed = true;
      hooks_.release(e->event, e->comm->ordinal);
      e = queue.erase(e);
      --count_;
    }
    it = queue.empty() ? pending_.erase(it) : std::next(it);
  }
  group->aborted.store(true, std::memory_order_release);
  lock.unlock();  // others' operations go on being watched meanwhile
  try {
    hooks_.abort(*group);
  } catch (...) {
  }
  group->members.clear();
  lock.lock();
}

}  // namespace cudakit::detail
