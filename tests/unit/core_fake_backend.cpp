#include "unit/core_fake_backend.hpp"

#include <cstdlib>
#include <memory>

#include "cudakit/error.hpp"

namespace cudakit {
namespace detail {

// Replaces the library's backend registry in the core unit tests (the
// registry's object file is then not linked, nor the real backends).
Backend& backend(BackendKind) { return testing::fake(); }

}  // namespace detail

namespace testing {

FakeBackend& fake() {
  static auto* instance = new FakeBackend;
  return *instance;
}

FakeBackend::FakeBackend() { reset(); }

void FakeBackend::reset() {
  props = DeviceProperties{};
  props.name = "fake device";
  props.compute_major = 9;
  props.compute_minor = 0;
  props.total_memory = capacity;
  props.multiprocessor_count = 4;
  props.max_threads_per_block = 1024;
  props.max_block_dim = Dim3(1024, 1024, 64);
  props.max_grid_dim = Dim3(2147483647u, 65535, 65535);
  props.shared_memory_per_block = 48 * 1024;
  props.shared_memory_per_block_optin = 227 * 1024;
  props.warp_size = 32;
  launches.clear();
  max_dynamic_shared_calls.clear();
  next_module = {};
}

DeviceProperties FakeBackend::properties(int) {
  ++properties_reads;
  return props;
}

std::int64_t FakeBackend::attribute(int, DeviceAttribute attribute) {
  switch (attribute) {
    case DeviceAttribute::max_threads_per_block:
      return props.max_threads_per_block;
    case DeviceAttribute::multiprocessor_count:
      return props.multiprocessor_count;
    case DeviceAttribute::warp_size:
      return props.warp_size;
    default:
      throw NotSupported("reading a device attribute", "the fake device does not have it");
  }
}

detail::DevicePtr FakeBackend::allocate(int, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes > capacity - in_use)
    throw OutOfMemory("allocating device memory", bytes, capacity - in_use, capacity);
  void* p = std::malloc(bytes);
  if (!p) throw OutOfMemory("allocating device memory", bytes, capacity - in_use, capacity);
  in_use += bytes;
  ++allocations;
  auto ptr = reinterpret_cast<std::uintptr_t>(p);
  blocks_[ptr] = bytes;
  return ptr;
}

void FakeBackend::deallocate(int, detail::DevicePtr ptr) noexcept {
  std::lock_guard lock(mutex_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) std::abort();  // a double free in the code under test
  in_use -= it->second;
  blocks_.erase(it);
  ++deallocations;
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr)));
}

void* FakeBackend::allocate_pinned(std::size_t bytes) { return std::malloc(bytes); }
void FakeBackend::deallocate_pinned(void* ptr) noexcept { std::free(ptr); }

void FakeBackend::fill(detail::DevicePtr dst, std::uint32_t value, unsigned element_bytes,
                       std::size_t count, detail::NativeStream, bool) {
  auto* p = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(dst));
  for (std::size_t i = 0; i < count; ++i) std::memcpy(p + i * element_bytes, &value, element_bytes);
}

detail::NativeStream FakeBackend::create_stream(int, bool) {
  std::lock_guard lock(mutex_);
  void* s = reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x1000 + 16 * next_handle_++));
  streams_[s] = true;
  return s;
}
void FakeBackend::destroy_stream(detail::NativeStream stream) noexcept {
  std::lock_guard lock(mutex_);
  if (streams_.erase(stream) != 1) std::abort();  // destroyed twice, or never created
  ++streams_destroyed;
}

detail::NativeEvent FakeBackend::create_event(int, bool) {
  std::lock_guard lock(mutex_);
  void* e = reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x100000 + 16 * next_handle_++));
  events_[e] = 0;
  return e;
}
void FakeBackend::destroy_event(detail::NativeEvent event) noexcept {
  std::lock_guard lock(mutex_);
  if (events_.erase(event) != 1) std::abort();  // destroyed twice, or never created
  ++events_destroyed;
}
void FakeBackend::record_event(detail::NativeEvent event, detail::NativeStream) {
  std::lock_guard lock(mutex_);
  auto it = events_.find(event);
  if (it == events_.end()) std::abort();  // a destroyed event
  it->second = ++event_clock_;
}
float FakeBackend::elapsed_ms(detail::NativeEvent start, detail::NativeEvent stop) {
  std::lock_guard lock(mutex_);
  return static_cast<float>(events_[stop] - events_[start]);
}

