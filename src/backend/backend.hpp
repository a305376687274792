// The backend seam: everything cudakit's core needs from a device, behind
// one interface. The CUDA backend (src/backend/cuda/) implements it over the
// driver API and NVRTC; the CPU backend (src/backend/cpu/) over host threads
// and the host C++ compiler. Backend-neutral code (src/core, src/array)
// talks to devices only through this class and never includes a CUDA header.
//
// Conventions for implementations:
// - Every failure is a cudakit exception (include/cudakit/error.hpp) that
//   names what was being done; a CUDA status maps to the most specific class
//   (OutOfMemory, KernelFault, LaunchConfigError, NoKernelImage, ...).
// - Device ordinals are those of the backend (0..device_count()-1).
// - A null NativeStream is the device's default (legacy, synchronizing) stream.
// - Methods are thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cudakit/backend_kind.hpp"
#include "cudakit/cache_config.hpp"
#include "cudakit/compile_options.hpp"
#include "cudakit/compiled_code.hpp"
#include "cudakit/cuda_array.hpp"
#include "cudakit/device_attribute.hpp"
#include "cudakit/device_properties.hpp"
#include "cudakit/dim3.hpp"
#include "cudakit/error.hpp"
#include "cudakit/gpu_compiler_info.hpp"
#include "cudakit/kernel_attributes.hpp"
#include "cudakit/link_input.hpp"
#include "cudakit/param_layout.hpp"
#include "cudakit/texture.hpp"

namespace cudakit {
class Device;
}

namespace cudakit::detail {

class CommBackend;  // backend/comm_backend.hpp

using DevicePtr = std::uint64_t;  // CUdeviceptr, or a host address on the CPU backend
using NativeStream = void*;       // CUstream, or the CPU backend's stream object
using NativeEvent = void*;        // CUevent, or the CPU backend's event object
using NativeModule = void*;       // CUmodule, or the CPU backend's loaded shared object
using NativeKernel = void*;       // CUfunction, or the CPU backend's kernel record
using IpcHandleBytes = std::array<unsigned char, 64>;  // CUipcMemHandle's bytes
using NativeArray = void*;  // CUarray, or the CPU backend's CpuArray record (cpu/cpu_array.hpp)

// The refusal of CUDA IPC by the CPU backend, whose memory no other process can map.
[[noreturn]] inline void throw_ipc_not_supported(const char* doing) {
  throw NotSupported(doing,
                     "CUDA IPC maps GPU memory into another process; the CPU backend's device "
                     "memory is ordinary memory of one process, which no other process can map",
                     "run on the CUDA backend (a GPU), or send the values instead: pickle the "
                     "array (it travels as its values) or share host memory "
                     "(multiprocessing.shared_memory)");
}

// What the compile stage is given: the final source (already wrapped in
// extern "C" by the core when asked), options with the arch resolved, and
// in-memory headers.
struct CompileRequest {
  std::string source;
  std::string source_name = "kernel.cu";  // shown in compiler messages
  CompileOptions options;                 // options.arch is never empty here
};

// A matrix product C = op(A) op(B) in column-major (BLAS) terms, for the
// arrays' matmul: C is m x n with leading dimension ldc, op(A) m x k, op(B)
// k x n; op transposes when asked. Addresses are device addresses, strides of
// a batch in elements.
struct GemmRequest {
  ScalarType type = ScalarType::f32;  // of A, B and C: f16, bf16, f32 or f64
  bool transpose_a = false;
  bool transpose_b = false;
  std::int64_t m = 0, n = 0, k = 0;
  DevicePtr a = 0, b = 0, c = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::int64_t batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  bool allow_tf32 = false;  // f32 on tensor cores, with TF32 inputs
};

// One end of a box copy as the backend gets it: checked by the core
// (src/core/copy_3d.cpp), with pitch and height resolved (never 0 for host
// and device memory). `ordinal` is the device that device memory or an array
// belongs to (-1 for host memory): ends of two devices copy as a peer copy.
struct BoxCopyEnd {
  CopyEnd::Kind kind = CopyEnd::Kind::host;
  void* host = nullptr;
  DevicePtr device = 0;
  NativeArray array = nullptr;
  int ordinal = -1;
  std::size_t x_bytes = 0, y = 0, z = 0;
  std::size_t pitch = 0;   // host / device: bytes per row
  std::size_t height = 0;  // host / device: rows per slice
};

// A box of width_bytes x height x depth (every extent >= 1), as cuMemcpy3D.
struct BoxCopy {
  BoxCopyEnd src, dst;
  std::size_t width_bytes = 0, height = 1, depth = 1;
};

// A texture object as the backend gets it, checked by the core
// (src/core/texture_object.cpp). For an array, the array's descriptor.
struct TextureRequest {
  TextureResource::Kind kind = TextureResource::Kind::linear;
  NativeArray array = nullptr;
  DevicePtr device = 0;
  CudaArrayDescriptor layout;  // format, channels, width (linear: elements), height, depth, flags
  std::size_t bytes = 0;       // linear
  std::size_t pitch = 0;       // pitch_2d
  TextureDescriptor descriptor;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual BackendKind kind() const noexcept = 0;

