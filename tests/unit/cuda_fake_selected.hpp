// For tests of the CUDA backend over the scripted libcuda (cuda_fake_driver):
// the process-wide driver loader reads CUDAKIT_LIBCUDA on first use, so the
// fake is selected before any test runs, and fake_control() reaches its
// control block (the same file dlopen-ed again). The test target defines
// CUDAKIT_TEST_FAKE_LIBCUDA as the fake's path.
#pragma once

#include <dlfcn.h>
#include <stdlib.h>

#include <stdexcept>

#include "unit/cuda_fake_driver.hpp"

namespace cudakit::test {

inline const bool fake_libcuda_selected = [] {
  ::setenv("CUDAKIT_LIBCUDA", CUDAKIT_TEST_FAKE_LIBCUDA, 1);
  return true;
}();

inline FakeCudaControl& fake_control() {
  static FakeCudaControl* control = [] {
    void* handle = ::dlopen(CUDAKIT_TEST_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(::dlerror());
    auto get = reinterpret_cast<FakeCudaControl* (*)()>(::dlsym(handle, "fake_cuda_control"));
    return get();
  }();
  return *control;
}

}  // namespace cudakit::test
