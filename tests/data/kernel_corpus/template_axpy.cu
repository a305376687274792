// A template kernel (C++ linkage: compiled with no_extern_c) with explicit
// instantiations, each fetched by its name expression ("axpy<float>").
template <typename T>
__global__ void axpy(T alpha, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

template __global__ void axpy<float>(float, const float*, float*, int);
template __global__ void axpy<double>(double, const double*, double*, int);