  // ---- devices and contexts -------------------------------------------------
  // Number of usable devices; 0 (not an exception) when the backend loads but
  // sees none. Throws DriverNotFound (cuda) when the driver cannot be loaded.
  virtual int device_count() = 0;
  virtual DeviceProperties properties(int ordinal) = 0;
  virtual std::int64_t attribute(int ordinal, DeviceAttribute attribute) = 0;
  // Retains the primary context (once) and makes it current on this thread.
  virtual void make_current(int ordinal) = 0;
  // The ordinal whose context is current on this thread; 0 if none is.
  virtual int current_device() = 0;
  virtual void synchronize(int ordinal) = 0;
  virtual MemoryInfo memory_info(int ordinal) = 0;
  virtual std::size_t limit(int ordinal, ContextLimit which) = 0;
  virtual void set_limit(int ordinal, ContextLimit which, std::size_t value) = 0;
  // The primary context's L1 / shared memory preference and bank size
  // (cuCtxSetCacheConfig / cuCtxSetSharedMemConfig); backends without the
  // notion record the value so it reads back.
  virtual void set_cache_preference(int ordinal, CachePreference preference) {
    (void)ordinal;
    (void)preference;
    throw NotSupported("setting the cache preference", "this backend has no cache configuration");
  }
  virtual CachePreference cache_preference(int ordinal) {
    (void)ordinal;
    return CachePreference::prefer_none;
  }
  virtual void set_shared_memory_bank_size(int ordinal, SharedMemoryBankSize size) {
    (void)ordinal;
    (void)size;
    throw NotSupported("setting the shared memory bank size",
                       "this backend has no shared memory configuration");
  }
  virtual SharedMemoryBankSize shared_memory_bank_size(int ordinal) {
    (void)ordinal;
    return SharedMemoryBankSize::default_size;
  }
  // Whether device `ordinal` can access device `peer`'s memory directly
  // (cuDeviceCanAccessPeer); false for a device and itself, as CUDA answers,
  // and where the backend cannot tell. ArgumentError for a bad ordinal.
  virtual bool can_access_peer(int ordinal, int peer) {
    (void)ordinal;
    (void)peer;
    return false;
  }
  // Driver version as CUDA encodes it (13000 = 13.0); 0 on the CPU backend.
  virtual int driver_version() = 0;

