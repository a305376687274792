// RelaxedCaptureMode: memory calls in the relaxed stream-capture mode.
#pragma once

#include <cuda.h>

#include "platform/cuda_driver.hpp"

namespace cudakit::detail {

// Allocating and freeing are "potentially unsafe" calls for a stream capture
// in the global or thread-local mode: the driver refuses them and invalidates
// the capture. A memory pool that grows inside a capture (or frees what the
// graph no longer holds) is legitimate, so these calls run in the relaxed
// mode on this thread while this object lives, as PyTorch's caching
// allocator does. A driver without the entry point is left as it is.
class RelaxedCaptureMode {
 public:
  explicit RelaxedCaptureMode(const CudaDriver& driver)
      : exchange_(driver.cuThreadExchangeStreamCaptureMode) {
    if (exchange_ && exchange_(&mode_) != CUDA_SUCCESS) exchange_ = nullptr;
  }
  ~RelaxedCaptureMode() {
    if (exchange_) exchange_(&mode_);
  }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  decltype(CudaDriver::cuThreadExchangeStreamCaptureMode) exchange_;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

}  // namespace cudakit::detail
