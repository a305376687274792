// Built by nvcc into a cubin, a fatbin and PTX for the module format tests.
extern "C" __global__ void add_one(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}
