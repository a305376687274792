// Kernel sources shared by the CPU backend's tests and the CPU/GPU parity
// tests: warp operations and a block reduction mixing barriers and shuffles.
// One copy, so the parity test compares exactly the kernels the CPU tests check.
#pragma once

namespace cudakit::test_kernels {

// warp_sum: one shuffle-down sum per warp; ballot: each warp's vote mask;
// shuffles: indexed, up and xor shuffles; votes: any / all; partial_warp:
// the active mask of a block whose last warp is partial.
inline constexpr const char* warp_source = R"(
__global__ void warp_sum(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffff, v, offset);
  if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}
__global__ void ballot(const int* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, i < n && in[i] > 0);
  if ((threadIdx.x & 31) == 0) out[i / 32] = b;
}
__global__ void shuffles(const int* in, int* idx_out, int* up_out, int* xor_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  idx_out[i] = __shfl_sync(0xffffffff, v, 7);
  up_out[i] = __shfl_up_sync(0xffffffff, v, 3);
  xor_out[i] = __shfl_xor_sync(0xffffffff, v, 5, 16);
}
__global__ void votes(const int* in, int* any_out, int* all_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  any_out[i] = __any_sync(0xffffffff, in[i] > 90);
  all_out[i] = __all_sync(0xffffffff, in[i] > 5);
}
__global__ void partial_warp(unsigned* out) {
  unsigned m = __activemask();
  unsigned b = __ballot_sync(m, 1);
  out[threadIdx.x] = b;
}
)";

// block_sum: per-block sums, each warp reduced with shuffles, the warp totals
// gathered through shared memory after a barrier and reduced by warp 0.
inline constexpr const char* block_reduction_source = R"(
__inline__ __device__ float warp_reduce(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = warp_reduce(v);
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / warpSize ? partial[lane] : 0.0f;
  if (warp == 0) v = warp_reduce(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
)";

}  // namespace cudakit::test_kernels
