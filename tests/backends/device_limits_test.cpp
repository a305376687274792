// The context limits of the tutorials' FAQ (printf FIFO, per-thread stack,
// device malloc heap) through Device::limit / set_limit on every backend:
// CUDA's defaults, and a value set is read back (a GPU may round up).
#include <gtest/gtest.h>

#include <cstddef>

#include "backend_fixture.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit::test {
namespace {

class DeviceLimits : public OnBackend {};

// CUDA documents 1 MiB and 8 MiB; a driver may give more (an H200's printf
// buffer starts at 8.25 MiB). The CPU backend gives the documented values.
TEST_F(DeviceLimits, DefaultsAreCudas) {
  EXPECT_GE(device().limit(ContextLimit::printf_fifo_size), std::size_t(1) << 20);
  EXPECT_GE(device().limit(ContextLimit::malloc_heap_size), std::size_t(8) << 20);
  if (device().backend_kind() == BackendKind::cpu) {
    EXPECT_EQ(device().limit(ContextLimit::printf_fifo_size), std::size_t(1) << 20);
    EXPECT_EQ(device().limit(ContextLimit::malloc_heap_size), std::size_t(8) << 20);
  }
  EXPECT_GE(device().limit(ContextLimit::stack_size), 1024u);
}

TEST_F(DeviceLimits, SetValuesReadBack) {
  for (ContextLimit which :
       {ContextLimit::printf_fifo_size, ContextLimit::stack_size, ContextLimit::malloc_heap_size}) {
    const std::size_t saved = device().limit(which);
    const std::size_t wanted = saved * 2;
    device().set_limit(which, wanted);
    EXPECT_GE(device().limit(which), wanted) << static_cast<int>(which);
    EXPECT_LT(device().limit(which), wanted + 4096) << static_cast<int>(which);
    device().set_limit(which, saved);
    EXPECT_EQ(device().limit(which), saved) << static_cast<int>(which);
  }
}

}  // namespace
}  // namespace cudakit::test
