// The CPU backend's devices: CUDAKIT_CPU_DEVICES virtual devices (default
// one), all made of the same host cores and memory, each with what a GPU
// keeps per device: its ordinal, name, PCI bus id, legacy default stream,
// context limits and cache configuration. They let multi-device code
// (per-device contexts, pools and streams, switching the current device)
// run without several GPUs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/cpu/cpu_stream.hpp"
#include "cudakit/cache_config.hpp"
#include "cudakit/device_attribute.hpp"
#include "cudakit/device_properties.hpp"

namespace cudakit::detail::cpu {

// As many as the CUDA backend handles.
inline constexpr int kMaxCpuDevices = 64;

// CUDAKIT_CPU_DEVICES (1 to kMaxCpuDevices), read once per process; any
// other value is reported on stderr once and 1 is used.
int configured_device_count();

// CUDAKIT_CPU_VISIBLE_DEVICES: which of the configured virtual devices this
// process sees, in order ("1": its device 0 is virtual device 1), as
// CUDA_VISIBLE_DEVICES does on a GPU, so one process per device can be
// started (Dask workers). Unset: all of them. A list naming a device that is
// not configured is reported on stderr once and all devices are used.
std::vector<int> visible_devices();

// What device `ordinal` of `count` reports: the one-device name is
// "cudakit CPU backend (<cpu model>, T threads)"; with several,
// "cudakit CPU device K of N (<cpu model>, T threads)". The PCI bus id is
// "ffff:00:KK.0": a domain no real device has, distinct per device.
DeviceProperties cpu_device_properties(int ordinal, int count, unsigned threads);

// Attribute `a` of device `ordinal` with properties `p`, as a GPU reports it
// (0 for what the CPU has no notion of).
std::int64_t cpu_device_attribute(const DeviceProperties& p, int ordinal, DeviceAttribute a);

// The state a GPU keeps per device (per primary context).
struct CpuDevice {
  explicit CpuDevice(int ordinal, DeviceProperties props)
      : properties(std::move(props)), null_stream(std::make_shared<CpuStream>(false, ordinal)) {}

  DeviceProperties properties;
  std::shared_ptr<CpuStream> null_stream;  // the legacy default stream
  // stack_size, printf_fifo_size, malloc_heap_size: CUDA's defaults.
  // CUDA's defaults (cuCtxGetLimit on a fresh context of an H200).
  std::atomic<std::size_t> limits[kContextLimitCount] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
  std::atomic<CachePreference> cache_preference{CachePreference::prefer_none};
  std::atomic<SharedMemoryBankSize> bank_size{SharedMemoryBankSize::default_size};
};

}  // namespace cudakit::detail::cpu
