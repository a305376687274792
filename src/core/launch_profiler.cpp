// The recorder behind CUDAKIT_PROFILE=1 and ProfileSession, and the
// observed launch (see launch_profiler.hpp). Each recorded launch takes two
// events (reused from a free list) recorded around the backend's launch; the
// times are read when a session stops, or earlier, from launches long
// finished, so that a long run does not hold an event pair per launch.
#include "launch_profiler.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/kernel_state.hpp"
#include "core/nvtx_ranges.hpp"
#include "cudakit/error.hpp"
#include "cudakit/profiler.hpp"

namespace cudakit {
namespace detail {

std::atomic<bool> launch_observers_active{false};

namespace {

// Events of one device, and the first event recorded on it: launch start
// times are measured from it.
struct DeviceClock {
  NativeEvent epoch = nullptr;
  std::vector<NativeEvent> free_events;
};

struct PendingLaunch {
  ProfiledLaunch launch;  // times not yet read
  Backend* backend;
  NativeStream stream;
  NativeEvent start, stop;
};

// Launches still pending beyond this many are read early (those finished).
constexpr std::size_t early_read_threshold = 4096;

class Recorder {
 public:
  static Recorder& instance() {
    static Recorder* recorder = new Recorder;  // never destroyed: used at exit
    return *recorder;
  }

  // Starts a session; returns the index its launches start at.
  std::size_t begin_session() {
    std::lock_guard lock(mutex_);
    ++sessions_;
    update_flag();
    return finished_.size() + pending_.size();
  }

  // Ends a session and returns its launches (all times read).
  std::vector<ProfiledLaunch> end_session(std::size_t first) {
    std::lock_guard lock(mutex_);
    read_pending(pending_.size(), true);
    std::vector<ProfiledLaunch> launches;
    if (first < finished_.size())
      launches.assign(finished_.begin() + static_cast<std::ptrdiff_t>(first), finished_.end());
    if (--sessions_ == 0) release_all();
    update_flag();
    return launches;
  }

  bool recording() {
    std::lock_guard lock(mutex_);
    return sessions_ > 0;
  }

  // Two events for a launch on `device`; on the first launch there since
  // recording began, the device's epoch is recorded on `stream` first.
  std::pair<NativeEvent, NativeEvent> take_events(Backend& backend, int device,
                                                  NativeStream stream) {
    std::lock_guard lock(mutex_);
    DeviceClock& clock = clocks_[{&backend, device}];
    if (!clock.epoch) {
      clock.epoch = backend.create_event(device, true);
      backend.record_event(clock.epoch, stream);
    }
    NativeEvent pair[2];
    for (NativeEvent& e : pair) {
      if (clock.free_events.empty()) {
        e = backend.create_event(device, true);
      } else {
        e = clock.free_events.back();
        clock.free_events.pop_back();
      }
    }
    return {pair[0], pair[1]};
  }

  void give_back(Backend& backend, int device, NativeEvent start, NativeEvent stop) {
    std::lock_guard lock(mutex_);
    DeviceClock& clock = clocks_[{&backend, device}];
    clock.free_events.push_back(start);
    clock.free_events.push_back(stop);
  }

  void add(PendingLaunch launch) {
    std::lock_guard lock(mutex_);
    if (sessions_ == 0) {  // the last session ended during the launch
      backend_destroy(launch);
      return;
    }
    auto [it, fresh] = stream_ids_.emplace(std::make_pair(launch.backend, launch.stream),
                                           static_cast<int>(stream_ids_.size()));
    (void)fresh;
    launch.launch.stream = it->second;
    pending_.push_back(std::move(launch));
    if (pending_.size() >= early_read_threshold) read_pending(pending_.size() / 2, false);
  }

 private:
  void update_flag() {
    launch_observers_active.store(sessions_ > 0 || nvtx_enabled(), std::memory_order_relaxed);
  }

  static void backend_destroy(const PendingLaunch& p) {
    p.backend->destroy_event(p.start);
    p.backend->destroy_event(p.stop);
  }

  // Reads the times of the first `count` pending launches, in order; without
  // `wait`, stops at the first that has not finished.
  void read_pending(std::size_t count, bool wait) {
    std::size_t done = 0;
    for (; done < count; ++done) {
      PendingLaunch& p = pending_[done];
      DeviceClock& clock = clocks_[{p.backend, p.launch.device}];
      try {
        if (!wait && !p.backend->query_event(p.stop)) break;
        p.backend->synchronize_event(p.stop);
        p.launch.duration_ms = p.backend->elapsed_ms(p.start, p.stop);
        p.launch.start_ms = p.backend->elapsed_ms(clock.epoch, p.start);
      } catch (...) {
        // A failed launch's events may never complete: listed without a time.
      }
      finished_.push_back(std::move(p.launch));
      clock.free_events.push_back(p.start);
      clock.free_events.push_back(p.stop);
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(done));
  }

