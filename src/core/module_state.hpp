// What a Module handle shares: the loaded code and the kernels found in it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/module.hpp"
#include "kernel_signature_scanner.hpp"

namespace cudakit {

struct Module::State {
  Device device;
  detail::Backend* backend = nullptr;
  detail::NativeModule native = nullptr;  // unloaded with the state
  CompiledCode code;
  std::string source;  // as compiled (after extern "C" wrapping)

  // Filled on first use, under `mutex`.
  std::mutex mutex;
  std::optional<std::vector<std::string>> symbols;
  std::optional<std::vector<detail::KernelSignature>> signatures;
  // Weak: a kernel holds its module, so a strong entry would keep both alive forever.
  std::unordered_map<std::string, std::weak_ptr<const Kernel::State>> kernels;

  State(Device d, detail::Backend* b) : device(std::move(d)), backend(b) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    if (native) backend->unload_module(native);
  }
};

namespace detail {
// The constructors the compile path and the tests use; not public API.
struct ModuleAccess {
  static Module from_state(std::shared_ptr<Module::State> state) {
    return Module(std::move(state));
  }
  // Loads `code` and keeps the source it was compiled from (Module::source()).
  static Module load_with_source(const CompiledCode& code, const Device& device,
                                 std::string source);
};
}  // namespace detail

}  // namespace cudakit
