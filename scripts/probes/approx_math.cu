// Measures the tables of src/backend/cpu/prelude/cudakit_cpu_approx_math.h on
// the GPU and checks that header's rules against the GPU on every one of the
// 2^32 inputs of sin.approx.f32, cos.approx.f32, ex2.approx.ftz.f32, expf,
// logf, lg2.approx.ftz.f32, rsqrt.approx.ftz.f32 and rcp.approx.ftz.f32.
// Build and run (on the GPU machine):
//   nvcc -arch=sm_90 -O3 -I src/backend/cpu/prelude -o approx_math scripts/probes/approx_math.cu
//   ./approx_math DIR   (the tables as DIR/<name>.u32; scripts/probes/approx_tables.py
//   DIR then puts them into the source tree)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#define CUDAKIT_APPROX_FN __host__ __device__ inline
#include "cudakit_cpu_approx_math.h"

using namespace cudakit_approx;
constexpr unsigned kEmpty = 0xffffffffu;

__device__ unsigned long long g_conflicts;

__device__ void record(unsigned* table, unsigned q, unsigned value) {
  unsigned index = q, out = value;
  if (q >= kHalfTurnEntries) {
    index = q - kHalfTurnEntries;
    out ^= 0x80000000u;
  }
  const unsigned old = atomicCAS(&table[index], kEmpty, out);
  if (old != kEmpty && old != out) atomicAdd(&g_conflicts, 1ull);
}

// The GPU's functions, numbered as the checks count them.
enum Op { kSin, kCos, kEx2, kExpf, kLogf, kLg2, kRsqrt, kRcp, kOps };

