// The binary interface between cudakit's CPU runtime and a kernel module
// compiled by the host compiler. Both sides include this header: the runtime
// (C++20, inside libcudakit) and every generated module (C++17 or later).
// The module receives the runtime's functions through RuntimeTable at load,
// so the shared object needs no symbol from the executable; the runtime finds
// the module's kernels and globals through ModuleInfo. Change kAbiVersion
// whenever a layout here changes.
#ifndef CUDAKIT_CPU_ABI_H
#define CUDAKIT_CPU_ABI_H

#include <stddef.h>

namespace cudakit_cpu {

constexpr unsigned kAbiVersion = 5;

// Per OS thread: where the coordinates of the CUDA thread running now live.
// The module owns the storage (its thread_local threadIdx, blockIdx,
// blockDim and gridDim, each three unsigned {x, y, z}); the runtime writes
// them before it runs a block and at every fiber switch.
struct ThreadStateLayout {
  void* thread_idx;
  void* block_idx;
  void* block_dim;
  void* grid_dim;
};

// What the runtime gives the module: the operations that need the block
// scheduler (barriers, warp operations) and the block's dynamic shared memory.
struct RuntimeTable {
  unsigned abi_version;
  // __syncthreads_count: waits for every live thread of the block, returns
  // how many passed a non-zero predicate.
  int (*syncthreads_count)(int predicate);
  // __syncwarp: waits for the live lanes of `mask` in this thread's warp.
  void (*syncwarp)(unsigned mask);
  // Every lane of `mask` publishes `value`; returns the value of `src_lane`
  // (0..31 within the warp), or the caller's own when that lane is absent.
  unsigned long long (*warp_exchange)(unsigned mask, unsigned long long value, int src_lane);
  // __ballot_sync over the live lanes of `mask`.
  unsigned (*warp_ballot)(unsigned mask, int predicate);
  // __activemask(): with `site` null, the live (not exited) lanes of this
  // thread's warp. With a call site's identity, the lanes that reach that
  // same site together: the call waits until no lane of the warp can run any
  // further (each waits somewhere or has exited), as a GPU runs a warp's
  // divergent paths one after the other, and returns the lanes waiting there.
  unsigned (*activemask)(const void* site);
  // The block's `extern __shared__` buffer (aligned to 64 bytes).
  void* (*dynamic_shared)();
  // Lets the other threads of the block run (__nanosleep, spin loops).
  void (*yield)();
  // __trap(): ends the kernel with an error naming `what`.
  void (*trap)(const char* what);
  // cooperative_groups::this_grid().sync(): waits for every thread of every
  // block of a cooperative launch; a fault (KernelFault) in any other launch.
  void (*grid_sync)();
  // printf's formatted text: written if it fits in what is left of the
  // launch's printf buffer (printf_fifo_size), else counted as lost.
  // Returns `length`, or -1 when lost.
  int (*printf_output)(const char* text, size_t length);
  // The measured table `which` (an ApproxTableId) of the GPU's approximate
  // functions; null where the runtime could not decode it.
  const unsigned* (*approx_table)(int which);
};

// The measured tables of the GPU's approximate functions
// (cudakit_cpu_approx_math.h), as RuntimeTable::approx_table numbers them.
enum ApproxTableId : int {
  kApproxHalfTurn = 0,    // MUFU.SIN over half a turn, 2^24 entries
  kApproxFraction = 1,    // MUFU.EX2 over [0, 1), 2^23
  kApproxLog2Below = 2,   // MUFU.LG2 over [0.5, 1), 2^23
  kApproxLog2Above = 3,   // MUFU.LG2 over [1, 2), 2^23
  kApproxRsqrt = 4,       // MUFU.RSQ over [1, 4), 2^24
  kApproxReciprocal = 5,  // MUFU.RCP over [1, 2), 2^23
  kApproxTableCount = 6
};

// One parameter as the compiled code declares it. scalar_kind numbers
// follow cudakit::ScalarType (0 unknown, 1 bool, 2 i8, 3 u8, 4 i16, 5 u16,
// 6 i32, 7 u32, 8 i64, 9 u64, 10 f16, 11 bf16, 12 f32, 13 f64).
struct ParamInfo {
  size_t size;
  size_t align;
  int is_pointer;
  int scalar_kind;
};

struct KernelEntry {
  const char* name;                 // name as the user spells it (or the name expression)
  void (*run_thread)(void** args);  // runs the current CUDA thread
  void (*run_block)(void** args);   // runs every thread of the block in a loop
  unsigned param_count;
  const ParamInfo* params;
  int uses_barrier;     // needs fibers (barriers or warp operations)
  const void* address;  // the kernel function (its symbol names it)
};

struct GlobalEntry {
  const char* name;
  void* address;
  size_t size;
};

struct ModuleInfo {
  unsigned abi_version;
  const KernelEntry* kernels;
  unsigned kernel_count;
  const GlobalEntry* globals;
  unsigned global_count;
  void (*init)(const RuntimeTable* runtime);
  ThreadStateLayout (*thread_state)();  // this OS thread's variables in the module
};

// A texture or surface as kernels read it (cudakit_cpu_texture.h), filled by
// backend/cpu/cpu_texture.cpp: an object's handle is its address, a
// texture<>/surface<> reference is one (a module global, written when the
// host binds the reference).
struct TextureRecord {
  unsigned long long magic;        // kTextureMagic once bound
  unsigned long long data;         // address of texel (0, 0, 0)
  unsigned long long pitch;        // bytes from one row to the next
  unsigned long long slice_pitch;  // bytes from one slice (or layer) to the next
  unsigned width, height, depth;   // texels; depth counts layers when layered
  unsigned layered;                // 1: the last dimension is the layer
  unsigned format;                 // CUarray_format: 0x01 u8 ... 0x10 half, 0x20 float
  unsigned channels;               // 1, 2 or 4
  unsigned address_mode[3];        // 0 wrap, 1 clamp, 2 mirror, 3 border
  unsigned filter;                 // 0 point, 1 linear
  unsigned flags;                  // 1 read as integer, 2 normalized coordinates
  unsigned kind;                   // 1 linear memory, 2 pitch 2-D, 3 CUDA array
  float border_color[4];
  unsigned surface;   // 1: the memory may be written through a surface
  unsigned array_3d;  // 1: a 3-D CUDA array (made with a depth, even of 1)
  unsigned reserved[6];
};
static_assert(sizeof(TextureRecord) == 128, "the host packs 128 bytes");
constexpr unsigned long long kTextureMagic = 0x3143455258544B43ull;  // "CKTXREC1"
}  // namespace cudakit_cpu

// Every module exports exactly this function.
#define CUDAKIT_CPU_MODULE_SYMBOL "cudakit_cpu_module"

#endif  // CUDAKIT_CPU_ABI_H
