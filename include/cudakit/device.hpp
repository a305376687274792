// A GPU (or the CPU backend's one device) and its primary context. Devices
// are cheap values; the primary context is retained on first use and made
// current whenever cudakit works on the device, so cudakit shares one
// context with PyTorch, CuPy and Numba.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cudakit/backend_kind.hpp"
#include "cudakit/cache_config.hpp"
#include "cudakit/device_attribute.hpp"
#include "cudakit/device_properties.hpp"

namespace cudakit {

class Stream;
class Event;

class Device {
 public:
  // Number of devices of the default backend (or of `kind`).
  static int count();
  static int count(BackendKind kind);
  // Device `ordinal` of the default backend; ArgumentError when out of range
  // (the message says how many there are).
  static Device get(int ordinal);
  static Device get(BackendKind kind, int ordinal);
  // The device current on this thread (device 0 of the default backend if
  // none was made current).
  static Device current();

  BackendKind backend_kind() const noexcept { return kind_; }
  int ordinal() const noexcept { return ordinal_; }

  // Read once per device and kept.
  const DeviceProperties& properties() const;
  const std::string& name() const { return properties().name; }
  std::pair<int, int> compute_capability() const;
  // "sm_90" on a GPU, "cpu" on the CPU backend.
  std::string arch() const;
  std::size_t total_memory() const { return properties().total_memory; }
  MemoryInfo memory_info() const;
  std::int64_t attribute(DeviceAttribute attribute) const;
  // By name, e.g. "MAX_THREADS_PER_BLOCK"; ArgumentError for unknown names.
  std::int64_t attribute(std::string_view name) const;
  // Every attribute the backend reports, by name.
  std::vector<std::pair<std::string, std::int64_t>> attributes() const;
  const std::string& pci_bus_id() const { return properties().pci_bus_id; }
  // Whether kernels on this device can access `peer`'s memory directly
  // (cuDeviceCanAccessPeer): false for the device itself and for a device of
  // another backend; true between the CPU backend's devices (one host).
  bool can_access_peer(const Device& peer) const;

  // Makes the primary context current on this thread.
  void make_current() const;
  void synchronize() const;
  std::size_t limit(ContextLimit which) const;
  void set_limit(ContextLimit which, std::size_t value) const;
  // The primary context's L1 / shared memory preference and shared memory
  // bank size (hints: cache_config.hpp); they read back as last set.
  void set_cache_preference(CachePreference preference) const;
  CachePreference cache_preference() const;
  void set_shared_memory_bank_size(SharedMemoryBankSize size) const;
  SharedMemoryBankSize shared_memory_bank_size() const;

  // The device's default (legacy) stream, and new streams.
  Stream default_stream() const;
  Stream create_stream(bool non_blocking = true) const;
  Event create_event(bool timing = true) const;

  friend bool operator==(const Device&, const Device&) = default;
  // "device 0 (NVIDIA H200, sm_90)"
  std::string describe() const;

 private:
  Device(BackendKind kind, int ordinal) : kind_(kind), ordinal_(ordinal) {}
  BackendKind kind_;
  int ordinal_;
};

// Makes a device current for a scope and restores the previous one.
class DeviceScope {
 public:
  explicit DeviceScope(const Device& device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device previous_;
};

// Free and total memory of the current device.
MemoryInfo mem_get_info();

}  // namespace cudakit