  void release_all() {
    for (auto& [key, clock] : clocks_) {
      Backend* backend = key.first;
      if (clock.epoch) backend->destroy_event(clock.epoch);
      for (NativeEvent e : clock.free_events) backend->destroy_event(e);
    }
    clocks_.clear();
    finished_.clear();
    stream_ids_.clear();
  }

  std::mutex mutex_;
  int sessions_ = 0;
  std::map<std::pair<Backend*, int>, DeviceClock> clocks_;
  std::vector<ProfiledLaunch> finished_;  // times read, in launch order
  std::vector<PendingLaunch> pending_;    // after finished_, times not read yet
  // Streams numbered in order of first use (the trace's rows).
  std::map<std::pair<Backend*, NativeStream>, int> stream_ids_;
};

void backend_launch(const Kernel::State& k, const LaunchConfig& config, void** values) {
  if (config.cooperative)
    k.backend->launch_cooperative(k.native, k.name.c_str(), config.grid, config.block,
                                  config.shared_bytes, config.stream.native, values);
  else
    k.backend->launch(k.native, k.name.c_str(), config.grid, config.block, config.shared_bytes,
                      config.stream.native, values);
}

}  // namespace

void observed_launch(const Kernel::State& k, const LaunchConfig& config, void** values) {
  const char* name = config.label && *config.label ? config.label : k.name.c_str();
  NvtxRange range(nvtx_enabled(), name);
  Recorder& recorder = Recorder::instance();
  if (!recorder.recording()) {
    backend_launch(k, config, values);
    return;
  }
  Backend& backend = *k.backend;
  const int device = k.device.ordinal();
  NativeStream stream = config.stream.native;
  auto [start, stop] = recorder.take_events(backend, device, stream);
  try {
    backend.record_event(start, stream);
    backend_launch(k, config, values);
    backend.record_event(stop, stream);
  } catch (...) {
    recorder.give_back(backend, device, start, stop);
    throw;
  }
  PendingLaunch p{{}, &backend, stream, start, stop};
  p.launch.name = name;
  p.launch.grid = config.grid;
  p.launch.block = config.block;
  p.launch.bytes_moved = config.bytes_moved;
  p.launch.device = device;
  recorder.add(std::move(p));
}

namespace {

ProfileSession* environment_session = nullptr;

void report_environment_profile() {
  if (!environment_session) return;
  ProfileSession* session = std::exchange(environment_session, nullptr);
  try {
    const ProfileReport report = session->stop();
    const std::string table =
        report.launches.empty() ? "cudakit profile: no kernel launches\n" : report.to_string();
    std::fprintf(stderr, "\n%s", table.c_str());
    if (const char* path = std::getenv("CUDAKIT_PROFILE_OUTPUT"); path && *path) {
      std::ofstream out(path);
      out << table;
      if (!out) std::fprintf(stderr, "cudakit profile: cannot write the table to %s\n", path);
    }
    if (const char* path = std::getenv("CUDAKIT_PROFILE_TRACE"); path && *path) {
      report.write_chrome_trace(path);
      std::fprintf(stderr, "cudakit profile: trace of %zu launches written to %s\n",
                   report.launches.size(), path);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudakit profile: %s\n", e.what());
  }
  delete session;
}

}  // namespace

void start_environment_profile() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (nvtx_enabled()) launch_observers_active.store(true, std::memory_order_relaxed);
    const char* v = std::getenv("CUDAKIT_PROFILE");
    if (!v || !*v || std::string_view(v) == "0") return;
    environment_session = new ProfileSession;
    // At exit, while the backend (a static created before this handler was
    // registered) is still alive.
    std::atexit(report_environment_profile);
  });
}

}  // namespace detail

ProfileSession::ProfileSession() : first_(detail::Recorder::instance().begin_session()) {}

ProfileSession::~ProfileSession() {
  if (!active_) return;
  try {
    detail::Recorder::instance().end_session(first_);
  } catch (...) {
    // Nothing to report from a destructor.
  }
}

ProfileReport ProfileSession::stop() {
  if (!active_)
    throw ArgumentError("stopping a profile session", "it was already stopped",
                        "start a new ProfileSession to record again");
  active_ = false;
  return detail::summarize_launches(detail::Recorder::instance().end_session(first_));
}

}  // namespace cudakit
