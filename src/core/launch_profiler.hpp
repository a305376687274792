// The launch path's instruments: profile sessions (CUDAKIT_PROFILE=1, whose
// table is printed at exit, and cudakit::ProfileSession) record every launch
// with a pair of events on its stream, and NVTX ranges name each launch for
// a tool such as Nsight Systems. While neither is active, Kernel::launch
// pays one relaxed load (launches_observed()) and nothing else.
#pragma once

#include <atomic>
#include <vector>

#include "cudakit/kernel.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/profiler.hpp"

namespace cudakit::detail {

extern std::atomic<bool> launch_observers_active;

inline bool launches_observed() noexcept {
  return launch_observers_active.load(std::memory_order_relaxed);
}

// Launches `k` as launch.cpp does, inside an NVTX range named by the
// config's label or the kernel's name, and recorded by the active profile
// sessions.
void observed_launch(const Kernel::State& k, const LaunchConfig& config, void** values);

// CUDAKIT_PROFILE set (to anything but 0): starts the process-wide session,
// reported at exit to stderr (and to CUDAKIT_PROFILE_OUTPUT, with a Chrome
// trace at CUDAKIT_PROFILE_TRACE when set). Called after a backend is
// created, so that the report runs before the backends are destroyed.
void start_environment_profile();

// The rows of a report from its launches (profile_report.cpp).
ProfileReport summarize_launches(std::vector<ProfiledLaunch> launches);

}  // namespace cudakit::detail
