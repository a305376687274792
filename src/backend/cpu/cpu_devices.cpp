#include "backend/cpu/cpu_devices.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "backend/cpu/cpu_module.hpp"
#include "backend/cpu/device_memory.hpp"

namespace cudakit::detail::cpu {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string model = line.substr(colon + 1);
        while (!model.empty() && model.front() == ' ') model.erase(model.begin());
        return model;
      }
    }
  }
  return "unknown CPU";
}

}  // namespace

int configured_device_count() {
  static const int count = [] {
    const char* v = std::getenv("CUDAKIT_CPU_DEVICES");
    if (!v || !*v) return 1;
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(v, &end, 10);
    if (errno == 0 && end != v && *end == '\0' && n >= 1 && n <= kMaxCpuDevices)
      return static_cast<int>(n);
    // Read once per process (a static), so the warning is printed once.
    std::fprintf(stderr,
                 "cudakit: warning: CUDAKIT_CPU_DEVICES='%s' is not a device count from 1 to "
                 "%d; using 1 device\n",
                 v, kMaxCpuDevices);
    return 1;
  }();
  return count;
}

std::vector<int> visible_devices() {
  static const std::vector<int> visible = [] {
    const int count = configured_device_count();
    std::vector<int> all;
    for (int i = 0; i < count; ++i) all.push_back(i);
    const char* v = std::getenv("CUDAKIT_CPU_VISIBLE_DEVICES");
    if (!v || !*v) return all;
    std::vector<int> list;
    const char* p = v;
    while (true) {
      char* end = nullptr;
      errno = 0;
      const long n = std::strtol(p, &end, 10);
      if (errno != 0 || end == p || n < 0 || n >= count) break;
      list.push_back(static_cast<int>(n));
      if (*end == '\0') return list;
      if (*end != ',') break;
      p = end + 1;
    }
    std::fprintf(stderr,
                 "cudakit: warning: CUDAKIT_CPU_VISIBLE_DEVICES='%s' is not a comma-separated "
                 "list of virtual device ordinals below CUDAKIT_CPU_DEVICES=%d; using all "
                 "devices\n",
                 v, count);
    return all;
  }();
  return visible;
}

DeviceProperties cpu_device_properties(int ordinal, int count, unsigned threads) {
  DeviceProperties p;
  const std::string where = cpu_model() + ", " + std::to_string(threads) + " threads";
  p.name = count == 1 ? "cudakit CPU backend (" + where + ")"
                      : "cudakit CPU device " + std::to_string(ordinal) + " of " +
                            std::to_string(count) + " (" + where + ")";
  char bus[16];
  std::snprintf(bus, sizeof bus, "ffff:00:%02x.0", static_cast<unsigned>(ordinal) & 0xffu);
  p.pci_bus_id = bus;
  p.compute_major = 0;
  p.compute_minor = 0;
  p.total_memory = configured_memory_limit();  // what memory_info reports as total
  p.multiprocessor_count = static_cast<int>(threads);
  p.max_threads_per_block = 1024;
  p.max_block_dim = Dim3(1024, 1024, 64);
  p.max_grid_dim = Dim3(2147483647u, 65535, 65535);
  p.shared_memory_per_block = kStaticSharedLimit;
  p.shared_memory_per_block_optin = kOptInSharedLimit;
  p.shared_memory_per_multiprocessor = 228 * 1024;
  p.registers_per_block = 65536;
  p.warp_size = 32;
  p.max_threads_per_multiprocessor = 2048;
  p.max_blocks_per_multiprocessor = 32;
  p.l2_cache_bytes = 0;
  p.async_engine_count = 1;
  p.unified_addressing = true;
  p.concurrent_kernels = true;
  return p;
}

std::int64_t cpu_device_attribute(const DeviceProperties& p, int ordinal, DeviceAttribute a) {
  switch (a) {
    case DeviceAttribute::max_threads_per_block:
      return p.max_threads_per_block;
    case DeviceAttribute::max_block_dim_x:
      return p.max_block_dim.x;
    case DeviceAttribute::max_block_dim_y:
      return p.max_block_dim.y;
    case DeviceAttribute::max_block_dim_z:
      return p.max_block_dim.z;
    case DeviceAttribute::max_grid_dim_x:
      return p.max_grid_dim.x;
    case DeviceAttribute::max_grid_dim_y:
      return p.max_grid_dim.y;
    case DeviceAttribute::max_grid_dim_z:
      return p.max_grid_dim.z;
    case DeviceAttribute::max_shared_memory_per_block:
      return static_cast<std::int64_t>(p.shared_memory_per_block);
    case DeviceAttribute::max_shared_memory_per_block_optin:
      return static_cast<std::int64_t>(p.shared_memory_per_block_optin);
    case DeviceAttribute::max_shared_memory_per_multiprocessor:
      return static_cast<std::int64_t>(p.shared_memory_per_multiprocessor);
    case DeviceAttribute::total_constant_memory:
      return 64 * 1024;
    case DeviceAttribute::warp_size:
      return p.warp_size;
    case DeviceAttribute::max_registers_per_block:
      return p.registers_per_block;
    case DeviceAttribute::multiprocessor_count:
      return p.multiprocessor_count;
    case DeviceAttribute::max_threads_per_multiprocessor:
      return p.max_threads_per_multiprocessor;
    case DeviceAttribute::max_blocks_per_multiprocessor:
      return p.max_blocks_per_multiprocessor;
    case DeviceAttribute::compute_capability_major:
      return p.compute_major;
    case DeviceAttribute::compute_capability_minor:
      return p.compute_minor;
    case DeviceAttribute::unified_addressing:
      return 1;
    case DeviceAttribute::concurrent_kernels:
      return 1;
    case DeviceAttribute::async_engine_count:
      return p.async_engine_count;
    case DeviceAttribute::can_map_host_memory:
      return 1;
    case DeviceAttribute::integrated:
      return 1;
    case DeviceAttribute::managed_memory:
      return 1;
    case DeviceAttribute::pageable_memory_access:
      return 1;
    case DeviceAttribute::host_native_atomic_supported:
      return 1;
    // As in the PCI bus id "ffff:00:KK.0".
    case DeviceAttribute::pci_domain_id:
      return 0xffff;
    case DeviceAttribute::pci_bus_id:
      return 0;
    case DeviceAttribute::pci_device_id:
      return ordinal;
    default:
      return 0;
  }
}

}  // namespace cudakit::detail::cpu
