// `cudakit info`: what cudakit sees on this machine, every value by name.
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli_support.hpp"
#include "commands/commands.hpp"
#include "cudakit/cudakit.hpp"
#include "probe/cuda_probe.hpp"

namespace cudakit::cli {
namespace {

void print_device(const Device& device) {
  const auto& p = device.properties();
  std::cout << "\n" << device.describe() << "\n";
  std::cout << "  name = " << p.name << "\n";
  std::cout << "  backend = " << to_string(device.backend_kind()) << "\n";
  std::cout << "  arch = " << device.arch() << "\n";
  std::cout << "  compute_capability = " << p.compute_major << "." << p.compute_minor << "\n";
  if (!p.pci_bus_id.empty()) std::cout << "  pci_bus_id = " << p.pci_bus_id << "\n";
  std::cout << "  total_memory = " << p.total_memory << " (" << format_bytes(p.total_memory)
            << ")\n";
  try {
    auto mem = device.memory_info();
    std::cout << "  free_memory = " << mem.free << " (" << format_bytes(mem.free) << ")\n";
  } catch (const Error& e) {
    std::cout << "  free_memory = unknown (" << e.message() << ")\n";
  }
  // The device limits of the tutorials' FAQ (printf buffer, per-thread
  // stack, device malloc heap); Device::set_limit changes them.
  try {
    std::cout << "  limits: printf_fifo_size = "
              << format_bytes(device.limit(ContextLimit::printf_fifo_size))
              << ", stack_size = " << format_bytes(device.limit(ContextLimit::stack_size))
              << " per thread, malloc_heap_size = "
              << format_bytes(device.limit(ContextLimit::malloc_heap_size)) << "\n";
  } catch (const Error& e) {
    std::cout << "  limits: unknown (" << e.message() << ")\n";
  }
  std::cout << "  attributes:\n";
  for (const auto& [name, value] : device.attributes())
    std::cout << "    " << name << " = " << value << "\n";
}

}  // namespace

int run_info() {
  std::cout << "cudakit "
            << "0.1.0"
            << "\n";
  const char* env = std::getenv("CUDAKIT_BACKEND");
  BackendKind chosen = default_backend_kind();
  std::cout << "backend = " << to_string(chosen)
            << (env && *env ? std::string(" (CUDAKIT_BACKEND=") + env + ")"
                            : std::string(" (automatic)"))
            << "\n";

  DriverProbe driver = probe_driver();
  if (driver.loaded)
    std::cout << "driver = " << driver.path << " (CUDA " << format_cuda_version(driver.version)
              << ")\n";
  else
    std::cout << "driver = not found (" << driver.load_error << ")\n";
  NvrtcProbe nvrtc = probe_nvrtc();
  if (nvrtc.loaded) {
    std::cout << "nvrtc = " << nvrtc.path << " (" << nvrtc.major << "." << nvrtc.minor << ")\n";
    std::cout << "nvrtc_archs = " << format_archs(nvrtc.archs) << "\n";
  } else {
    std::cout << "nvrtc = not found\n";
  }
  auto& cache = CompileCache::global();
  std::cout << "cache_dir = " << cache.directory().string()
            << (cache.enabled() ? "" : " (disabled)") << "\n";

  for (BackendKind kind : {BackendKind::cuda, BackendKind::cpu}) {
    int count = 0;
    try {
      count = Device::count(kind);
    } catch (const Error& e) {
      std::cout << "\n" << to_string(kind) << " backend: unavailable: " << e.message() << "\n";
      continue;
    }
    std::cout << "\n" << to_string(kind) << " backend: " << count << " device(s)\n";
    for (int i = 0; i < count; ++i) print_device(Device::get(kind, i));
  }
  return 0;
}

}  // namespace cudakit::cli
