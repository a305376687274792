// Run-time built kernel arguments, the in-process cache of generated array
// kernels, and the launch counter the fusion tests read.
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "array/elementwise_eval.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/program.hpp"

namespace cudakit::detail {
namespace {
std::atomic<std::uint64_t> g_launches{0};
}

void note_array_launch() noexcept { g_launches.fetch_add(1, std::memory_order_relaxed); }

void ArgPack::push_pointer(std::uint64_t address) { args_.pointer(address, "Array"); }

void ArgPack::push_aggregate(const void* bytes, std::size_t size) {
  args_.aggregate(bytes, size, "struct");
}

void ArgPack::push_raw(ParamKind kind, ScalarType scalar, const void* bytes, std::size_t size,
                       const char* type_name) {
  ArgInfo info;
  info.kind = kind;
  info.scalar = scalar;
  info.size = size;
  info.type_name = type_name;
  args_.add(info, bytes);
}

void ArgPack::append(const ArgPack& other) { args_.append(other.args_); }

void ArgPack::launch(const Kernel& kernel, const LaunchConfig& config) const {
  kernel.launch(config, args_);
  note_array_launch();
}

Kernel cached_kernel(const Device& device, const std::string& key, const std::string& kernel_name,
                     const std::function<std::string()>& make_source) {
  using Key = std::tuple<int, int, std::string>;
  static std::mutex mutex;
  static std::map<Key, Kernel> cache;
  Key k{static_cast<int>(device.backend_kind()), device.ordinal(), key};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(k); it != cache.end()) return it->second;
  }
  // Compile outside the lock: another thread may compile the same kernel,
  // and the compile cache makes the second one cheap.
  CompileOptions options;
  options.no_extern_c = true;  // the prelude has overloads and templates
  Module module = compile(make_source(), options, device);
  Kernel kernel = module.kernel(kernel_name);
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(k, kernel).first->second;
}

}  // namespace cudakit::detail

namespace cudakit {
std::uint64_t array_kernel_launches() noexcept {
  return detail::g_launches.load(std::memory_order_relaxed);
}
}  // namespace cudakit
