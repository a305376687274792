// Kernels for the cross-stream tests: a slow writer that keeps a stream busy
// (clock64() spin: nanoseconds on the CPU backend, cycles on a GPU) and the
// stamp / check pair the pool stress test uses.
#pragma once

#include <cstdint>

#include "cudakit/backend_kind.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/module.hpp"
#include "cudakit/program.hpp"

namespace stream_test {

inline constexpr const char* kernels_source = R"(
// After `ticks` of spinning, a[i] = a[i] * 2 + 1 for every i (one thread).
__global__ void slow_scale(float* a, int n, long long ticks) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  long long start = clock64();
  while (clock64() - start < ticks) {
  }
  for (int i = 0; i < n; ++i) a[i] = a[i] * 2.0f + 1.0f;
}

// Spins, then writes `value` everywhere.
__global__ void stamp(int* a, int n, int value, long long ticks) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    long long start = clock64();
    while (clock64() - start < ticks) {
    }
  }
  __syncthreads();
  if (i < n) a[i] = value;
}

// Spins, then counts the elements that are not `value`.
__global__ void check(const int* a, int n, int value, long long ticks, int* errors) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    long long start = clock64();
    while (clock64() - start < ticks) {
    }
  }
  __syncthreads();
  if (i < n && a[i] != value) atomicAdd(errors, 1);
}
)";

// Long enough for everything queued on another stream meanwhile to run
// first when nothing orders it after the spin: ~0.3 s on the CPU backend,
// ~0.15 s on a 2 GHz GPU.
inline long long slow_ticks() { return 300'000'000; }

}  // namespace stream_test
