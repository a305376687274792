// The CUDA samples' shared-memory reduction (first add during the load,
// sequential addressing): each block sums 2 * blockDim.x elements into
// partial[blockIdx.x]. blockDim.x must be a power of two; the shared array
// is dynamic (blockDim.x floats).
__global__ void reduce_sum(const float* in, float* partial, int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float sum = (i < n) ? in[i] : 0.0f;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}
