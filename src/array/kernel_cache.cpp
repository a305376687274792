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

std::uint64_t array_kernel_launches() noexcept {
  return g_launches.load(std::memory_order_relaxed);
}

void note_array_launch() noexcept { g_launches.fetch_add(1, std::memory_order_relaxed); }

void ArgPack::push_pointer(std::uint64_t address) {
  push_raw(ParamKind::pointer, ScalarType::unknown, &address, sizeof(address), "Array");
}

void ArgPack::push_aggregate(const void* bytes, std::size_t size) {
  push_raw(ParamKind::aggregate, ScalarType::unknown, bytes, size, "struct");
}

void ArgPack::push_raw(ParamKind kind, ScalarType scalar, const void* bytes, std::size_t size,
                       const char* type_name) {
  ArgInfo info;
  info.kind = kind;
  info.scalar = scalar;
  info.size = size;
  info.type_name = type_name;
  infos_.push_back(info);
  // Keep every value 16-byte aligned in the byte store.
  std::size_t at = (bytes_.size() + 15) & ~std::size_t{15};
  bytes_.resize(at + size);
  std::memcpy(bytes_.data() + at, bytes, size);
  offsets_.push_back(at);
}

void ArgPack::append(const ArgPack& other) {
  for (std::size_t k = 0; k < other.infos_.size(); ++k) {
    const ArgInfo& a = other.infos_[k];
    push_raw(a.kind, a.scalar, other.bytes_.data() + other.offsets_[k], a.size, a.type_name);
  }
}

void ArgPack::launch(const Kernel& kernel, const LaunchConfig& config) const {
  std::vector<const void*> values(infos_.size() + 1);
  std::vector<std::uint64_t> slots(infos_.size() + 1, 0);
  for (std::size_t k = 0; k < infos_.size(); ++k) values[k] = bytes_.data() + offsets_[k];
  launch_checked(kernel, config, std::span<const ArgInfo>(infos_), values.data(), slots.data());
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
