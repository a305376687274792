// The fixture of the GPU-only array tests: CUDA device 0, current for the
// test; the test is skipped (with the reason) where there is no CUDA device.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"
#include "cudakit/stream.hpp"

namespace cudakit_test {

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cudakit::backend_available(cudakit::BackendKind::cuda))
      GTEST_SKIP() << "no CUDA device (driver or GPU missing)";
    device_.emplace(cudakit::Device::get(cudakit::BackendKind::cuda, 0));
    scope_.emplace(*device_);
  }
  cudakit::Stream stream() const { return device_->default_stream(); }
  std::optional<cudakit::Device> device_;
  std::optional<cudakit::DeviceScope> scope_;
};

}  // namespace cudakit_test
