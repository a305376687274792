// The one way to run a test on every backend.
//
// A test that must hold on each backend is written once, against
// test::OnBackend (or a fixture derived from it), and registered in CMake with
// cudakit_add_backend_test(NAME SOURCES ...). That builds one program and
// registers its tests once per backend:
//   NAME/cpu/Suite.Test   label unit, CUDAKIT_TEST_BACKEND=cpu (runs everywhere)
//   NAME/cuda/Suite.Test  label gpu,  CUDAKIT_TEST_BACKEND=cuda (skipped, with
//                         the reason, where there is no GPU)
// Sources of such tests live in tests/backends/; tests/unit/ holds tests
// labelled unit only and tests/gpu/ tests labelled gpu only.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"

namespace cudakit::test {

// The backend this run of the test program is for: CUDAKIT_TEST_BACKEND
// ("cpu" or "cuda", set by ctest for each registration); cpu when unset.
inline BackendKind backend_under_test() {
  const char* value = std::getenv("CUDAKIT_TEST_BACKEND");
  if (!value || !*value) return BackendKind::cpu;
  std::optional<BackendKind> kind = parse_backend_kind(value);
  if (!kind)
    throw std::invalid_argument(std::string("CUDAKIT_TEST_BACKEND='") + value +
                                "' is not a backend: use cpu or cuda");
  return *kind;
}

// Why the backend cannot run here, or nullopt when it can.
inline std::optional<std::string> backend_unavailable_reason(BackendKind kind) {
  if (backend_available(kind)) return std::nullopt;
  return "no " + std::string(to_string(kind)) +
         " device here (no NVIDIA driver or no GPU); runs on a machine with one";
}

// Device 0 of the backend under test, made current for each test; the test
// is skipped, with the reason, when the backend has no device here.
class OnBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = backend_unavailable_reason(backend())) GTEST_SKIP() << *why;
    device_.emplace(Device::get(backend(), 0));
    device_->make_current();
  }
  BackendKind backend() const { return backend_under_test(); }
  const Device& device() const { return *device_; }

 private:
  std::optional<Device> device_;
};

}  // namespace cudakit::test
