// The fixture of the tests that compile the array layer's generated kernels
// for a GPU (sm_90) with NVRTC: the operations run on the CPU backend, every
// source they generate is collected, and compile_all_for_gpu() compiles each
// one for sm_90, so GPU-only compile errors show up without a GPU.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "array/reduce_source_hook.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "cudakit/stream.hpp"

namespace cudakit_test {

class KernelsForGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cudakit::detail::set_source_observer(
        [this](const std::string& name, const std::string& source) {
          sources_[name + " #" + std::to_string(sources_.size())] = source;
        });
  }
  void TearDown() override { cudakit::detail::set_source_observer({}); }

  // Compiles every source collected (and `extra`) for sm_90.
  void compile_all_for_gpu(const std::map<std::string, std::string>& extra = {}) {
    auto all = sources_;
    all.insert(extra.begin(), extra.end());
    ASSERT_FALSE(all.empty());
    cudakit::CompileOptions options;
    options.arch = "sm_90";
    options.use_cache = false;
    options.no_extern_c = true;  // as the array layer compiles: the prelude has overloads
    for (const auto& [name, source] : all) {
      SCOPED_TRACE(name);
      try {
        (void)cudakit::compile_only(source, options, cudakit::BackendKind::cuda);
      } catch (const cudakit::NvrtcNotFound& e) {
        GTEST_SKIP() << "NVRTC is not installed: " << e.what();
      } catch (const cudakit::CompileError& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }

  bool any_source_has(const std::string& text) const {
    for (const auto& [name, source] : sources_)
      if (source.find(text) != std::string::npos) return true;
    return false;
  }

  cudakit::Device device = cudakit::Device::get(cudakit::BackendKind::cpu, 0);
  cudakit::DeviceScope scope{device};
  cudakit::Stream stream = device.default_stream();
  std::map<std::string, std::string> sources_;
};

}  // namespace cudakit_test
