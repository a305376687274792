#include "cudakit/device.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/memory_pool.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {
namespace {

// The device made current on this thread through cudakit.
thread_local std::optional<Device> t_current;

// Properties are read once per device and never freed, so references handed
// out stay valid for the life of the process.
const DeviceProperties& cached_properties(BackendKind kind, int ordinal) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::pair<BackendKind, int>, std::unique_ptr<DeviceProperties>>;
  std::lock_guard lock(mutex);
  auto& slot = (*cache)[{kind, ordinal}];
  if (!slot) slot = std::make_unique<DeviceProperties>(detail::backend(kind).properties(ordinal));
  return *slot;
}

}  // namespace

int Device::count() { return count(default_backend_kind()); }
int Device::count(BackendKind kind) { return detail::backend(kind).device_count(); }

Device Device::get(int ordinal) { return get(default_backend_kind(), ordinal); }

Device Device::get(BackendKind kind, int ordinal) {
  int n = count(kind);
  if (ordinal < 0 || ordinal >= n)
    throw ArgumentError(
        "getting " + std::string(to_string(kind)) + " device " + std::to_string(ordinal),
        "no such device: the " + std::string(to_string(kind)) + " backend has " +
            std::to_string(n) + (n == 1 ? " device" : " devices"),
        n == 0 ? "no device is visible; check the driver with `cudakit doctor`"
               : "use an ordinal from 0 to " + std::to_string(n - 1) +
                     (kind == BackendKind::cpu
                          ? " (CUDAKIT_CPU_DEVICES=N makes the CPU backend present N devices)"
                          : ""));
  return Device(kind, ordinal);
}

Device Device::current() {
  if (t_current) return *t_current;
  BackendKind kind = default_backend_kind();
  // A context made current by someone else (PyTorch, CuPy) decides the device.
  return Device(kind, detail::backend(kind).current_device());
}

namespace detail {
Backend& backend_of(const Device& device) { return backend(device.backend_kind()); }
}  // namespace detail

const DeviceProperties& Device::properties() const { return cached_properties(kind_, ordinal_); }

std::pair<int, int> Device::compute_capability() const {
  const auto& p = properties();
  return {p.compute_major, p.compute_minor};
}

std::string Device::arch() const {
  if (kind_ == BackendKind::cpu) return "cpu";
  const auto& p = properties();
  return "sm_" + std::to_string(p.compute_major) + std::to_string(p.compute_minor);
}

MemoryInfo Device::memory_info() const { return detail::backend(kind_).memory_info(ordinal_); }

std::int64_t Device::attribute(DeviceAttribute which) const {
  return detail::backend(kind_).attribute(ordinal_, which);
}

std::int64_t Device::attribute(std::string_view name) const {
  auto parsed = parse_device_attribute(name);
  if (!parsed)
    throw ArgumentError("reading an attribute of " + describe(),
                        "unknown device attribute '" + std::string(name) + "'",
                        "use a CUDA attribute name such as \"MAX_THREADS_PER_BLOCK\" or "
                        "\"CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT\"; Device::attributes() lists "
                        "them all");
  return attribute(*parsed);
}

std::vector<std::pair<std::string, std::int64_t>> Device::attributes() const {
  std::vector<std::pair<std::string, std::int64_t>> out;
  auto& b = detail::backend(kind_);
  for (const auto& entry : device_attribute_names()) {
    try {
      out.emplace_back(std::string(entry.name), b.attribute(ordinal_, entry.attribute));
    } catch (const Error&) {
      // Attributes newer than the driver are not reported.
    }
  }
  return out;
}

bool Device::can_access_peer(const Device& peer) const {
  if (peer.kind_ != kind_) return false;
  return detail::backend(kind_).can_access_peer(ordinal_, peer.ordinal_);
}

void Device::make_current() const {
  detail::backend(kind_).make_current(ordinal_);
  t_current = *this;
}

void Device::synchronize() const { detail::backend(kind_).synchronize(ordinal_); }

std::size_t Device::limit(ContextLimit which) const {
  return detail::backend(kind_).limit(ordinal_, which);
}

void Device::set_limit(ContextLimit which, std::size_t value) const {
  detail::backend(kind_).set_limit(ordinal_, which, value);
}

Stream Device::default_stream() const {
  return Stream(*this, std::make_shared<Stream::State>(Stream::State{*this, nullptr, false}));
}

Stream Device::create_stream(bool non_blocking) const {
  void* native = detail::backend(kind_).create_stream(ordinal_, non_blocking);
  // Built empty and filled in place: a temporary State would destroy the
  // stream when it goes out of scope.
  auto state = std::make_shared<Stream::State>(Stream::State{*this, nullptr, false});
  state->native = native;
  state->owned = true;
  MemoryPool::of(*this).adopt_stream(native);
  return Stream(*this, std::move(state));
}

Event Device::create_event(bool timing) const { return Event(*this, timing); }

std::string Device::describe() const {
  std::string out = kind_ == BackendKind::cpu ? "cpu device " : "device ";
  out += std::to_string(ordinal_);
  try {
    out += " (" + properties().name + ", " + arch() + ")";
  } catch (const Error&) {
    // describe() is used in error messages; it must not fail itself.
  }
  return out;
}

DeviceScope::DeviceScope(const Device& device) : previous_(Device::current()) {
  device.make_current();
}

DeviceScope::~DeviceScope() {
  try {
    previous_.make_current();
  } catch (...) {
    // A destructor cannot report; the previous device stays as it was.
  }
}

MemoryInfo mem_get_info() { return Device::current().memory_info(); }

}  // namespace cudakit
