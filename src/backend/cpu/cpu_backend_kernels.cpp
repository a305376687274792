// The CPU backend's modules and launches: host-compiled modules loaded,
// their kernels looked up and described, and launches checked as a GPU
// checks them, then queued as tasks that run the grid on the thread pool.
#include "backend/cpu/cpu_backend_impl.hpp"

namespace cudakit::detail::cpu {
namespace {

// What the CUDA backend's hint says for a handle of another context.
const char* const kOtherDeviceHint =
    "mixing devices? a kernel (module) or stream belongs to the device it was made on; make that "
    "device current first (Device::make_current, a DeviceScope, `with cuda.gpus[i]:`, "
    "Context.push), as a GPU requires";

void run_one_block(void* context, unsigned long long index) {
  run_block(*static_cast<const BlockLaunch*>(context), index);
}

}  // namespace

CompiledCode CpuBackend::compile(const CompileRequest& request) {
  return compile_host_module(request);
}

NativeModule CpuBackend::load_module(int ordinal, const CompiledCode& code) {
  device(ordinal, "loading a module");
  mark_used(ordinal);
  auto* module = new CpuModule(code);
  for (const auto& k : module->kernels()) k->device = ordinal;
  return module;
}

void CpuBackend::unload_module(NativeModule module) noexcept {
  // Work queued with this module's kernels must finish before its code
  // goes; failures stay recorded for the streams' next synchronization.
  wait_all(-1, WaitMode::patient);
  delete static_cast<CpuModule*>(module);
}

std::vector<std::string> CpuBackend::kernel_symbols(NativeModule module) {
  std::vector<std::string> out;
  for (const auto& k : static_cast<CpuModule*>(module)->kernels()) out.push_back(k->symbol);
  return out;
}

NativeKernel CpuBackend::get_kernel(NativeModule module, const std::string& symbol) {
  auto* m = static_cast<CpuModule*>(module);
  if (CpuKernel* k = m->find(symbol)) return k;
  std::string list;
  for (const auto& k : m->kernels()) list += (list.empty() ? "" : ", ") + k->name;
  throw ArgumentError("looking up kernel '" + symbol + "' on the CPU backend",
                      "no such kernel; the module has: " + (list.empty() ? "none" : list),
                      "templates need a name expression (CompileOptions::name_expressions)");
}

ParamLayout CpuBackend::param_layout(NativeModule module, const std::string& symbol) {
  return static_cast<CpuKernel*>(get_kernel(module, symbol))->layout;
}

KernelAttributes CpuBackend::kernel_attributes(NativeKernel kernel) {
  auto* k = static_cast<CpuKernel*>(kernel);
  KernelAttributes a;
  a.max_threads_per_block = 1024;
  a.max_dynamic_shared_bytes = k->max_dynamic_shared;
  a.static_shared_bytes = k->static_shared;
  return a;
}

void CpuBackend::set_max_dynamic_shared_memory(NativeKernel kernel, std::size_t bytes) {
  if (bytes > kOptInSharedLimit)
    throw LaunchConfigError(
        "setting the dynamic shared memory limit of a kernel on the CPU backend",
        "max dynamic shared memory per block (opt-in)", static_cast<long long>(bytes),
        static_cast<long long>(kOptInSharedLimit));
  auto* k = static_cast<CpuKernel*>(kernel);
  // As the driver does: the static part and the raised dynamic limit
  // together must fit the opt-in maximum.
  if (bytes + k->static_shared > kOptInSharedLimit)
    throw LaunchConfigError(
        "setting the dynamic shared memory limit of a kernel on the CPU backend",
        "max dynamic shared memory per block (opt-in) less the kernel's " +
            std::to_string(k->static_shared) + " static bytes",
        static_cast<long long>(bytes),
        static_cast<long long>(kOptInSharedLimit - std::min(kOptInSharedLimit, k->static_shared)));
  k->max_dynamic_shared = bytes;
  k->dynamic_shared_raised = true;
}

void CpuBackend::set_kernel_cache_preference(NativeKernel kernel, CachePreference preference) {
  static_cast<CpuKernel*>(kernel)->cache_preference.store(preference);
}

std::pair<DevicePtr, std::size_t> CpuBackend::get_global(NativeModule module,
                                                         const std::string& name) {
  auto [address, size] = static_cast<CpuModule*>(module)->global(name);
  if (!address)
    throw ArgumentError("looking up global '" + name + "' on the CPU backend",
                        "the module defines no __device__ or __constant__ variable of that name",
                        "globals are found when defined at namespace scope in the source");
  return {reinterpret_cast<DevicePtr>(address), size};
}

int CpuBackend::max_active_blocks_per_multiprocessor(NativeKernel kernel, int block_size,
                                                     std::size_t dynamic_shared_bytes) {
  if (block_size <= 0) return 0;
  const DeviceProperties& p = devices_.front()->properties;  // the same on every device
  const int warp = p.warp_size;
  const int warps_per_block = (block_size + warp - 1) / warp;
  int blocks = std::min(p.max_blocks_per_multiprocessor,
                        p.max_threads_per_multiprocessor / warp / warps_per_block);
  const std::size_t shared = static_cast<CpuKernel*>(kernel)->static_shared + dynamic_shared_bytes;
  if (shared > 0)
    blocks = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(blocks),
                                                    p.shared_memory_per_multiprocessor / shared));
  return blocks;
}

