// The launch path: one cuLaunchKernel and a few bytes copied into the launch
// history. Everything costly (working out which limit a rejected launch hit)
// happens only after the driver has said no.
#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {

void CudaBackend::launch(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
                         unsigned dynamic_shared_bytes, NativeStream stream, void** args) {
  // A kernel handle exists only after load_module, which initialised the driver.
  history_.record(stream, kernel_name);
  CUresult result = driver_->cuLaunchKernel(static_cast<CUfunction>(kernel), grid.x, grid.y, grid.z,
                                            block.x, block.y, block.z, dynamic_shared_bytes,
                                            static_cast<CUstream>(stream), args, nullptr);
  if (result != CUDA_SUCCESS) [[unlikely]] {
    if (result == CUDA_ERROR_INVALID_CONTEXT && adopt_only_context())
      result = driver_->cuLaunchKernel(static_cast<CUfunction>(kernel), grid.x, grid.y, grid.z,
                                       block.x, block.y, block.z, dynamic_shared_bytes,
                                       static_cast<CUstream>(stream), args, nullptr);
    if (result != CUDA_SUCCESS)
      fail_launch(result, static_cast<CUfunction>(kernel), kernel_name, grid, block,
                  dynamic_shared_bytes, stream);
  }
}

void CudaBackend::launch_cooperative(NativeKernel kernel, const char* kernel_name, Dim3 grid,
                                     Dim3 block, unsigned dynamic_shared_bytes, NativeStream stream,
                                     void** args) {
  if (!driver_->cuLaunchCooperativeKernel)
    throw NotSupported(
        std::string("a cooperative launch of kernel ") + (kernel_name ? kernel_name : "(unnamed)"),
        "the CUDA driver in use has no cuLaunchCooperativeKernel");
  history_.record(stream, kernel_name);
  auto run = [&] {
    return driver_->cuLaunchCooperativeKernel(
        static_cast<CUfunction>(kernel), grid.x, grid.y, grid.z, block.x, block.y, block.z,
        dynamic_shared_bytes, static_cast<CUstream>(stream), args);
  };
  CUresult result = run();
  if (result == CUDA_ERROR_INVALID_CONTEXT && adopt_only_context()) result = run();
  if (result == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    throw LaunchConfigError(
        std::string("launching kernel ") + (kernel_name ? kernel_name : "(unnamed)") +
            " cooperatively (grid " + grid.to_string() + ", block " + block.to_string() + ")",
        "max co-resident blocks for a cooperative launch", static_cast<long long>(grid.volume()),
        max_cooperative_grid_blocks(current_device(), kernel, static_cast<int>(block.volume()),
                                    dynamic_shared_bytes),
        "launch fewer blocks (Kernel::max_cooperative_grid_blocks)");
  if (result != CUDA_SUCCESS)
    fail_launch(result, static_cast<CUfunction>(kernel), kernel_name, grid, block,
                dynamic_shared_bytes, stream);
}

bool CudaBackend::adopt_only_context() {
  CUcontext current = nullptr;
  if (driver_->cuCtxGetCurrent(&current) != CUDA_SUCCESS || current) return false;
  // A thread that never chose a device launches a kernel: when cudakit has
  // retained a single context, that is the kernel's, so make it current
  // rather than fail. With several, the choice is the caller's.
  CUcontext only = nullptr;
  for (auto& context : contexts_) {
    CUcontext candidate = context.load(std::memory_order_acquire);
    if (!candidate) continue;
    if (only) return false;
    only = candidate;
  }
  return only && driver_->cuCtxSetCurrent(only) == CUDA_SUCCESS;
}

void CudaBackend::fail_launch(CUresult result, CUfunction kernel, const char* kernel_name,
                              Dim3 grid, Dim3 block, unsigned dynamic_shared_bytes,
                              NativeStream stream) {
  const std::string name = kernel_name ? kernel_name : "(unnamed)";
  const std::string context = "launching kernel " + name + " (grid " + grid.to_string() +
                              ", block " + block.to_string() + ", " +
                              std::to_string(dynamic_shared_bytes) + " bytes dynamic shared)";
  const CudaDriver& d = *driver_;

  if (result == CUDA_ERROR_INVALID_VALUE || result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) {
    // Find the limit the launch broke, so the message names it and its value.
    auto kernel_attribute = [&](CUfunction_attribute which) {
      int value = 0;
      d.cuFuncGetAttribute(&value, which, kernel);
      return value;
    };
    const auto threads = static_cast<long long>(block.volume());
    const int max_threads = kernel_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    if (max_threads > 0 && threads > max_threads) {
      const int registers = kernel_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
      throw LaunchConfigError(context, "max threads per block", threads, max_threads,
                              "this kernel can run at most " + std::to_string(max_threads) +
                                  " threads per block (" + std::to_string(registers) +
                                  " registers per thread); use a smaller block");
    }
    const int max_dynamic = kernel_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    if (static_cast<long long>(dynamic_shared_bytes) > max_dynamic)
      throw LaunchConfigError(context, "dynamic shared memory per block", dynamic_shared_bytes,
                              max_dynamic,
                              "raise the kernel's limit first (Kernel::set_max_dynamic_shared_"
                              "memory, up to the device's opt-in maximum) or use less");
    CUdevice device = 0;
    if (d.cuCtxGetDevice(&device) == CUDA_SUCCESS) {
      auto device_attribute = [&](CUdevice_attribute which) {
        int value = 0;
        d.cuDeviceGetAttribute(&value, which, device);
        return value;
      };
      const unsigned block_dims[] = {block.x, block.y, block.z};
      const unsigned grid_dims[] = {grid.x, grid.y, grid.z};
      const char* axes[] = {"x", "y", "z"};
      for (int axis = 0; axis < 3; ++axis) {
        const int block_limit = device_attribute(
            static_cast<CUdevice_attribute>(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + axis));
        if (block_dims[axis] > static_cast<unsigned>(block_limit))
          throw LaunchConfigError(context, std::string("max block dimension ") + axes[axis],
                                  block_dims[axis], block_limit);
        const int grid_limit = device_attribute(
            static_cast<CUdevice_attribute>(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + axis));
        if (grid_dims[axis] > static_cast<unsigned>(grid_limit) || grid_dims[axis] == 0)
          throw LaunchConfigError(context, std::string("max grid dimension ") + axes[axis],
                                  grid_dims[axis], grid_limit,
                                  grid_dims[axis] == 0 ? "a grid dimension of 0 launches nothing; "
                                                         "skip the launch for empty inputs"
                                                       : "");
      }
      if (block.volume() == 0)
        throw LaunchConfigError(context, "block size", 0, max_threads,
                                "every block dimension must be at least 1");
      if (result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) {
        const int registers = kernel_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
        const int per_block = device_attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
        throw LaunchConfigError(context, "registers per block", threads * registers, per_block,
                                "the block needs more registers than the device has per block: "
                                "use a smaller block or limit registers with __launch_bounds__");
      }
    }
  }
  if (result == CUDA_ERROR_INVALID_CONTEXT) {
    CUcontext current = nullptr;
    d.cuCtxGetCurrent(&current);
    if (!current)
      throw CudaError(context, "no CUDA context is current on this thread",
                      "make the kernel's device current on this thread first "
                      "(Device::make_current() or a device guard)",
                      static_cast<int>(result), cu_error_name(result));
  }
  fail(result, context, stream, true);
}

}  // namespace cudakit::detail