  // ---- memory ---------------------------------------------------------------
  // Throws OutOfMemory (with requested and free bytes) when it cannot.
  virtual DevicePtr allocate(int ordinal, std::size_t bytes) = 0;
  virtual void deallocate(int ordinal, DevicePtr ptr) noexcept = 0;
  // A caching allocator hands out `used` bytes of a block of `capacity`:
  // a backend that checks accesses (the CPU backend under
  // CUDAKIT_CPU_DEBUG) makes the rest of the block an error to touch, so a
  // write one element past an array is reported although the block is larger.
  // `used == capacity` makes the whole block usable again.
  virtual void set_usable_bytes(DevicePtr /*block*/, std::size_t /*used*/,
                                std::size_t /*capacity*/) noexcept {}
  // Page-locked host memory (plain aligned memory on the CPU backend).
  virtual void* allocate_pinned(std::size_t bytes) = 0;
  virtual void deallocate_pinned(void* ptr) noexcept = 0;
  // Page-locks memory allocated elsewhere (cuMemHostRegister with `flags`,
  // CU_MEMHOSTREGISTER_*); the CPU backend only records the range.
  // ArgumentError when the range overlaps one already registered.
  virtual void register_host(void* ptr, std::size_t bytes, unsigned flags) {
    (void)ptr;
    (void)bytes;
    (void)flags;
    throw NotSupported("page-locking host memory", "this backend cannot register host memory");
  }
  // ArgumentError when `ptr` does not start a registered range.
  virtual void unregister_host(void* ptr) {
    (void)ptr;
    throw NotSupported("unregistering host memory", "this backend cannot register host memory");
  }
  // The device address of page-locked host memory, allocated or registered.
  virtual DevicePtr host_device_pointer(void* ptr) {
    (void)ptr;
    throw NotSupported("mapping host memory into the device's address space",
                       "this backend cannot map host memory");
  }
  // Managed (unified) memory: one address for the host and every device
  // (cuMemAllocManaged; `attach_flags` CU_MEM_ATTACH_GLOBAL or _HOST), freed
  // with deallocate(). The CPU backend hands out device memory, which the
  // host reaches anyway. ArgumentError for other flags.
  virtual DevicePtr allocate_managed(int ordinal, std::size_t bytes, unsigned attach_flags) {
    (void)ordinal;
    (void)bytes;
    (void)attach_flags;
    throw NotSupported("allocating managed memory", "this backend has no managed memory");
  }
  // Attaches managed memory to `stream` (cuStreamAttachMemAsync, ordered on
  // the stream; `attach_flags` CU_MEM_ATTACH_GLOBAL, _HOST or _SINGLE).
  virtual void attach_managed(NativeStream stream, DevicePtr ptr, std::size_t bytes,
                              unsigned attach_flags) {
    (void)stream;
    (void)ptr;
    (void)bytes;
    (void)attach_flags;
    throw NotSupported("attaching managed memory to a stream", "this backend has none");
  }
  // {start, bytes} of the allocation that contains `ptr` (cuMemGetAddressRange);
  // ArgumentError when no allocation of the backend's contains it.
  virtual std::pair<DevicePtr, std::size_t> address_range(DevicePtr ptr) {
    (void)ptr;
    throw NotSupported("finding the allocation an address lies in",
                       "this backend does not track its allocations");
  }
  // Interprocess memory (cuIpcGetMemHandle / cuIpcOpenMemHandle_v2 /
  // cuIpcCloseMemHandle): the handle of the allocation starting at `base`,
  // its mapping in another process (`flags`: CU_IPC_MEM_*), and the unmapping.
  // The CPU backend's memory lives in one process's address space: NotSupported.
  virtual IpcHandleBytes ipc_get_handle(int ordinal, DevicePtr base) {
    (void)ordinal;
    (void)base;
    throw_ipc_not_supported("exporting device memory to another process");
  }
  virtual DevicePtr ipc_open(int ordinal, const IpcHandleBytes& handle, unsigned flags) {
    (void)ordinal;
    (void)handle;
    (void)flags;
    throw_ipc_not_supported("opening device memory of another process");
  }
  virtual void ipc_close(int ordinal, DevicePtr ptr) {
    (void)ordinal;
    (void)ptr;
    throw_ipc_not_supported("closing device memory of another process");
  }
  // Copies between any two of host / pinned / device memory (unified
  // addressing decides the direction). async=false returns when the copy is
  // complete; async=true is ordered on `stream` and returns at once.
  virtual void copy(void* dst, const void* src, std::size_t bytes, NativeStream stream,
                    bool async) = 0;
  // Sets `count` elements of `element_bytes` (1, 2 or 4) to `value`.
  virtual void fill(DevicePtr dst, std::uint32_t value, unsigned element_bytes, std::size_t count,
                    NativeStream stream, bool async) = 0;

  // ---- CUDA arrays (cuArray3DCreate) and box copies (cuMemcpy3D) ----------------
  // The core has checked the descriptor. OutOfMemory when the device is full.
  virtual NativeArray create_array(int ordinal, const CudaArrayDescriptor& descriptor) {
    (void)ordinal;
    (void)descriptor;
    throw NotSupported("creating a CUDA array", "this backend has no CUDA arrays");
  }
  virtual void destroy_array(NativeArray array) noexcept { (void)array; }
  // The core has checked the box against both ends. async=false returns when
  // the copy is complete; async=true is ordered on `stream`.
  virtual void copy_3d(const BoxCopy& copy, NativeStream stream, bool async) {
    (void)copy;
    (void)stream;
    (void)async;
    throw NotSupported("a box copy (cuMemcpy3D)", "this backend has no box copies");
  }

