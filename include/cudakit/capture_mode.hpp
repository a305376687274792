// How a stream capture guards the rest of the process while it records
// (CUstreamCaptureMode's three values, in its order).
#pragma once

namespace cudakit {

enum class CaptureMode {
  // Calls that may synchronize implicitly are refused on every thread while
  // the capture is open (cudaStreamCaptureModeGlobal): the safest choice.
  global = 0,
  // As global, on the capturing thread only.
  thread_local_ = 1,
  // Nothing is refused; the caller keeps the capture consistent.
  relaxed = 2,
};

// "global", "thread_local" or "relaxed".
const char* to_string(CaptureMode mode) noexcept;

}  // namespace cudakit
