// The fake libcuda described in cuda_fake_driver.hpp. Each function has the
// prototype cuda.h gives it, so the symbols carry the versioned names
// (cuMemAlloc -> cuMemAlloc_v2) that the real driver exports.
#include "unit/cuda_fake_driver.hpp"

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <set>
#include <string>
#include <string_view>
#include <vector>

struct CUctx_st {
  int device;
};
struct CUstream_st {
  unsigned flags;
};
struct CUevent_st {
  unsigned flags;
  bool recorded;
};
struct CUfunc_st {
  const char* name;
  int max_dynamic_shared;
};
struct CUlinkState_st {
  char* error_log = nullptr;
  std::size_t error_log_bytes = 0;
  char* info_log = nullptr;
  std::size_t info_log_bytes = 0;
  std::vector<std::string> inputs;  // each input's name
  bool undefined = false;           // an input uses undefined_function
  std::string cubin;
};
struct CUmod_st {
  CUfunc_st functions[3];
  int global;
  // With CUDAKIT_FAKE_ANY_KERNEL set: the PTX image's own kernels (its
  // .entry names) too (deques: their addresses stay put as more are added).
  std::deque<std::string> entry_names;
  std::deque<CUfunc_st> entries;
};

namespace {

FakeCudaControl control;
CUctx_st contexts[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
thread_local CUcontext current = nullptr;
std::set<void*> registered_host;  // starts of cuMemHostRegister'ed ranges

CUresult sticky() { return static_cast<CUresult>(control.sticky_error.load()); }

}  // namespace

extern "C" FakeCudaControl* fake_cuda_control() { return &control; }

extern "C" void fake_cuda_reset() {
  control.init_result = 0;
  control.driver_version = 13000;
  control.device_count = 2;
  control.compute_major = 9;
  control.compute_minor = 0;
  control.total_bytes = std::size_t(80) << 30;
  control.free_bytes = std::size_t(70) << 30;
  control.module_load_result = 0;
  control.has_param_info = true;
  control.sticky_error = 0;
  control.retain_calls = 0;
  control.set_current_calls = 0;
  control.launches = 0;
  control.cooperative_launches = 0;
  control.live_host_registrations = 0;
  control.context_cache_config = 0;
  control.context_shared_config = 0;
  control.last_function_cache_config = -1;
  control.last_function_carveout = -2;
  control.live_links = 0;
  control.last_link_inputs = 0;
  control.last_link_option_count = 0;
  control.last_ptx_terminated = false;
  registered_host.clear();
  current = nullptr;
}

// CUDAKIT_FAKE_DEVICE_COUNT: the devices a process sees until a test resets
// the control block (a benchmark imitating a one-GPU machine).
[[maybe_unused]] const bool device_count_from_environment = [] {
  if (const char* count = std::getenv("CUDAKIT_FAKE_DEVICE_COUNT"))
    control.device_count = std::max(0, std::atoi(count));
  return true;
}();

CUresult cuInit(unsigned int) { return static_cast<CUresult>(control.init_result); }
CUresult cuDriverGetVersion(int* version) {
  *version = control.driver_version;
  return CUDA_SUCCESS;
}
// Like a driver that cannot name codes, so cudakit's own table is used.
CUresult cuGetErrorName(CUresult, const char** text) {
  *text = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGetErrorString(CUresult, const char** text) {
  *text = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuDeviceGetCount(int* count) {
  *count = control.device_count;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal < 0 || ordinal >= control.device_count) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  std::string text = "Fake GPU " + std::to_string(device);
  std::strncpy(name, text.c_str(), static_cast<std::size_t>(length));
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  if (device < 0 || device >= control.device_count) return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = control.compute_major;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = control.compute_minor;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = 1024;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
      *value = 1024;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
      *value = 64;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
      *value = 2147483647;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
      *value = 65535;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = 132;
      break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
      *value = 32;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      *value = 48 * 1024;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *value = 227 * 1024;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
      *value = 65536;
      break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
      *value = 1;
      break;
    default:
      *value = 7;
      break;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t* bytes, CUdevice) {
  *bytes = control.total_bytes;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetPCIBusId(char* bus, int length, CUdevice device) {
  std::string text = "0000:0" + std::to_string(device) + ":00.0";
  std::strncpy(bus, text.c_str(), static_cast<std::size_t>(length));
  return CUDA_SUCCESS;
}
// Every pair of distinct fake devices can reach each other.
CUresult cuDeviceCanAccessPeer(int* can_access, CUdevice device, CUdevice peer) {
  if (device < 0 || device >= control.device_count || peer < 0 || peer >= control.device_count)
    return CUDA_ERROR_INVALID_DEVICE;
  *can_access = device != peer ? 1 : 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  if (device < 0 || device >= control.device_count) return CUDA_ERROR_INVALID_DEVICE;
  control.retain_calls++;
  *context = &contexts[device];
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext context) {
  control.set_current_calls++;
  current = context;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext* context) {
  *context = current;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* device) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *device = current->device;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() { return current ? sticky() : CUDA_ERROR_INVALID_CONTEXT; }
CUresult cuCtxSetLimit(CUlimit, size_t) { return current ? sticky() : CUDA_ERROR_INVALID_CONTEXT; }
CUresult cuCtxGetLimit(size_t* value, CUlimit) {
  *value = 1024;
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult cuMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *free_bytes = control.free_bytes;
  *total_bytes = control.total_bytes;
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr* ptr, size_t bytes) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (bytes > control.free_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  void* memory = std::malloc(bytes);
  if (!memory) return CUDA_ERROR_OUT_OF_MEMORY;
  control.live_allocations++;
  *ptr = reinterpret_cast<CUdeviceptr>(memory);
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr ptr) {
  control.live_allocations--;
  std::free(reinterpret_cast<void*>(ptr));
  return CUDA_SUCCESS;
}
CUresult cuMemAllocHost(void** ptr, size_t bytes) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *ptr = std::malloc(bytes);
  return *ptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFreeHost(void* ptr) {
  std::free(ptr);
  return CUDA_SUCCESS;
}
CUresult cuMemHostRegister(void* ptr, size_t bytes, unsigned int flags) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!ptr || bytes == 0 || flags > 0xf) return CUDA_ERROR_INVALID_VALUE;
  if (!registered_host.insert(ptr).second) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  control.live_host_registrations++;
  return CUDA_SUCCESS;
}
CUresult cuMemHostUnregister(void* ptr) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (registered_host.erase(ptr) == 0) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  control.live_host_registrations--;
  return CUDA_SUCCESS;
}
CUresult cuMemHostGetDevicePointer(CUdeviceptr* device, void* ptr, unsigned int flags) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  *device = reinterpret_cast<CUdeviceptr>(ptr);  // unified addressing
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  control.context_cache_config = config;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCacheConfig(CUfunc_cache* config) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *config = static_cast<CUfunc_cache>(control.context_cache_config);
  return CUDA_SUCCESS;
}
CUresult cuCtxSetSharedMemConfig(CUsharedconfig config) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  control.context_shared_config = config;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetSharedMemConfig(CUsharedconfig* config) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *config = static_cast<CUsharedconfig>(control.context_shared_config);
  return CUDA_SUCCESS;
}
CUresult cuFuncSetCacheConfig(CUfunction, CUfunc_cache config) {
  control.last_function_cache_config = config;
  return CUDA_SUCCESS;
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  if (CUresult error = sticky()) return error;
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  return cuMemcpy(dst, src, bytes);
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream) {
  if (CUresult error = sticky()) return error;
  std::memset(reinterpret_cast<void*>(dst), value, count);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count, CUstream) {
  if (CUresult error = sticky()) return error;
  auto* out = reinterpret_cast<unsigned short*>(dst);
  for (size_t i = 0; i < count; ++i) out[i] = value;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream) {
  if (CUresult error = sticky()) return error;
  auto* out = reinterpret_cast<unsigned int*>(dst);
  for (size_t i = 0; i < count; ++i) out[i] = value;
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *stream = new CUstream_st{flags};
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream stream) {
  delete stream;
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) { return sticky(); }
CUresult cuStreamQuery(CUstream) { return sticky(); }
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) { return sticky(); }
CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *event = new CUevent_st{flags, false};
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent event) {
  delete event;
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream) {
  event->recorded = true;
  return sticky();
}
CUresult cuEventSynchronize(CUevent) { return sticky(); }
CUresult cuEventQuery(CUevent) { return sticky(); }
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent stop) {
  if ((start->flags & CU_EVENT_DISABLE_TIMING) || (stop->flags & CU_EVENT_DISABLE_TIMING) ||
      !start->recorded || !stop->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  *ms = 1.5f;
  return CUDA_SUCCESS;
}
namespace {
// The kernels of an image: PTX names them after ".entry ", a cubin (ELF)
// has a section ".text.NAME" for each (the section headers end the file).
void add_entries(CUmod_st& module, const char* image) {
  std::string_view text;
  const char* marker = ".entry ";
  if (std::memcmp(image,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    std::uint64_t headers = 0;
    std::uint16_t header_bytes = 0, header_count = 0;
    std::memcpy(&headers, image + 0x28, sizeof headers);
    std::memcpy(&header_bytes, image + 0x3a, sizeof header_bytes);
    std::memcpy(&header_count, image + 0x3c, sizeof header_count);
    text = std::string_view(image, headers + std::uint64_t(header_bytes) * header_count);
    marker = ".text.";
  } else {
    text = image;
  }
  const std::string_view end_of_name("(\0 \t\n", 5);
  for (std::size_t at = text.find(marker); at != std::string_view::npos;
       at = text.find(marker, at + 1)) {
    const std::size_t start = at + std::strlen(marker);
    const std::size_t end = text.find_first_of(end_of_name, start);
    const std::string name(text.substr(start, end - start));
    if (name.empty() || std::find(module.entry_names.begin(), module.entry_names.end(), name) !=
                            module.entry_names.end())
      continue;
    module.entry_names.push_back(name);
    module.entries.push_back({module.entry_names.back().c_str(), 48 * 1024});
  }
}
}  // namespace

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*,
                            void**) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (control.module_load_result) return static_cast<CUresult>(control.module_load_result);
  if (!image) return CUDA_ERROR_INVALID_VALUE;
  *module = new CUmod_st{{{"vec_add", 48 * 1024}, {"faulty", 48 * 1024}, {"busy", 48 * 1024}}, 0};
  static const bool any_kernel = std::getenv("CUDAKIT_FAKE_ANY_KERNEL") != nullptr;
  if (any_kernel) add_entries(**module, static_cast<const char*>(image));
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule module) {
  delete module;
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  for (auto& candidate : module->functions)
    if (std::strcmp(candidate.name, name) == 0) {
      *function = &candidate;
      return CUDA_SUCCESS;
    }
  for (auto& candidate : module->entries)
    if (std::strcmp(candidate.name, name) == 0) {
      *function = &candidate;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult cuModuleGetGlobal(CUdeviceptr* ptr, size_t* bytes, CUmodule module, const char* name) {
  if (std::strcmp(name, "counter") != 0) return CUDA_ERROR_NOT_FOUND;
  *ptr = reinterpret_cast<CUdeviceptr>(&module->global);
  *bytes = sizeof module->global;
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = 1024;
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *value = 16;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = function->max_dynamic_shared;
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *value = 0;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *value = 90;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *value = 90;
      break;
    default:
      *value = 0;
      break;
  }
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  if (attribute == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) {
    if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
    control.last_function_carveout = value;
    return CUDA_SUCCESS;
  }
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_NOT_SUPPORTED;
  if (value > 227 * 1024) return CUDA_ERROR_INVALID_VALUE;
  function->max_dynamic_shared = value;
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction, int block_size,
                                                     size_t) {
  *blocks = block_size > 0 ? 2048 / block_size : 0;
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block, CUfunction, CUoccupancyB2DSize,
                                          size_t, int) {
  *min_grid = 264;
  *block = 1024;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction function, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                        CUstream, void**, void**) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult error = sticky()) return error;
  if (std::size_t(bx) * by * bz > 1024 || bz > 64 || bx == 0 || by == 0 || bz == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (gx == 0 || gy == 0 || gz == 0 || gy > 65535 || gz > 65535) return CUDA_ERROR_INVALID_VALUE;
  if (shared > static_cast<unsigned>(function->max_dynamic_shared)) return CUDA_ERROR_INVALID_VALUE;
  control.launches++;
  if (std::strcmp(function->name, "faulty") == 0) control.sticky_error = CUDA_ERROR_ILLEGAL_ADDRESS;
  return CUDA_SUCCESS;
}
// As a GPU of 132 multiprocessors with the occupancy above: a grid larger
// than can be resident at once is refused.
CUresult cuLaunchCooperativeKernel(CUfunction function, unsigned int gx, unsigned int gy,
                                   unsigned int gz, unsigned int bx, unsigned int by,
                                   unsigned int bz, unsigned int shared, CUstream stream,
                                   void** args) {
  const std::size_t threads = std::size_t(bx) * by * bz;
  if (threads > 0 && threads <= 1024 && std::size_t(gx) * gy * gz > (2048 / threads) * 132)
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  CUresult result = cuLaunchKernel(function, gx, gy, gz, bx, by, bz, shared, stream, args, nullptr);
  if (result == CUDA_SUCCESS) control.cooperative_launches++;
  return result;
}
CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule module) {
  *count = 3 + static_cast<unsigned>(module->entries.size());
  return CUDA_SUCCESS;
}
CUresult cuModuleEnumerateFunctions(CUfunction* functions, unsigned int count, CUmodule module) {
  for (unsigned i = 0; i < count && i < 3; ++i) functions[i] = &module->functions[i];
  for (unsigned i = 3; i < count && i - 3 < module->entries.size(); ++i)
    functions[i] = &module->entries[i - 3];
  return CUDA_SUCCESS;
}
CUresult cuFuncGetName(const char** name, CUfunction function) {
  *name = function->name;
  return CUDA_SUCCESS;
}
CUresult cuFuncGetParamInfo(CUfunction, size_t index, size_t* offset, size_t* size) {
  if (!control.has_param_info) return CUDA_ERROR_NOT_SUPPORTED;
  static const std::size_t sizes[] = {8, 8, 8, 4};
  if (index >= 4) return CUDA_ERROR_INVALID_VALUE;
  *offset = index * 8;
  *size = sizes[index];
  return CUDA_SUCCESS;
}

