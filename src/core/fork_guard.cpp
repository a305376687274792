#include "core/fork_guard.hpp"

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/forwarding_backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

// Counts the forks this process descends from (after the handler was
// installed): a backend made at generation g is unusable once it differs.
std::atomic<unsigned> fork_generation{0};

void on_fork_child() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

[[noreturn, gnu::noinline]] void refuse(BackendKind kind) {
  throw CudaError(std::string("using the ") + (kind == BackendKind::cuda ? "CUDA" : "CPU") +
                      " backend in a process forked after cudakit started it",
                  "CUDA was initialised in the parent process; a forked child cannot use it",
                  "use multiprocessing's 'spawn' start method "
                  "(multiprocessing.get_context('spawn')), or start using cudakit only in the "
                  "child processes, after the fork",
                  3, "CUDA_ERROR_INITIALIZATION_ERROR");
}

class ForkGuardBackend final : public ForwardingBackend {
 public:
  explicit ForkGuardBackend(std::unique_ptr<Backend> inner)
      : ForwardingBackend(std::move(inner)), generation_(installed_generation()) {}
  ~ForkGuardBackend() override {
    // Destroying the backend joins threads that do not exist in a child.
    if (forked()) abandon_inner();
  }

  int device_count() override { return enter().device_count(); }
  DeviceProperties properties(int o) override { return enter().properties(o); }
  std::int64_t attribute(int o, DeviceAttribute a) override { return enter().attribute(o, a); }
  void make_current(int o) override { enter().make_current(o); }
  int current_device() override { return enter().current_device(); }
  void synchronize(int o) override { enter().synchronize(o); }
  MemoryInfo memory_info(int o) override { return enter().memory_info(o); }
  std::size_t limit(int o, ContextLimit w) override { return enter().limit(o, w); }
  void set_limit(int o, ContextLimit w, std::size_t v) override { enter().set_limit(o, w, v); }
  void set_cache_preference(int o, CachePreference p) override {
    enter().set_cache_preference(o, p);
  }
  CachePreference cache_preference(int o) override { return enter().cache_preference(o); }
  void set_shared_memory_bank_size(int o, SharedMemoryBankSize s) override {
    enter().set_shared_memory_bank_size(o, s);
  }
  SharedMemoryBankSize shared_memory_bank_size(int o) override {
    return enter().shared_memory_bank_size(o);
  }
  bool can_access_peer(int o, int peer) override { return enter().can_access_peer(o, peer); }
  int driver_version() override { return enter().driver_version(); }
  DevicePtr allocate(int o, std::size_t b) override { return enter().allocate(o, b); }
  void deallocate(int o, DevicePtr p) noexcept override {
    if (!forked()) inner().deallocate(o, p);
  }
  void set_usable_bytes(DevicePtr p, std::size_t u, std::size_t c) noexcept override {
    if (!forked()) inner().set_usable_bytes(p, u, c);
  }
  void* allocate_pinned(std::size_t b) override { return enter().allocate_pinned(b); }
  void deallocate_pinned(void* p) noexcept override {
    if (!forked()) inner().deallocate_pinned(p);
  }
  void register_host(void* p, std::size_t b, unsigned f) override {
    enter().register_host(p, b, f);
  }
  void unregister_host(void* p) override {
    // Called from destructors (which drop its errors): nothing to undo in a child.
    if (!forked()) inner().unregister_host(p);
  }
  DevicePtr host_device_pointer(void* p) override { return enter().host_device_pointer(p); }
  DevicePtr allocate_managed(int o, std::size_t b, unsigned f) override {
    return enter().allocate_managed(o, b, f);
  }
  void attach_managed(NativeStream s, DevicePtr p, std::size_t b, unsigned f) override {
    enter().attach_managed(s, p, b, f);
  }
  std::pair<DevicePtr, std::size_t> address_range(DevicePtr p) override {
    return enter().address_range(p);
  }
  IpcHandleBytes ipc_get_handle(int o, DevicePtr p) override {
    return enter().ipc_get_handle(o, p);
  }
  DevicePtr ipc_open(int o, const IpcHandleBytes& h, unsigned f) override {
    return enter().ipc_open(o, h, f);
  }
  void ipc_close(int o, DevicePtr p) override { enter().ipc_close(o, p); }
  void copy(void* d, const void* s, std::size_t b, NativeStream st, bool a) override {
    enter().copy(d, s, b, st, a);
  }
  void fill(DevicePtr d, std::uint32_t v, unsigned e, std::size_t c, NativeStream s,
            bool a) override {
    enter().fill(d, v, e, c, s, a);
  }
  NativeStream create_stream(int o, bool nb) override { return enter().create_stream(o, nb); }
  void destroy_stream(NativeStream s) noexcept override {
    if (!forked()) inner().destroy_stream(s);
  }
  void synchronize_stream(NativeStream s) override { enter().synchronize_stream(s); }
  bool query_stream(NativeStream s) override { return enter().query_stream(s); }
  void stream_wait_event(NativeStream s, NativeEvent e) override {
    enter().stream_wait_event(s, e);
  }
  NativeEvent create_event(int o, bool t) override { return enter().create_event(o, t); }
  void destroy_event(NativeEvent e) noexcept override {
    if (!forked()) inner().destroy_event(e);
  }
  void record_event(NativeEvent e, NativeStream s) override { enter().record_event(e, s); }
  void synchronize_event(NativeEvent e) override { enter().synchronize_event(e); }
  bool query_event(NativeEvent e) override { return enter().query_event(e); }
  float elapsed_ms(NativeEvent a, NativeEvent b) override { return enter().elapsed_ms(a, b); }
  std::string compiler_identity() override { return enter().compiler_identity(); }
  GpuCompilerInfo gpu_compiler_info() override { return enter().gpu_compiler_info(); }
  std::string default_arch(int o) override { return enter().default_arch(o); }
  CompiledCode compile(const CompileRequest& r) override { return enter().compile(r); }
  NativeModule load_module(int o, const CompiledCode& c) override {
    return enter().load_module(o, c);
  }
  void unload_module(NativeModule m) noexcept override {
    if (!forked()) inner().unload_module(m);
  }
  std::vector<std::string> kernel_symbols(NativeModule m) override {
    return enter().kernel_symbols(m);
  }
  NativeKernel get_kernel(NativeModule m, const std::string& s) override {
    return enter().get_kernel(m, s);
  }
  ParamLayout param_layout(NativeModule m, const std::string& s) override {
    return enter().param_layout(m, s);
  }
  KernelAttributes kernel_attributes(NativeKernel k) override {
    return enter().kernel_attributes(k);
  }
  void set_max_dynamic_shared_memory(NativeKernel k, std::size_t b) override {
    enter().set_max_dynamic_shared_memory(k, b);
  }
  void set_kernel_cache_preference(NativeKernel k, CachePreference p) override {
    enter().set_kernel_cache_preference(k, p);
  }
  void set_kernel_shared_memory_carveout(NativeKernel k, int percent) override {
    enter().set_kernel_shared_memory_carveout(k, percent);
  }
  CompiledCode link(int o, const std::vector<LinkInput>& inputs,
                    const LinkOptions& options) override {
    return enter().link(o, inputs, options);
  }
  std::pair<DevicePtr, std::size_t> get_global(NativeModule m, const std::string& n) override {
    return enter().get_global(m, n);
  }
  int max_active_blocks_per_multiprocessor(NativeKernel k, int b, std::size_t s) override {
    return enter().max_active_blocks_per_multiprocessor(k, b, s);
  }
  std::pair<int, int> suggest_block_size(NativeKernel k, std::size_t s) override {
    return enter().suggest_block_size(k, s);
  }
  void launch(NativeKernel k, const char* name, Dim3 grid, Dim3 block, unsigned shared,
              NativeStream stream, void** args) override {
    enter().launch(k, name, grid, block, shared, stream, args);
  }
  void launch_cooperative(NativeKernel k, const char* name, Dim3 grid, Dim3 block, unsigned shared,
                          NativeStream stream, void** args) override {
    enter().launch_cooperative(k, name, grid, block, shared, stream, args);
  }
  long long max_cooperative_grid_blocks(int o, NativeKernel k, int block_size,
                                        std::size_t shared) override {
    return enter().max_cooperative_grid_blocks(o, k, block_size, shared);
  }
  bool gemm_available(ScalarType type) override { return enter().gemm_available(type); }
  void gemm(int o, NativeStream stream, const GemmRequest& request) override {
    enter().gemm(o, stream, request);
  }

 private:
  static unsigned installed_generation() {
    static std::once_flag once;
    std::call_once(once, [] { pthread_atfork(nullptr, nullptr, &on_fork_child); });
    return fork_generation.load(std::memory_order_relaxed);
  }
  bool forked() const noexcept {
    return fork_generation.load(std::memory_order_relaxed) != generation_;
  }
  Backend& enter() {
    if (forked()) [[unlikely]]
      refuse(kind());
    return inner();
  }

  const unsigned generation_;
};

}  // namespace

std::unique_ptr<Backend> make_fork_guarded_backend(std::unique_ptr<Backend> inner) {
  return std::make_unique<ForkGuardBackend>(std::move(inner));
}

}  // namespace cudakit::detail