__device__ float gpu_op(int op, float x) {
  float y = 0.0f;
  switch (op) {
    case kSin:
      asm("sin.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
      break;
    case kCos:
      asm("cos.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
      break;
    case kEx2:
      asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
      break;
    case kExpf:
      y = expf(x);
      break;
    case kLogf:
      y = logf(x);
      break;
    case kLg2:
      asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
      break;
    case kRsqrt:
      asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
      break;
    case kRcp:
      asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
      break;
  }
  return y;
}
// Every finite non-negative float x: MUFU.SIN and MUFU.COS of its turns
// recorded at their grid points of the half turn.
__global__ void measure_half_turn(unsigned* table) {
  const unsigned x_bits = blockIdx.x * blockDim.x + threadIdx.x;
  if (x_bits >= 0x7f800000u) return;
  const float x = __uint_as_float(x_bits);
  const float turns = __fmul_rz(x, kTurnsPerRadian);
  double magnitude = (double)turns;
  magnitude -= floor(magnitude);
  const unsigned q = (unsigned)(magnitude * 0x1p25);
  record(table, q, __float_as_uint(gpu_op(kSin, x)));
  record(table, (q + (1u << 23)) & ((1u << 25) - 1), __float_as_uint(gpu_op(kCos, x)));
}

__global__ void measure_fraction(unsigned* table) {
  const unsigned f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= kFractionEntries) return;
  table[f] = __float_as_uint(gpu_op(kEx2, (float)f * 0x1p-23f));
}

// lg2 of every float in [0.5, 2), rsqrt of [1, 4), rcp of [1, 2).
__global__ void measure_floats(int op, float first, unsigned* table, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  table[i] = __float_as_uint(gpu_op(op, __uint_as_float(__float_as_uint(first) + i)));
}

struct Tables {
  const unsigned *half_turn, *fraction, *log2_below, *log2_above, *rsqrt, *reciprocal;
};

constexpr int kKept = 8;
__device__ unsigned long long g_mismatches[kOps], g_holes;
__device__ unsigned g_examples[kOps][kKept][3];

__device__ float model_op(int op, float x, const Tables& t) {
  switch (op) {
    case kSin:
      return sin_approx(t.half_turn, x);
    case kCos:
      return cos_approx(t.half_turn, x);
    case kEx2:
      return ex2_approx(t.fraction, x);
    case kExpf:
      return gpu_expf(t.fraction, x);
    case kLogf:
      return gpu_logf(x);
    case kLg2:
      return lg2_approx(t.log2_below, t.log2_above, x);
    case kRsqrt:
      return rsqrt_approx(t.rsqrt, x);
    default:
      return rcp_approx(t.reciprocal, x);
  }
}

// All 2^32 inputs: `first` is the upper half's offset (two launches).
__global__ void check_all(int op, unsigned first, Tables tables) {
  const unsigned x_bits = first + blockIdx.x * blockDim.x + threadIdx.x;
  const float x = __uint_as_float(x_bits);
  const unsigned gpu = __float_as_uint(gpu_op(op, x));
  const unsigned model = __float_as_uint(model_op(op, x, tables));
  if (gpu == model) return;
  if (model == kEmpty) {
    atomicAdd(&g_holes, 1ull);
    return;
  }
  const unsigned long long n = atomicAdd(&g_mismatches[op], 1ull);
  if (n < kKept) {
    g_examples[op][n][0] = x_bits;
    g_examples[op][n][1] = gpu;
    g_examples[op][n][2] = model;
  }
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

static void save(const std::string& path, const unsigned* device, size_t n) {
  std::vector<unsigned> host(n);
  check(cudaMemcpy(host.data(), device, n * 4, cudaMemcpyDeviceToHost), "copy back");
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(host.data(), 4, n, f);
  std::fclose(f);
  size_t empty = 0;
  for (unsigned v : host) empty += v == kEmpty;
  std::printf("%s: %zu entries, %zu never reached\n", path.c_str(), n, empty);
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  unsigned *half_turn, *fraction;
  check(cudaMalloc(&half_turn, kHalfTurnEntries * 4), "malloc");
  check(cudaMalloc(&fraction, kFractionEntries * 4), "malloc");
  check(cudaMemset(half_turn, 0xff, kHalfTurnEntries * 4), "memset");
  measure_half_turn<<<0x7f800000u / 256, 256>>>(half_turn);
  measure_fraction<<<kFractionEntries / 256, 256>>>(fraction);
  check(cudaDeviceSynchronize(), "measure");
  unsigned long long conflicts = 0;
  check(cudaMemcpyFromSymbol(&conflicts, g_conflicts, sizeof conflicts), "symbol");
  std::printf("half turn: %llu conflicting measurements\n", conflicts);
  save(dir + "/half_turn.u32", half_turn, kHalfTurnEntries);
  save(dir + "/fraction.u32", fraction, kFractionEntries);
  unsigned* measured[4];
  const struct {
    int op;
    float first;
    unsigned n;
    const char* name;
  } direct[4] = {{kLg2, 0.5f, 1u << 23, "log2_below"},
                 {kLg2, 1.0f, 1u << 23, "log2_above"},
                 {kRsqrt, 1.0f, 1u << 24, "rsqrt"},
                 {kRcp, 1.0f, 1u << 23, "reciprocal"}};
  for (int k = 0; k < 4; ++k) {
    check(cudaMalloc(&measured[k], direct[k].n * 4), "malloc");
    measure_floats<<<direct[k].n / 256, 256>>>(direct[k].op, direct[k].first, measured[k],
                                               direct[k].n);
    check(cudaDeviceSynchronize(), "measure");
    save(dir + "/" + direct[k].name + ".u32", measured[k], direct[k].n);
  }
  const Tables tables = {half_turn, fraction, measured[0], measured[1], measured[2], measured[3]};
  const char* names[kOps] = {
      "sin.approx.f32", "cos.approx.f32",     "ex2.approx.ftz.f32",   "expf",
      "logf",           "lg2.approx.ftz.f32", "rsqrt.approx.ftz.f32", "rcp.approx.ftz.f32"};
  for (int op = 0; op < kOps; ++op) {
    for (unsigned half = 0; half < 2; ++half)
      check_all<<<(1u << 31) / 256, 256>>>(op, half << 31, tables);
    check(cudaDeviceSynchronize(), "check");
  }
  unsigned long long mismatches[kOps], holes;
  unsigned examples[kOps][kKept][3];
  check(cudaMemcpyFromSymbol(mismatches, g_mismatches, sizeof mismatches), "symbol");
  check(cudaMemcpyFromSymbol(&holes, g_holes, sizeof holes), "symbol");
  check(cudaMemcpyFromSymbol(examples, g_examples, sizeof examples), "symbol");
  std::printf("inputs reaching an unmeasured grid point: %llu\n", holes);
  for (int op = 0; op < kOps; ++op) {
    std::printf("%-20s %llu of 2^32 inputs differ from the model\n", names[op], mismatches[op]);
    for (unsigned long long k = 0; k < mismatches[op] && k < kKept; ++k)
      std::printf("    x=%08x gpu=%08x model=%08x\n", examples[op][k][0], examples[op][k][1],
                  examples[op][k][2]);
  }
  return 0;
}
