// Complex arithmetic with PyCUDA's pycuda::complex<T>, as PyCUDA's examples
// write it: arithmetic, conj/abs/norm/arg and the transcendental functions.
#include <pycuda-complex.hpp>

typedef pycuda::complex<double> cdouble;

__global__ void complex_math(const cdouble* a, const cdouble* b, cdouble* arith,
                             cdouble* roots, cdouble* logs, cdouble* trig, double* norms, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cdouble x = a[i], y = b[i];
  arith[i] = x * y + x / y - conj(x) * abs(y) + 2.0 * x - y / 3.0;
  roots[i] = sqrt(x) + exp(y) + pycuda::polar(abs(x), arg(y));
  logs[i] = log(x) + pow(x, y) + pow(y, 2.0) + log10(y);
  trig[i] = sin(x) * cos(y) + tanh(x) - sinh(y) + cosh(x) / tan(y);
  norms[i] = norm(x) + real(y) * imag(x);
}
