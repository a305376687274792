// Kernel::occupancy: see include/cudakit/occupancy.hpp. The per-resource
// limits follow NVIDIA's occupancy calculator (registers allocated per warp
// in units of 256, shared memory with the per-block reservation); the
// resident block count itself is the driver's (or the CPU model's) answer.
#include "cudakit/occupancy.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <utility>

#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"

namespace cudakit {

std::string Occupancy::to_string() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "block %d: %d blocks (%d of %d warps, %.0f%%) per multiprocessor, limited by %s",
                block_size, active_blocks_per_multiprocessor, active_warps_per_multiprocessor,
                max_warps_per_multiprocessor, fraction * 100.0, limited_by.c_str());
  return buf;
}

Occupancy Kernel::occupancy(const Dim3& block, std::size_t dynamic_shared) const {
  const unsigned long long threads = block.volume();
  if (threads > static_cast<unsigned long long>(INT_MAX))
    throw ArgumentError("computing the occupancy of kernel " + name(),
                        "block " + block.to_string() + " has more threads than any device runs");
  return occupancy(static_cast<int>(threads), dynamic_shared);
}

Occupancy Kernel::occupancy(int block_size, std::size_t dynamic_shared) const {
  const Kernel& kernel = *this;
  const Device& device = kernel.device();
  const KernelAttributes a = kernel.attributes();
  if (block_size <= 0 || (a.max_threads_per_block > 0 && block_size > a.max_threads_per_block))
    throw ArgumentError("computing the occupancy of kernel " + kernel.name(),
                        "block size " + std::to_string(block_size) + " is not in 1.." +
                            std::to_string(a.max_threads_per_block),
                        "the kernel's limit is kernel.attributes().max_threads_per_block");
  const DeviceProperties& p = device.properties();
  const int warp = std::max(1, p.warp_size);
  Occupancy o;
  o.block_size = block_size;
  o.max_warps_per_multiprocessor = std::max(1, p.max_threads_per_multiprocessor / warp);
  const int warps_per_block = (block_size + warp - 1) / warp;
  o.limit_by_warps = o.max_warps_per_multiprocessor / warps_per_block;
  o.limit_by_blocks =
      p.max_blocks_per_multiprocessor > 0 ? p.max_blocks_per_multiprocessor : INT_MAX;
  // Registers are allocated per warp in units of 256.
  o.limit_by_registers = INT_MAX;
  const auto regs_per_sm = device.attribute(DeviceAttribute::max_registers_per_multiprocessor);
  if (a.registers > 0 && regs_per_sm > 0) {
    const long long per_warp = (static_cast<long long>(a.registers) * warp + 255) / 256 * 256;
    o.limit_by_registers = static_cast<int>(regs_per_sm / per_warp / warps_per_block);
  }
  // Shared memory per block, with what the system reserves per block.
  o.limit_by_shared_memory = INT_MAX;
  const std::size_t reserved = static_cast<std::size_t>(std::max<std::int64_t>(
      0, device.attribute(DeviceAttribute::reserved_shared_memory_per_block)));
  const std::size_t shared = a.static_shared_bytes + dynamic_shared;
  if (shared > 0 && p.shared_memory_per_multiprocessor > 0)
    o.limit_by_shared_memory =
        static_cast<int>(p.shared_memory_per_multiprocessor / (shared + reserved));
  o.active_blocks_per_multiprocessor =
      kernel.max_active_blocks_per_multiprocessor(block_size, dynamic_shared);
  o.active_warps_per_multiprocessor = o.active_blocks_per_multiprocessor * warps_per_block;
  o.fraction = double(o.active_warps_per_multiprocessor) / double(o.max_warps_per_multiprocessor);
  // The resource with the smallest limit; on a tie, the one users can change
  // most directly comes first.
  const std::pair<int, const char*> limits[] = {
      {o.limit_by_registers, "registers"},
      {o.limit_by_shared_memory, "shared memory"},
      {o.limit_by_warps, "threads (warps) per multiprocessor"},
      {o.limit_by_blocks, "blocks per multiprocessor"}};
  const auto* lowest =
      std::min_element(std::begin(limits), std::end(limits),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
  o.limited_by = lowest->second;
  return o;
}

}  // namespace cudakit
