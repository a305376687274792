// A Backend that keeps device memory in host memory and records launches, so
// the core's logic (pool, lookup, launch checks) is tested without a device.
// The core unit tests link it in place of the real backends: it defines
// cudakit::detail::backend(), which then hands out this fake for every kind.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"

namespace cudakit::testing {

struct FakeKernelSpec {
  std::string symbol;
  ParamLayout layout;
  KernelAttributes attributes{32, 0, 0, 0, 1024, 0, 0, 0};
  // Runs the kernel on the host when set: called once per launch.
  std::function<void(void** args, Dim3 grid, Dim3 block)> body;
};

struct FakeModuleSpec {
  std::vector<FakeKernelSpec> kernels;
  std::map<std::string, std::vector<std::uint8_t>> globals;
};

struct FakeLaunch {
  std::string kernel_name;
  Dim3 grid, block;
  unsigned shared = 0;
  void* stream = nullptr;
  std::vector<std::vector<std::uint8_t>> args;  // the bytes of each argument
};

class FakeBackend final : public detail::Backend {
 public:
  FakeBackend();
  // Test controls.
  DeviceProperties props;
  std::size_t capacity = std::size_t(1) << 30;  // bytes the fake device can hold
  std::size_t in_use = 0;
  int allocations = 0;
  int deallocations = 0;
  int properties_reads = 0;
  int synchronizes = 0;
  int streams_destroyed = 0;
  int events_destroyed = 0;
  FakeModuleSpec next_module;  // what the next load_module loads
  std::vector<FakeLaunch> launches;
  std::vector<std::pair<void*, int>> max_dynamic_shared_calls;
  void reset();

  BackendKind kind() const noexcept override { return BackendKind::cpu; }
  int device_count() override { return 1; }
  DeviceProperties properties(int) override;
  std::int64_t attribute(int, DeviceAttribute attribute) override;
  void make_current(int ordinal) override { current_ = ordinal; }
  int current_device() override { return current_; }
  void synchronize(int) override { ++synchronizes; }
  MemoryInfo memory_info(int) override { return {capacity - in_use, capacity}; }
  std::size_t limit(int, ContextLimit which) override { return limits_[static_cast<int>(which)]; }
  void set_limit(int, ContextLimit which, std::size_t value) override {
    limits_[static_cast<int>(which)] = value;
  }
  int driver_version() override { return 0; }

  detail::DevicePtr allocate(int ordinal, std::size_t bytes) override;
  void deallocate(int ordinal, detail::DevicePtr ptr) noexcept override;
  void* allocate_pinned(std::size_t bytes) override;
  void deallocate_pinned(void* ptr) noexcept override;
  void copy(void* dst, const void* src, std::size_t bytes, detail::NativeStream, bool) override {
    std::memmove(dst, src, bytes);
  }
  void fill(detail::DevicePtr dst, std::uint32_t value, unsigned element_bytes, std::size_t count,
            detail::NativeStream, bool) override;

  detail::NativeStream create_stream(int, bool) override;
  void destroy_stream(detail::NativeStream stream) noexcept override;
  void synchronize_stream(detail::NativeStream) override { ++synchronizes; }
  bool query_stream(detail::NativeStream) override { return true; }
  void stream_wait_event(detail::NativeStream, detail::NativeEvent) override {}
  detail::NativeEvent create_event(int, bool) override;
  void destroy_event(detail::NativeEvent event) noexcept override;
  void record_event(detail::NativeEvent event, detail::NativeStream) override;
  void synchronize_event(detail::NativeEvent) override {}
  bool query_event(detail::NativeEvent) override { return true; }
  float elapsed_ms(detail::NativeEvent start, detail::NativeEvent stop) override;

  std::string compiler_identity() override { return "fake 1.0"; }
  std::string default_arch(int) override { return "cpu"; }
  CompiledCode compile(const detail::CompileRequest& request) override;
  detail::NativeModule load_module(int, const CompiledCode&) override;
  void unload_module(detail::NativeModule module) noexcept override;
  std::vector<std::string> kernel_symbols(detail::NativeModule module) override;
  detail::NativeKernel get_kernel(detail::NativeModule module, const std::string& symbol) override;
  ParamLayout param_layout(detail::NativeModule module, const std::string& symbol) override;
  KernelAttributes kernel_attributes(detail::NativeKernel kernel) override;
  void set_max_dynamic_shared_memory(detail::NativeKernel kernel, std::size_t bytes) override;
  std::pair<detail::DevicePtr, std::size_t> get_global(detail::NativeModule module,
                                                       const std::string& name) override;
  int max_active_blocks_per_multiprocessor(detail::NativeKernel, int, std::size_t) override {
    return 2;
  }
  std::pair<int, int> suggest_block_size(detail::NativeKernel, std::size_t) override {
    return {264, 256};
  }
  void launch(detail::NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
              unsigned dynamic_shared_bytes, detail::NativeStream stream, void** args) override;

  int loaded_modules() const { return static_cast<int>(modules_.size()); }

 private:
  std::mutex mutex_;
  int current_ = 0;
  std::size_t limits_[3] = {1024, 1 << 20, 8 << 20};
  std::map<std::uint64_t, std::size_t> blocks_;
  std::map<void*, FakeModuleSpec*> modules_;
  int next_handle_ = 1;
  std::map<void*, int> events_;
  std::map<void*, bool> streams_;
  int event_clock_ = 0;
};

// The process's fake (what detail::backend() returns in these tests).
FakeBackend& fake();

// A layout with natural alignment for the given params (kind, scalar, size).
ParamLayout make_layout(std::vector<Param> params);
Param pointer_param(std::string type = {});
Param scalar_param(ScalarType scalar, std::size_t size, std::string type = {});
Param aggregate_param(std::size_t size, std::size_t align, std::string type = {});

}  // namespace cudakit::testing
