// What a Kernel handle shares: the resolved symbol, its checked parameter
// layout, and the limits a launch is validated against, copied out of the
// device properties once so the launch path reads plain fields.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/module.hpp"

namespace cudakit {

struct Kernel::State {
  Module module;
  Device device;
  detail::Backend* backend = nullptr;
  detail::NativeKernel native = nullptr;
  std::string name;    // as asked for
  std::string symbol;  // as in the compiled code
  ParamLayout params;
  // For each parameter declared as an ArrayView, its element dtype name
  // ("float32"; empty otherwise or when unknown): what a launch compares an
  // array argument's element type with, parsed once here.
  std::vector<std::string> view_dtypes;
  // For each parameter, the argument type name (KernelArgs' static text,
  // so one address is one text) last found to fit its ArrayView element
  // type: a launch passing that name again skips the comparison.
  mutable std::unique_ptr<std::atomic<const char*>[]> fitting_view_types;

  // Launch limits; 0 means the backend did not report the value (not checked).
  unsigned max_threads_per_block = 0;         // the device's
  unsigned kernel_max_threads_per_block = 0;  // the kernel's (registers, __launch_bounds__)
  Dim3 max_block_dim{0, 0, 0};
  Dim3 max_grid_dim{0, 0, 0};
  std::size_t static_shared_bytes = 0;
  std::size_t shared_per_block = 0;  // without opt-in
  std::size_t shared_per_block_optin = 0;
  // Dynamic shared memory allowed after set_max_dynamic_shared_memory; 0 until then.
  mutable std::atomic<std::size_t> max_dynamic_shared_bytes{0};
  // As last set through set_cache_preference (the driver has no getter).
  mutable std::atomic<CachePreference> cache_preference{CachePreference::prefer_none};

  explicit State(Module m) : module(std::move(m)), device(module.device()) {}
};

namespace detail {
// Kernel's constructor and state, for the core; not public API.
struct KernelAccess {
  static Kernel make(std::shared_ptr<const Kernel::State> state) {
    return Kernel(std::move(state));
  }
  static const Kernel::State& state(const Kernel& kernel) noexcept { return *kernel.state_; }
};
}  // namespace detail

}  // namespace cudakit
