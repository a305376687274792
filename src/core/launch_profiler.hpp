// CUDAKIT_PROFILE=1: every kernel launch is timed with a pair of events on
// its stream, and at exit a table per kernel is printed to stderr (calls,
// total / mean / min / max time, grid and block). With
// CUDAKIT_PROFILE_TRACE=FILE.json the launches are also written as a Chrome
// trace (one complete event per launch; opens in Perfetto or
// chrome://tracing).
//
// It works as a wrapper around the backend (every call forwarded, launches
// bracketed by events), so the launch path itself pays nothing when
// profiling is off.
#pragma once

#include <memory>

#include "backend/backend.hpp"

namespace cudakit::detail {

// Whether CUDAKIT_PROFILE is set (to anything but 0).
bool launch_profiling_enabled();

// `inner` wrapped so that its launches are recorded.
std::unique_ptr<Backend> make_profiling_backend(std::unique_ptr<Backend> inner);

}  // namespace cudakit::detail