  // ---- texture and surface objects (cuTexObjectCreate, cuSurfObjectCreate) ------
  // The core has checked the request; the handle is what a kernel takes.
  virtual std::uint64_t create_texture_object(int ordinal, const TextureRequest& request) {
    (void)ordinal;
    (void)request;
    throw NotSupported("creating a texture object", "this backend has no textures");
  }
  virtual void destroy_texture_object(std::uint64_t handle) noexcept { (void)handle; }
  virtual std::uint64_t create_surface_object(int ordinal, NativeArray array,
                                              const CudaArrayDescriptor& layout) {
    (void)ordinal;
    (void)array;
    (void)layout;
    throw NotSupported("creating a surface object", "this backend has no surfaces");
  }
  virtual void destroy_surface_object(std::uint64_t handle) noexcept { (void)handle; }
  // Writes the texture<>/surface<> reference at `record` (a module global):
  // bound to `request`, or unbound when it is null. The CPU backend's only:
  // CUDA 12 removed references.
  virtual void bind_texture_reference(DevicePtr record, const TextureRequest* request,
                                      bool surface) {
    (void)record;
    (void)request;
    (void)surface;
    throw NotSupported("binding a texture or surface reference",
                       "CUDA 12 removed texture and surface references (NVRTC cannot compile "
                       "them for a GPU); the CPU backend has them",
                       "use a texture or surface object (TextureObject, cudaTextureObject_t)");
  }

  // ---- streams and events ---------------------------------------------------
  virtual NativeStream create_stream(int ordinal, bool non_blocking) = 0;
  virtual void destroy_stream(NativeStream stream) noexcept = 0;
  virtual void synchronize_stream(NativeStream stream) = 0;
  // true when all work on the stream has completed.
  virtual bool query_stream(NativeStream stream) = 0;
  virtual void stream_wait_event(NativeStream stream, NativeEvent event) = 0;
  virtual NativeEvent create_event(int ordinal, bool timing) = 0;
  virtual void destroy_event(NativeEvent event) noexcept = 0;
  virtual void record_event(NativeEvent event, NativeStream stream) = 0;
  virtual void synchronize_event(NativeEvent event) = 0;
  virtual bool query_event(NativeEvent event) = 0;
  virtual float elapsed_ms(NativeEvent start, NativeEvent stop) = 0;

  // ---- compile and load -------------------------------------------------------
  // A string that changes whenever the compiler's output could change for the
  // same source and options: "nvrtc 13.0" / "g++ 12.2.0 (/usr/bin/g++)".
  // Part of the compile-cache key.
  virtual std::string compiler_identity() = 0;
  // The GPU compiler's version and archs (NVRTC's); the CPU backend has none.
  virtual GpuCompilerInfo gpu_compiler_info() {
    throw NotSupported("asking for the GPU compiler", "this backend compiles for the host",
                       "ask the CUDA backend (it needs NVRTC, not a GPU)");
  }
  // The arch to compile for on `ordinal` when the user names none
  // ("sm_90"; "cpu" on the CPU backend).
  virtual std::string default_arch(int ordinal) = 0;
  // Compiles; throws CompileError with the log on failure. Needs no device.
  virtual CompiledCode compile(const CompileRequest& request) = 0;
  // Loads code into the device's (primary) context.
  virtual NativeModule load_module(int ordinal, const CompiledCode& code) = 0;
  virtual void unload_module(NativeModule module) noexcept = 0;
  // Entry-point symbol names in the module (mangled names for C++ linkage).
  virtual std::vector<std::string> kernel_symbols(NativeModule module) = 0;
  // Throws ArgumentError naming the symbols that do exist when missing.
  virtual NativeKernel get_kernel(NativeModule module, const std::string& symbol) = 0;
  // The parameter layout as the compiled code declares it (sizes, offsets,
  // alignment, pointer or not where known). The core refines type names from
  // the source's signatures.
  virtual ParamLayout param_layout(NativeModule module, const std::string& symbol) = 0;
  virtual KernelAttributes kernel_attributes(NativeKernel kernel) = 0;
  virtual void set_max_dynamic_shared_memory(NativeKernel kernel, std::size_t bytes) = 0;
  // The kernel's L1 / shared memory preference (cuFuncSetCacheConfig).
  virtual void set_kernel_cache_preference(NativeKernel kernel, CachePreference preference) {
    (void)kernel;
    (void)preference;
    throw NotSupported("setting a kernel's cache preference",
                       "this backend has no cache configuration");
  }
  // The share of the L1 / shared memory the kernel prefers as shared memory,
  // in percent (-1: the device's default): the driver's
  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT.
  virtual void set_kernel_shared_memory_carveout(NativeKernel kernel, int percent) {
    (void)kernel;
    (void)percent;
    throw NotSupported("setting a kernel's shared memory carveout",
                       "this backend has no shared memory / L1 split");
  }
  // Links relocatable device code, libraries and binaries into one cubin for
  // the device's arch (the driver's JIT linker). CudaError with the linker's
  // error log when it fails; NotSupported on backends without a linker.
  virtual CompiledCode link(int ordinal, const std::vector<LinkInput>& inputs,
                            const LinkOptions& options) {
    (void)ordinal;
    (void)inputs;
    (void)options;
    throw NotSupported(
        "linking device code (separate compilation, dynamic parallelism)",
        "this backend has no device-code linker",
        "separate compilation and device-side kernel launches need a GPU (the CUDA backend); "
        "on the CPU backend, put the code in one source and launch kernels from the host");
  }
  // Address and size of a __device__ / __constant__ variable.
  virtual std::pair<DevicePtr, std::size_t> get_global(NativeModule module,
                                                       const std::string& name) = 0;
  virtual int max_active_blocks_per_multiprocessor(NativeKernel kernel, int block_size,
                                                   std::size_t dynamic_shared_bytes) = 0;
  // {min grid size for full occupancy, block size}.
  virtual std::pair<int, int> suggest_block_size(NativeKernel kernel,
                                                 std::size_t dynamic_shared_bytes) = 0;

