// The backend seen through open stream captures: work this thread sends to
// the legacy default stream goes to the stream it is capturing, the memory
// a captured copy or fill touches is recorded with the graph, and calls that
// would synchronize with a capturing stream (or, in the global and
// thread-local modes, any call that may synchronize implicitly) are refused
// with a clear error before the backend sees them, so the capture stays
// valid and nothing queued is lost (a GPU would invalidate the capture).
#pragma once

#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace cudakit::detail {

std::unique_ptr<Backend> make_capture_guarded_backend(std::unique_ptr<Backend> inner);

// The error for `doing` inside the capture on `stream` (CudaError with
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, as a GPU reports it).
[[noreturn]] void refuse_in_capture(const std::string& doing, const char* why);

}  // namespace cudakit::detail