CompiledCode FakeBackend::compile(const detail::CompileRequest& request) {
  if (request.source.find("oops") != std::string::npos)
    throw CompileError("compiling kernel.cu",
                       "kernel.cu(3): error: identifier \"oops\" is undefined", request.source);
  CompiledCode code;
  code.format = CodeFormat::host_object;
  code.arch = request.options.arch;
  return code;
}

detail::NativeModule FakeBackend::load_module(int, const CompiledCode&) {
  std::lock_guard lock(mutex_);
  auto* spec = new FakeModuleSpec(next_module);
  modules_[spec] = spec;
  return spec;
}

void FakeBackend::unload_module(detail::NativeModule module) noexcept {
  std::lock_guard lock(mutex_);
  auto it = modules_.find(module);
  if (it == modules_.end()) std::abort();
  delete it->second;
  modules_.erase(it);
}

std::vector<std::string> FakeBackend::kernel_symbols(detail::NativeModule module) {
  std::vector<std::string> out;
  for (const auto& k : static_cast<FakeModuleSpec*>(module)->kernels) out.push_back(k.symbol);
  return out;
}

detail::NativeKernel FakeBackend::get_kernel(detail::NativeModule module,
                                             const std::string& symbol) {
  for (auto& k : static_cast<FakeModuleSpec*>(module)->kernels)
    if (k.symbol == symbol) return &k;
  throw ArgumentError("getting a kernel", "no symbol " + symbol);
}

ParamLayout FakeBackend::param_layout(detail::NativeModule module, const std::string& symbol) {
  return static_cast<FakeKernelSpec*>(get_kernel(module, symbol))->layout;
}

KernelAttributes FakeBackend::kernel_attributes(detail::NativeKernel kernel) {
  return static_cast<FakeKernelSpec*>(kernel)->attributes;
}

void FakeBackend::set_max_dynamic_shared_memory(detail::NativeKernel kernel, std::size_t bytes) {
  max_dynamic_shared_calls.emplace_back(kernel, static_cast<int>(bytes));
}

std::pair<detail::DevicePtr, std::size_t> FakeBackend::get_global(detail::NativeModule module,
                                                                  const std::string& name) {
  auto& globals = static_cast<FakeModuleSpec*>(module)->globals;
  auto it = globals.find(name);
  if (it == globals.end())
    throw ArgumentError("getting a global", "no global named '" + name + "'");
  return {reinterpret_cast<std::uintptr_t>(it->second.data()), it->second.size()};
}

void FakeBackend::launch(detail::NativeKernel kernel, const char* kernel_name, Dim3 grid,
                         Dim3 block, unsigned dynamic_shared_bytes, detail::NativeStream stream,
                         void** args) {
  auto* spec = static_cast<FakeKernelSpec*>(kernel);
  FakeLaunch record{kernel_name, grid, block, dynamic_shared_bytes, stream, {}};
  for (std::size_t i = 0; i < spec->layout.params.size(); ++i) {
    const auto* bytes = static_cast<const std::uint8_t*>(args[i]);
    record.args.emplace_back(bytes, bytes + spec->layout.params[i].size);
  }
  launches.push_back(std::move(record));
  if (spec->body) spec->body(args, grid, block);
}

ParamLayout make_layout(std::vector<Param> params) {
  ParamLayout layout;
  std::size_t offset = 0;
  for (auto& p : params) {
    offset = (offset + p.align - 1) / p.align * p.align;
    p.offset = offset;
    offset += p.size;
  }
  layout.params = std::move(params);
  return layout;
}

Param pointer_param(std::string type) {
  Param p;
  p.kind = ParamKind::pointer;
  p.size = 8;
  p.align = 8;
  p.type = std::move(type);
  return p;
}

Param scalar_param(ScalarType scalar, std::size_t size, std::string type) {
  Param p;
  p.kind = ParamKind::scalar;
  p.scalar = scalar;
  p.size = size;
  p.align = size;
  p.type = std::move(type);
  return p;
}

Param aggregate_param(std::size_t size, std::size_t align, std::string type) {
  Param p;
  p.kind = ParamKind::aggregate;
  p.size = size;
  p.align = align;
  p.type = std::move(type);
  return p;
}

}  // namespace testing
}  // namespace cudakit