  // ---- launch -----------------------------------------------------------------
  // `args` points to one pointer per parameter, each pointing at the value
  // (as cuLaunchKernel takes them). Config checks have been done by the core;
  // the backend maps what the driver still rejects. `kernel_name` is kept for
  // fault reports. Must not allocate on the hot path.
  virtual void launch(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
                      unsigned dynamic_shared_bytes, NativeStream stream, void** args) = 0;
  // A launch whose blocks are all resident at once, so the kernel may wait
  // for the whole grid (cooperative_groups::this_grid().sync()). The core
  // has checked the grid against max_cooperative_grid_blocks().
  virtual void launch_cooperative(NativeKernel kernel, const char* kernel_name, Dim3 grid,
                                  Dim3 block, unsigned dynamic_shared_bytes, NativeStream stream,
                                  void** args) {
    (void)kernel;
    (void)grid;
    (void)block;
    (void)dynamic_shared_bytes;
    (void)stream;
    (void)args;
    throw NotSupported(
        std::string("a cooperative launch of kernel ") + (kernel_name ? kernel_name : "(unnamed)"),
        "this backend cannot launch a grid whose blocks wait for each other");
  }
  // The most blocks of `block_size` threads that can be resident at once:
  // occupancy x multiprocessors, as a GPU computes it.
  virtual long long max_cooperative_grid_blocks(int ordinal, NativeKernel kernel, int block_size,
                                                std::size_t dynamic_shared_bytes) {
    const long long per_sm =
        max_active_blocks_per_multiprocessor(kernel, block_size, dynamic_shared_bytes);
    return per_sm * attribute(ordinal, DeviceAttribute::multiprocessor_count);
  }

  // ---- dense linear algebra (optional) ------------------------------------------
  // Whether gemm() runs products of `type` (the CUDA backend when cuBLAS
  // loads; never the CPU backend, whose arrays use generated kernels).
  virtual bool gemm_available(ScalarType type) {
    (void)type;
    return false;
  }
  // Queues the product on `stream`. NotSupported where gemm_available() is
  // false; CudaError (with the library's status) when the library fails.
  virtual void gemm(int ordinal, NativeStream stream, const GemmRequest& request) {
    (void)ordinal;
    (void)stream;
    (void)request;
    throw NotSupported("a matrix product through a vendor library",
                       "this backend has none; use the generated kernels");
  }

  // ---- collectives (optional) -----------------------------------------------------
  // The backend's communicators and collectives (backend/comm_backend.hpp);
  // null when it has none.
  virtual CommBackend* collectives() { return nullptr; }
};

// The process-wide instance of a backend, created on first use. Throws the
// backend's not-found error (DriverNotFound, ...) when it cannot be created.
Backend& backend(BackendKind kind);
// The backend `device` runs on. A free function here rather than a member of
// the public Device, because Backend exists only under src/ (defined with Device).
Backend& backend_of(const Device& device);

}  // namespace cudakit::detail
