// Errors waiting for a stream's next synchronize: the CUDA backend's
// equivalent of the CPU backend's stream errors, for failures the driver
// does not see. The NCCL watchdog (nccl_watchdog.hpp) files one for each
// stream whose collective it aborted (the aborted kernels end without an
// error, so the stream alone would look fine); the synchronize of that
// stream, or of its device, takes it and throws it (a query says done and
// leaves it, as on the CPU backend). Checking costs one atomic load while
// none is filed.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <utility>

#include "backend/backend.hpp"

namespace cudakit::detail {

class StreamFaults {
 public:
  // Files `error` for `stream` of device `ordinal`; a stream keeps its first.
  // (The default stream's handle is the same on every device: the ordinal
  // tells them apart.)
  void file(NativeStream stream, int ordinal, std::exception_ptr error);
  // Throws (and forgets) the error filed for `stream` of `ordinal` (-1: of
  // any device, for a stream handle that is the device's own), if any.
  void take(NativeStream stream, int ordinal);
  // Throws (and forgets) the first error filed for a stream of `ordinal`;
  // the others stay filed for their streams.
  void take_on_device(int ordinal);
  // Drops what was filed for a stream being destroyed (its handle may be reused).
  void forget(NativeStream stream) noexcept;
  std::size_t size() const noexcept { return count_.load(std::memory_order_acquire); }

 private:
  std::atomic<std::size_t> count_{0};
  std::mutex mutex_;
  std::map<std::pair<NativeStream, int>, std::exception_ptr> faults_;
};

}  // namespace cudakit::detail
