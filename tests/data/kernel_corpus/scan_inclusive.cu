// Block-level inclusive scan (Hillis-Steele, double-buffered in shared
// memory): each block scans its own BLOCK elements of the input.
#define BLOCK 256

__global__ void scan_inclusive(const int* in, int* out, int n) {
  __shared__ int buffer[2][BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  int from = 0;
  buffer[from][tid] = (i < n) ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    int to = 1 - from;
    int value = buffer[from][tid];
    if (tid >= offset) value += buffer[from][tid - offset];
    buffer[to][tid] = value;
    from = to;
    __syncthreads();
  }
  if (i < n) out[i] = buffer[from][tid];
}
