// cub's block reduction as users write it: each block of 128 threads sums
// its slice of the input (two items per thread) into partial[blockIdx.x].
#include <cub/block/block_reduce.cuh>

__global__ void cub_block_reduce(const float* in, float* partial, int n) {
  typedef cub::BlockReduce<float, 128> BlockReduceT;
  __shared__ typename BlockReduceT::TempStorage temp_storage;
  const int base = blockIdx.x * 256 + threadIdx.x;
  float items[2];
  items[0] = base < n ? in[base] : 0.0f;
  items[1] = base + 128 < n ? in[base + 128] : 0.0f;
  const float sum = BlockReduceT(temp_storage).Sum(items);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}
