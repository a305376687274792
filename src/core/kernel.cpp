#include "cudakit/kernel.hpp"

#include <string>

#include "cudakit/error.hpp"
#include "kernel_state.hpp"

namespace cudakit {

const std::string& Kernel::name() const { return state_->name; }
const std::string& Kernel::symbol() const { return state_->symbol; }
const ParamLayout& Kernel::params() const { return state_->params; }
const Device& Kernel::device() const { return state_->device; }
const Module& Kernel::module() const { return state_->module; }
void* Kernel::native() const { return state_->native; }

KernelAttributes Kernel::attributes() const {
  return state_->backend->kernel_attributes(state_->native);
}

int Kernel::max_active_blocks_per_multiprocessor(int block_size, std::size_t dynamic_shared) const {
  if (block_size <= 0)
    throw ArgumentError("computing the occupancy of kernel " + state_->name,
                        "block size " + std::to_string(block_size) + " is not positive");
  return state_->backend->max_active_blocks_per_multiprocessor(state_->native, block_size,
                                                               dynamic_shared);
}

long long Kernel::max_cooperative_grid_blocks(int block_size, std::size_t dynamic_shared) const {
  if (block_size <= 0)
    throw ArgumentError("computing the largest cooperative grid of kernel " + state_->name,
                        "block size " + std::to_string(block_size) + " is not positive");
  return state_->backend->max_cooperative_grid_blocks(state_->device.ordinal(), state_->native,
                                                      block_size, dynamic_shared);
}

std::pair<int, int> Kernel::suggest_block_size(std::size_t dynamic_shared) const {
  return state_->backend->suggest_block_size(state_->native, dynamic_shared);
}

void Kernel::set_max_dynamic_shared_memory(std::size_t bytes) const {
  const State& k = *state_;
  if (k.shared_per_block_optin != 0 && bytes + k.static_shared_bytes > k.shared_per_block_optin) {
    auto allowed = k.shared_per_block_optin > k.static_shared_bytes
                       ? k.shared_per_block_optin - k.static_shared_bytes
                       : 0;
    throw LaunchConfigError(
        "raising the dynamic shared memory of kernel " + k.name + " on " + k.device.describe(),
        "max dynamic shared memory per block (opt-in)", static_cast<long long>(bytes),
        static_cast<long long>(allowed),
        "the device allows " + std::to_string(k.shared_per_block_optin) +
            " bytes of shared memory per block in all, and the kernel uses " +
            std::to_string(k.static_shared_bytes) + " statically; use smaller tiles");
  }
  k.backend->set_max_dynamic_shared_memory(k.native, bytes);
  k.max_dynamic_shared_bytes.store(bytes, std::memory_order_relaxed);
}

}  // namespace cudakit
