// A 3x3 mean (box) filter on a row-major image; the border repeats the edge
// pixels (clamped coordinates).
__global__ void mean_filter_3x3(const float* in, float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), width - 1);
      int yy = min(max(y + dy, 0), height - 1);
      sum += in[yy * width + xx];
    }
  }
  out[y * width + x] = sum / 9.0f;
}
