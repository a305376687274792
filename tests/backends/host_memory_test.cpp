// Page-locking memory cudakit did not allocate (HostRegistration), the
// device address of page-locked memory, and the cache preference of contexts
// and kernels, on every backend.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/cache_config.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/host_registration.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/module.hpp"
#include "cudakit/pinned_buffer.hpp"
#include "cudakit/program.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {
namespace {

using HostMemory = test::OnBackend;

std::vector<float> random_floats(std::size_t count) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> out(count);
  for (float& v : out) v = dist(rng);
  return out;
}

TEST_F(HostMemory, RegistrationIsCountedAndEndsOnce) {
  std::vector<float> host = random_floats(1001);
  const std::size_t before = live_host_registrations();
  {
    HostRegistration registration(host.data(), host.size() * sizeof(float));
    EXPECT_TRUE(registration.registered());
    EXPECT_EQ(live_host_registrations(), before + 1);
    registration.unregister();
    EXPECT_FALSE(registration.registered());
    EXPECT_EQ(live_host_registrations(), before);
    try {
      registration.unregister();
      FAIL() << "expected ArgumentError";
    } catch (const ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("already ended"), std::string::npos) << e.what();
    }
    EXPECT_THROW(registration.device_pointer(), ArgumentError);
  }
  {
    HostRegistration registration(host.data(), host.size() * sizeof(float));
    HostRegistration moved = std::move(registration);
    EXPECT_FALSE(registration.registered());
    EXPECT_EQ(live_host_registrations(), before + 1);
  }  // the destructor unregisters
  EXPECT_EQ(live_host_registrations(), before);
}

TEST_F(HostMemory, OverlappingRangesAndBadInputAreRefused) {
  std::vector<float> host(4096);
  HostRegistration registration(host.data(), host.size() * sizeof(float));
  EXPECT_THROW(HostRegistration(host.data(), 64), ArgumentError);
  EXPECT_THROW(HostRegistration(nullptr, 64), ArgumentError);
  EXPECT_THROW(HostRegistration(host.data(), 0), ArgumentError);
  std::vector<float> other(16);
  EXPECT_THROW(HostRegistration(other.data(), 64, 0x100), ArgumentError);
}

TEST_F(HostMemory, AsyncCopiesFromRegisteredMemoryRoundTrip) {
  const std::size_t count = 100003;
  std::vector<float> source = random_floats(count);
  std::vector<float> back(count, 0.0f);
  HostRegistration in(source.data(), count * sizeof(float));
  HostRegistration out(back.data(), count * sizeof(float));
  DeviceBuffer<float> device_copy(device(), count);
  Stream stream = device().create_stream();
  device_copy.copy_from_async(std::span<const float>(source), stream);
  device_copy.copy_to_async(std::span<float>(back), stream);
  stream.synchronize();
  EXPECT_EQ(back, source);
}

TEST_F(HostMemory, DeviceMappedRegistrationHasADeviceAddress) {
  std::vector<float> host = random_floats(257);
  HostRegistration registration(host.data(), host.size() * sizeof(float),
                                host_register_flags::device_map);
  EXPECT_NE(registration.device_pointer(), 0u);
  PinnedBuffer<float> pinned(33);
  EXPECT_NE(host_device_pointer(pinned.data()), 0u);
}

TEST_F(HostMemory, CachePreferencesReadBackAndBadValuesAreRefused) {
  const CachePreference old_preference = device().cache_preference();
  device().set_cache_preference(CachePreference::prefer_shared);
  EXPECT_EQ(device().cache_preference(), CachePreference::prefer_shared);
  device().set_cache_preference(old_preference);
  device().set_shared_memory_bank_size(SharedMemoryBankSize::four_bytes);
  if (backend() == BackendKind::cpu) {  // a GPU with fixed banks may report its own
    EXPECT_EQ(device().shared_memory_bank_size(), SharedMemoryBankSize::four_bytes);
  }
  device().set_shared_memory_bank_size(SharedMemoryBankSize::default_size);
  EXPECT_THROW(cache_preference_from_int(4, "test"), ArgumentError);
  EXPECT_THROW(shared_memory_bank_size_from_int(-1, "test"), ArgumentError);

  Module module = compile(
      "__global__ void scale(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; }", {},
      device());
  Kernel kernel = module.kernel("scale");
  EXPECT_EQ(kernel.cache_preference(), CachePreference::prefer_none);
  kernel.set_cache_preference(CachePreference::prefer_l1);
  EXPECT_EQ(kernel.cache_preference(), CachePreference::prefer_l1);
  for (int percent : {-1, 0, 50, 100}) kernel.set_shared_memory_carveout(percent);
  EXPECT_THROW(kernel.set_shared_memory_carveout(101), ArgumentError);
  EXPECT_THROW(kernel.set_shared_memory_carveout(-2), ArgumentError);
}

}  // namespace
}  // namespace cudakit