std::pair<int, int> CpuBackend::suggest_block_size(NativeKernel, std::size_t) {
  return {static_cast<int>(pool_.size()) * 8, 256};
}

void CpuBackend::launch(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
                        unsigned dynamic_shared_bytes, NativeStream stream, void** args) {
  auto task = make_task(kernel, kernel_name, grid, block, dynamic_shared_bytes, stream, args);
  submit(
      stream,
      [this, task] {
        task->run_checked(
            [&] { pool_.parallel_for(task->launch.grid.volume(), &run_one_block, &task->launch); });
      },
      {}, kernel);
}

void CpuBackend::launch_cooperative(NativeKernel kernel, const char* kernel_name, Dim3 grid,
                                    Dim3 block, unsigned dynamic_shared_bytes, NativeStream stream,
                                    void** args) {
  const long long max_blocks =
      max_cooperative_grid_blocks(static_cast<CpuKernel*>(kernel)->device, kernel,
                                  static_cast<int>(block.volume()), dynamic_shared_bytes);
  if (static_cast<long long>(grid.volume()) > max_blocks)
    throw LaunchConfigError(
        std::string("launching kernel ") + (kernel_name ? kernel_name : "(unnamed)") +
            " cooperatively on the CPU backend (grid " + grid.to_string() + ", block " +
            block.to_string() + ")",
        "max co-resident blocks for a cooperative launch", static_cast<long long>(grid.volume()),
        max_blocks, "launch fewer blocks (Kernel::max_cooperative_grid_blocks)");
  auto task = make_task(kernel, kernel_name, grid, block, dynamic_shared_bytes, stream, args);
  submit(
      stream, [task] { task->run_checked([&] { run_cooperative_grid(task->launch); }); }, {},
      kernel);
}

long long CpuBackend::max_cooperative_grid_blocks(int ordinal, NativeKernel kernel, int block_size,
                                                  std::size_t dynamic_shared_bytes) {
  device(ordinal, "computing the largest cooperative grid");
  const long long per_sm =
      max_active_blocks_per_multiprocessor(kernel, block_size, dynamic_shared_bytes);
  return std::min<long long>(kMaxCooperativeBlocks, per_sm * static_cast<long long>(pool_.size()));
}