// The linker: logs go to the buffers given at cuLinkCreate, as the driver's do.
namespace {
void write_log(char* buffer, std::size_t bytes, const std::string& text) {
  if (!buffer || bytes == 0) return;
  const std::size_t n = std::min(bytes - 1, text.size());
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}
}  // namespace

CUresult cuLinkCreate(unsigned int count, CUjit_option* options, void** values,
                      CUlinkState* state) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  auto* link = new CUlinkState_st;
  for (unsigned i = 0; i < count; ++i) {
    const auto value = reinterpret_cast<std::uintptr_t>(values[i]);
    switch (options[i]) {
      case CU_JIT_ERROR_LOG_BUFFER:
        link->error_log = static_cast<char*>(values[i]);
        break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        link->error_log_bytes = value;
        break;
      case CU_JIT_INFO_LOG_BUFFER:
        link->info_log = static_cast<char*>(values[i]);
        break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        link->info_log_bytes = value;
        break;
      default:
        break;
    }
  }
  control.last_link_option_count = static_cast<int>(count);
  control.live_links++;
  *state = link;
  return CUDA_SUCCESS;
}
CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size,
                       const char* name, unsigned int, CUjit_option*, void**) {
  if (!data || size == 0) return CUDA_ERROR_INVALID_VALUE;
  const char* bytes = static_cast<const char*>(data);
  if (type == CU_JIT_INPUT_PTX) {
    control.last_ptx_terminated = bytes[size - 1] == '\0';
    if (std::string(bytes, size).find(".version") == std::string::npos) {
      write_log(state->error_log, state->error_log_bytes,
                std::string("ptxas fatal   : '") + name + "': not PTX");
      return CUDA_ERROR_INVALID_PTX;
    }
  }
  if (std::string(bytes, size).find("undefined_function") != std::string::npos)
    state->undefined = true;
  state->inputs.emplace_back(name ? name : "");
  return CUDA_SUCCESS;
}
CUresult cuLinkAddFile(CUlinkState state, CUjitInputType, const char* path, unsigned int,
                       CUjit_option*, void**) {
  if (FILE* file = std::fopen(path, "rb")) {
    std::fclose(file);
    state->inputs.emplace_back(path);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_FILE_NOT_FOUND;
}
CUresult cuLinkComplete(CUlinkState state, void** cubin, size_t* size) {
  control.last_link_inputs = static_cast<int>(state->inputs.size());
  if (state->undefined) {
    write_log(
        state->error_log, state->error_log_bytes,
        "error   : Undefined reference to 'undefined_function' in '" + state->inputs.front() + "'");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  write_log(state->info_log, state->info_log_bytes,
            "info    : linked " + std::to_string(state->inputs.size()) + " inputs");
  state->cubin = std::string(
                     "\x7f"
                     "ELF linked ") +
                 std::to_string(state->inputs.size());
  *cubin = state->cubin.data();
  *size = state->cubin.size();
  return CUDA_SUCCESS;
}
CUresult cuLinkDestroy(CUlinkState state) {
  delete state;
  control.live_links--;
  return CUDA_SUCCESS;
}
