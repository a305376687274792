// Modules and kernels of the CUDA backend: loading code, finding kernels,
// their parameter layouts, attributes and occupancy.
#include <cstring>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"
#include "platform/nvrtc_library.hpp"

namespace cudakit::detail {
namespace {

CudaModule& as_module(NativeModule module) {
  if (!module) throw ArgumentError("using a CUDA module", "the module handle is null");
  return *static_cast<CudaModule*>(module);
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// The CUDA release that introduced a PTX ISA version (ISA 9.0 came with
// CUDA 13.0, 8.7 with 12.8, 7.8 with 11.8); 0 when unknown. A driver must
// support at least that release to JIT the PTX.
int cuda_version_for_ptx_isa(int isa) noexcept {
  const int major = isa / 10, minor = isa % 10;
  if (major >= 9) return (major + 4) * 1000 + minor * 10;
  if (major == 8) return 12000 + (minor >= 7 ? minor + 1 : minor) * 10;
  if (major == 7) return 11000 + minor * 10;
  return 0;
}

// What the driver must support to load `code`: the PTX's own ISA version
// where the PTX is at hand, else the NVRTC that compiled it.
int required_cuda_version(const CompiledCode& code) noexcept {
  if (int from_ptx = cuda_version_for_ptx_isa(ptx_isa_version(code.ptx))) return from_ptx;
  try {
    const Nvrtc& api = nvrtc();
    return api.major * 1000 + api.minor * 10;
  } catch (...) {
    return 0;
  }
}

NoKernelImage no_kernel_image(const std::string& context, const std::string& image_arch,
                              const std::string& device_arch, CUresult result) {
  return NoKernelImage(
      context,
      "the module has no code for this GPU: it was built for " + image_arch + ", the device is " +
          device_arch,
      "compile for " + device_arch +
          " (cudakit does so when CompileOptions::arch is left empty), or ship "
          "PTX (compute_XX at or below the device's arch) so the driver can JIT it",
      static_cast<int>(result), cu_error_name(result));
}

}  // namespace

NativeModule CudaBackend::load_module(int ordinal, const CompiledCode& code) {
  make_current(ordinal);
  if (code.format == CodeFormat::host_object)
    throw NotSupported("loading a module on CUDA device " + std::to_string(ordinal),
                       "the code was built for the CPU backend (a host shared object)",
                       "compile the source again with the CUDA backend");
  if (code.format == CodeFormat::ltoir)
    throw NotSupported("loading a module on CUDA device " + std::to_string(ordinal),
                       "the code is LTO-IR, which the driver does not load",
                       "compile the source to PTX or a cubin");
  if (code.image.empty())
    throw ArgumentError("loading a module on CUDA device " + std::to_string(ordinal),
                        "the code image is empty");

  const void* image = code.image.data();
  std::string ptx_text;
  if (code.format == CodeFormat::ptx && code.image.back() != 0) {
    // The driver reads PTX as a C string.
    ptx_text.assign(code.image.begin(), code.image.end());
    image = ptx_text.c_str();
  }

  // The JIT's own log explains PTX it rejects; a cubin never needs it.
  char error_log[4096] = {};
  CUjit_option jit_options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* jit_values[] = {error_log, reinterpret_cast<void*>(sizeof error_log)};

  CUmodule handle = nullptr;
  CUresult result = driver_->cuModuleLoadDataEx(&handle, image, 2, jit_options, jit_values);
  if (result != CUDA_SUCCESS) {
    const std::string device_arch = default_arch(ordinal);
    const std::string image_arch = code.arch.empty() ? std::string("an unknown arch") : code.arch;
    const std::string context = "loading a " + std::string(to_string(code.format)) +
                                " module built for " + image_arch + " on device " +
                                std::to_string(ordinal) + " (" + device_arch + ")";
    if (result == CUDA_ERROR_NO_BINARY_FOR_GPU)
      throw no_kernel_image(context, image_arch, device_arch, result);
    if (result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      throw DriverTooOld(context, cuda_driver_version(), required_cuda_version(code));
    if (error_log[0] != '\0' && !is_kernel_fault(result))
      throw CudaError(context, cu_error_string(result) + "\n" + error_log,
                      "the driver's JIT compiler rejected the PTX (its log is above)",
                      static_cast<int>(result), cu_error_name(result));
    fail(result, context, nullptr, false);
  }

  auto module = std::make_unique<CudaModule>();
  module->handle = handle;
  module->ordinal = ordinal;
  module->ptx = code.ptx;
  if (module->ptx.empty() && code.format == CodeFormat::ptx)
    module->ptx.assign(code.image.begin(), code.image.end());
  while (!module->ptx.empty() && module->ptx.back() == '\0') module->ptx.pop_back();
  module->arch = code.arch;
  return module.release();
}

void CudaBackend::unload_module(NativeModule module) noexcept {
  if (!module) return;
  auto* record = static_cast<CudaModule*>(module);
  if (driver_ && record->handle) driver_->cuModuleUnload(record->handle);
  delete record;
}

std::vector<std::string> CudaBackend::kernel_symbols(NativeModule module) {
  CudaModule& record = as_module(module);
  const CudaDriver& d = driver();
  std::vector<std::string> names;
  if (d.cuModuleGetFunctionCount && d.cuModuleEnumerateFunctions && d.cuFuncGetName) {
    unsigned count = 0;
    check_cuda(d.cuModuleGetFunctionCount(&count, record.handle), "counting a module's kernels");
    std::vector<CUfunction> functions(count);
    if (count > 0)
      check_cuda(d.cuModuleEnumerateFunctions(functions.data(), count, record.handle),
                 "listing a module's kernels");
    for (CUfunction function : functions) {
      const char* name = nullptr;
      if (d.cuFuncGetName(&name, function) == CUDA_SUCCESS && name) names.emplace_back(name);
    }
    return names;
  }
  // Drivers before CUDA 12.4 cannot list functions; the PTX can, when kept.
  std::call_once(record.entries_once, [&] { record.entries = parse_ptx_entries(record.ptx); });
  for (const auto& entry : record.entries) names.push_back(entry.name);
  return names;
}

NativeKernel CudaBackend::get_kernel(NativeModule module, const std::string& symbol) {
  CudaModule& record = as_module(module);
  CUfunction function = nullptr;
  CUresult result = driver().cuModuleGetFunction(&function, record.handle, symbol.c_str());
  if (result == CUDA_SUCCESS) return function;
  const std::string context = "looking up kernel '" + symbol + "' in a module";
  if (result == CUDA_ERROR_NOT_FOUND) {
    std::vector<std::string> symbols;
    try {
      symbols = kernel_symbols(module);
    } catch (const Error&) {
    }
    throw ArgumentError(context,
                        "the module has no kernel of that name" +
                            (symbols.empty() ? std::string(" (it lists no kernels)")
                                             : "; it has: " + join(symbols)),
                        "C++ kernels have mangled names: declare the kernel extern \"C\" (the "
                        "default unless no_extern_c is set), or compile it with a name "
                        "expression such as \"vec_add<float>\" and look it up by that",
                        static_cast<int>(result), cu_error_name(result));
  }
  // With lazy loading the driver may check the image's arch only here.
  if (result == CUDA_ERROR_NO_BINARY_FOR_GPU)
    throw no_kernel_image(context, record.arch.empty() ? "an unknown arch" : record.arch,
                          default_arch(record.ordinal), result);
  fail(result, context, nullptr, false);
}

ParamLayout CudaBackend::param_layout(NativeModule module, const std::string& symbol) {
  CudaModule& record = as_module(module);
  if (!record.ptx.empty()) {
    std::call_once(record.entries_once, [&] { record.entries = parse_ptx_entries(record.ptx); });
    for (const auto& entry : record.entries)
      if (entry.name == symbol) return entry.layout;
  }
  // No PTX (a cubin loaded from a file): the driver knows sizes and offsets,
  // not types, so 8-byte parameters stay "pointer or 64-bit integer".
  const CudaDriver& d = driver();
  CUfunction function = static_cast<CUfunction>(get_kernel(module, symbol));
  if (!d.cuFuncGetParamInfo)
    throw NotSupported("reading the parameters of kernel '" + symbol + "'",
                       "the module has no PTX and this driver has no cuFuncGetParamInfo",
                       "update the NVIDIA driver (CUDA 12.4 or newer), or load the module from "
                       "source or PTX so its parameter list is known");
  ParamLayout layout;
  for (std::size_t index = 0;; ++index) {
    std::size_t offset = 0, size = 0;
    CUresult result = d.cuFuncGetParamInfo(function, index, &offset, &size);
    if (result == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
    if (result != CUDA_SUCCESS)
      fail(result, "reading parameter " + std::to_string(index) + " of kernel '" + symbol + "'",
           nullptr, false);
    Param param;
    param.size = size;
    param.offset = offset;
    param.kind = size == 8 ? ParamKind::pointer_or_u64 : ParamKind::aggregate;
    param.align = 1;
    for (std::size_t a = 8; a > 1; a /= 2)
      if (offset % a == 0 && size % a == 0) {
        param.align = a;
        break;
      }
    layout.params.push_back(std::move(param));
  }
  return layout;
}

KernelAttributes CudaBackend::kernel_attributes(NativeKernel kernel) {
  const CudaDriver& d = driver();
  auto function = static_cast<CUfunction>(kernel);
  auto get = [&](CUfunction_attribute which, const char* what) {
    int value = 0;
    CUresult result = d.cuFuncGetAttribute(&value, which, function);
    if (result != CUDA_SUCCESS)
      fail(result, std::string("reading a kernel's ") + what, nullptr, false);
    return value;
  };
  KernelAttributes attributes;
  attributes.registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS, "register count");
  attributes.static_shared_bytes =
      static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared memory"));
  attributes.local_bytes =
      static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local memory"));
  attributes.const_bytes =
      static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "constant memory"));
  attributes.max_threads_per_block =
      get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "maximum block size");
  attributes.max_dynamic_shared_bytes = static_cast<std::size_t>(
      get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "dynamic shared memory limit"));
  attributes.ptx_version = get(CU_FUNC_ATTRIBUTE_PTX_VERSION, "PTX version");
  attributes.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION, "binary version");
  return attributes;
}