std::shared_ptr<LaunchTask> CpuBackend::make_task(NativeKernel kernel, const char* kernel_name,
                                                  Dim3 grid, Dim3 block,
                                                  unsigned dynamic_shared_bytes,
                                                  NativeStream stream, void** args) {
  auto* k = static_cast<CpuKernel*>(kernel);
  check_launch(*k, kernel_name, grid, block, dynamic_shared_bytes);
  if (devices_.size() > 1) check_launch_device(*k, kernel_name, stream);
  auto task = std::make_shared<LaunchTask>();
  task->name = kernel_name ? kernel_name : k->name;
  std::size_t bytes = 0;
  for (const auto& p : k->layout.params) bytes = std::max(bytes, p.offset + p.size);
  task->storage.resize(bytes / sizeof(std::max_align_t) + 1);
  task->argument_bytes = bytes;
  auto* base = reinterpret_cast<unsigned char*>(task->storage.data());
  task->args.resize(k->layout.params.size() + 1);
  for (std::size_t i = 0; i < k->layout.params.size(); ++i) {
    const Param& p = k->layout.params[i];
    std::memcpy(base + p.offset, args[i], p.size);
    task->args[i] = base + p.offset;
  }
  task->launch = BlockLaunch{
      k->entry,          k->module, task->name.c_str(), grid, block, dynamic_shared_bytes,
      task->args.data(), nullptr};
  task->printf_fifo.emplace(devices_[static_cast<std::size_t>(k->device)]
                                ->limits[static_cast<int>(ContextLimit::printf_fifo_size)]
                                .load());
  task->launch.printf_fifo = &*task->printf_fifo;
  return task;
}

void CpuBackend::check_launch(const CpuKernel& k, const char* name, Dim3 grid, Dim3 block,
                              unsigned dynamic_shared) {
  // The message is built only when a check fails: this runs on every launch.
  auto context = [&] {
    return std::string("launching kernel ") + (name ? name : k.name.c_str()) + " (grid " +
           grid.to_string() + ", block " + block.to_string() + ") on the CPU backend";
  };
  if (block.volume() == 0 || grid.volume() == 0)
    throw LaunchConfigError(context(), "non-empty grid and block", 0, 1);
  if (block.volume() > 1024)
    throw LaunchConfigError(context(), "max threads per block",
                            static_cast<long long>(block.volume()), 1024);
  if (block.x > 1024 || block.y > 1024 || block.z > 64)
    throw LaunchConfigError(context(), "max block dimensions (1024x1024x64)",
                            std::max({block.x, block.y, block.z * 16}), 1024);
  if (grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u)
    throw LaunchConfigError(context(), "max grid dimensions (2147483647x65535x65535)",
                            std::max(grid.y, grid.z), 65535);
  // Without an opt-in, static and dynamic shared memory share the 48 KiB a
  // GPU gives a block; the same launch must fail here as it would there.
  if (!k.dynamic_shared_raised && k.static_shared + dynamic_shared > kStaticSharedLimit)
    throw LaunchConfigError(context(),
                            "max shared memory per block (" + std::to_string(k.static_shared) +
                                " bytes static + dynamic)",
                            static_cast<long long>(k.static_shared + dynamic_shared),
                            static_cast<long long>(kStaticSharedLimit),
                            "raise the kernel's limit first (set_max_dynamic_shared_memory), "
                            "as a GPU requires above 48 KiB, or use less shared memory");
  if (dynamic_shared > k.max_dynamic_shared)
    throw LaunchConfigError(context(), "max dynamic shared memory per block", dynamic_shared,
                            static_cast<long long>(k.max_dynamic_shared),
                            dynamic_shared <= kOptInSharedLimit
                                ? "raise the kernel's limit first (set_max_dynamic_shared_memory)"
                                : "");
}

void CpuBackend::check_launch_device(const CpuKernel& k, const char* name, NativeStream stream) {
  const int current = current_or_adopted(k.device);
  const int stream_device = stream ? stream_of(stream)->device() : current;
  if (k.device == current && stream_device == current) return;
  const std::string kernel = name ? name : k.name;
  const std::string what = k.device != current
                               ? "invalid resource handle: kernel " + kernel +
                                     " was loaded on cpu device " + std::to_string(k.device) +
                                     " but cpu device " + std::to_string(current) +
                                     " is current on this thread"
                               : "invalid resource handle: the stream belongs to cpu device " +
                                     std::to_string(stream_device) + " but cpu device " +
                                     std::to_string(current) + " is current on this thread";
  throw CudaError("launching kernel " + kernel + " on the CPU backend", what, kOtherDeviceHint, 400,
                  "CUDA_ERROR_INVALID_HANDLE");
}

}  // namespace cudakit::detail::cpu
