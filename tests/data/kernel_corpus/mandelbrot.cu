// The Mandelbrot set: for each pixel of a width x height view of the plane,
// the iterations of z = z^2 + c before |z| > 2 (at most max_iter).
__global__ void mandelbrot(int* counts, int width, int height, double x0, double y0,
                           double step, int max_iter) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  double cr = x0 + x * step, ci = y0 + y * step;
  double zr = 0.0, zi = 0.0;
  int it = 0;
  while (it < max_iter && zr * zr + zi * zi <= 4.0) {
    double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    ++it;
  }
  counts[y * width + x] = it;
}
