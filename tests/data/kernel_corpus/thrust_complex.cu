// thrust::complex<float> arithmetic and functions, as CUDA users write
// complex kernels without PyCUDA's header.
#include <thrust/complex.h>

__global__ void thrust_complex(const thrust::complex<float>* a, const thrust::complex<float>* b,
                               thrust::complex<float>* out, float* magnitude, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const thrust::complex<float> z = a[i] * b[i] + thrust::exp(a[i]) - thrust::conj(b[i]) / 2.0f;
  out[i] = z + thrust::sqrt(a[i]);
  magnitude[i] = thrust::abs(z) + thrust::arg(b[i]);
}
