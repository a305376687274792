// The process-wide backend instances, created on first use. Kept apart
// from the default-backend choice (backend_kind.cpp) so that this file is the
// only one that names the backend factories: a test can supply its own
// detail::backend() and link the core without either backend.
#include <exception>
#include <memory>
#include <mutex>

#include "backend/backend.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "capture_guard.hpp"
#include "fork_guard.hpp"
#include "launch_profiler.hpp"
#include "nvtx_ranges.hpp"

namespace cudakit {
namespace detail {
namespace {

struct Slot {
  std::once_flag once;
  std::unique_ptr<Backend> instance;
  std::exception_ptr failure;
};

Slot& slot(BackendKind kind) {
  static Slot slots[2];
  return slots[kind == BackendKind::cuda ? 0 : 1];
}

}  // namespace

Backend& backend(BackendKind kind) {
  Slot& s = slot(kind);
  std::call_once(s.once, [&] {
    try {
      s.instance = kind == BackendKind::cuda ? make_cuda_backend() : make_cpu_backend();
      // With an NVTX tool attached, compiles and copies run inside ranges.
      if (nvtx_enabled()) s.instance = make_nvtx_backend(std::move(s.instance));
      // Outermost: a process forked after this point gets a clear error
      // from every call, never a hang on threads it does not have.
      s.instance = make_fork_guarded_backend(std::move(s.instance));
      // Around it: calls that would break an open stream capture are refused
      // first, and the capturing thread's default-stream work is captured.
      s.instance = make_capture_guarded_backend(std::move(s.instance));
      // CUDAKIT_PROFILE=1: the session starts with the first backend, and
      // its report (registered after the backend) runs at exit before it goes.
      start_environment_profile();
    } catch (...) {
      s.failure = std::current_exception();
    }
  });
  if (s.failure) std::rethrow_exception(s.failure);
  return *s.instance;
}

}  // namespace detail

}  // namespace cudakit