void CudaBackend::set_max_dynamic_shared_memory(NativeKernel kernel, std::size_t bytes) {
  const CudaDriver& d = driver();
  auto function = static_cast<CUfunction>(kernel);
  CUresult result = d.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(bytes));
  if (result == CUDA_SUCCESS) return;
  const std::string context =
      "raising a kernel's dynamic shared memory limit to " + std::to_string(bytes) + " bytes";
  if (result == CUDA_ERROR_INVALID_VALUE) {
    const int device = current_device();
    const auto optin = attribute(device, DeviceAttribute::max_shared_memory_per_block_optin);
    int static_bytes = 0;
    d.cuFuncGetAttribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
    throw LaunchConfigError(context, "dynamic shared memory per block (opt-in)",
                            static_cast<long long>(bytes),
                            static_cast<long long>(optin - static_bytes),
                            "the device allows " + std::to_string(optin) +
                                " bytes of shared memory per block in all, and this kernel "
                                "uses " +
                                std::to_string(static_bytes) + " statically");
  }
  fail(result, context, nullptr, false);
}

std::pair<DevicePtr, std::size_t> CudaBackend::get_global(NativeModule module,
                                                          const std::string& name) {
  CudaModule& record = as_module(module);
  CUdeviceptr ptr = 0;
  std::size_t size = 0;
  CUresult result = driver().cuModuleGetGlobal(&ptr, &size, record.handle, name.c_str());
  if (result == CUDA_SUCCESS) return {ptr, size};
  const std::string context = "looking up the global variable '" + name + "' in a module";
  if (result == CUDA_ERROR_NOT_FOUND)
    throw ArgumentError(context,
                        "the module has no __device__ or __constant__ variable of that name",
                        "C++ linkage mangles variable names too: declare it extern \"C\" or "
                        "look it up through a name expression",
                        static_cast<int>(result), cu_error_name(result));
  fail(result, context, nullptr, false);
}

int CudaBackend::max_active_blocks_per_multiprocessor(NativeKernel kernel, int block_size,
                                                      std::size_t dynamic_shared_bytes) {
  int blocks = 0;
  CUresult result = driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, static_cast<CUfunction>(kernel), block_size, dynamic_shared_bytes);
  if (result != CUDA_SUCCESS)
    fail(result,
         "computing occupancy for blocks of " + std::to_string(block_size) + " threads with " +
             std::to_string(dynamic_shared_bytes) + " bytes of dynamic shared memory",
         nullptr, false);
  return blocks;
}

std::pair<int, int> CudaBackend::suggest_block_size(NativeKernel kernel,
                                                    std::size_t dynamic_shared_bytes) {
  int min_grid = 0, block = 0;
  CUresult result = driver().cuOccupancyMaxPotentialBlockSize(
      &min_grid, &block, static_cast<CUfunction>(kernel), nullptr, dynamic_shared_bytes, 0);
  if (result != CUDA_SUCCESS)
    fail(result,
         "suggesting a block size with " + std::to_string(dynamic_shared_bytes) +
             " bytes of dynamic shared memory",
         nullptr, false);
  return {min_grid, block};
}

}  // namespace cudakit::detail
