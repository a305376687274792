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
#include "launch_profiler.hpp"

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
      if (launch_profiling_enabled()) s.instance = make_profiling_backend(std::move(s.instance));
    } catch (...) {
      s.failure = std::current_exception();
    }
  });
  if (s.failure) std::rethrow_exception(s.failure);
  return *s.instance;
}

}  // namespace detail

}  // namespace cudakit
