// Output bits of the GPU's approximate functions (MUFU) over whole input
// domains, and on random inputs, for fitting the CPU backend's emulation.
// Build and run: nvcc -arch=sm_90 -O3 -o mufu_tables mufu_tables.cu && ./mufu_tables DIR
// Writes DIR/<name>.u32 (raw little-endian uint32 arrays); mufu_tables.py packs them.
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

enum Op { kSin, kCos, kEx2, kLg2, kRsq, kRcp };

__device__ float apply(int op, float x) {
  float y = 0.0f;
  switch (op) {
    case kSin: asm("sin.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
    case kCos: asm("cos.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
    case kEx2: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
    case kLg2: asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
    case kRsq: asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
    case kRcp: asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); break;
  }
  return y;
}

__global__ void on_inputs(int op, const uint32_t* in, uint32_t* out, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float_as_uint(apply(op, __uint_as_float(in[i])));
}

// A float v whose revolutions __fmul_rz(v, 1/(2 pi)) are exactly r, or 0xffffffff.
__device__ uint32_t angle_for(float r) {
  const float c = 0.15915494f;
  float v = r / c;
  for (int k = 0; k < 8; ++k) {
    float w = __uint_as_float(__float_as_uint(v) + (k / 2) * ((k & 1) ? -1 : 1));
    if (r == 0.0f) return 0u;
    if (__fmul_rz(w, c) == r) return __float_as_uint(w);
  }
  return 0xffffffffu;
}

// sin/cos on the grid r = q * 2^-25 revolutions, q in [first, first + n).
__global__ void on_revolutions(int op, long first, uint32_t* angle, uint32_t* out, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float r = (float)(first + i) * 0x1p-25f;
  const uint32_t v = angle_for(r);
  angle[i] = v;
  out[i] = v == 0xffffffffu ? 0xffffffffu : __float_as_uint(apply(op, __uint_as_float(v)));
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

static void save(const std::string& dir, const std::string& name, const std::vector<uint32_t>& v) {
  FILE* f = std::fopen((dir + "/" + name + ".u32").c_str(), "wb");
  std::fwrite(v.data(), 4, v.size(), f);
  std::fclose(f);
}

static std::vector<uint32_t> run_inputs(int op, const std::vector<uint32_t>& in) {
  const long n = (long)in.size();
  uint32_t *d_in, *d_out;
  check(cudaMalloc(&d_in, n * 4), "malloc");
  check(cudaMalloc(&d_out, n * 4), "malloc");
  check(cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice), "copy");
  on_inputs<<<(n + 255) / 256, 256>>>(op, d_in, d_out, n);
  std::vector<uint32_t> out(n);
  check(cudaMemcpy(out.data(), d_out, n * 4, cudaMemcpyDeviceToHost), "copy back");
  cudaFree(d_in);
  cudaFree(d_out);
  return out;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  // 1. sin and cos on the grid: half a turn of sin, the first quadrant of cos.
  for (int op : {kSin, kCos}) {
    const long n = op == kSin ? (1L << 24) : (1L << 23);  // half a turn, a quadrant
    uint32_t *d_angle, *d_out;
    check(cudaMalloc(&d_angle, n * 4), "malloc");
    check(cudaMalloc(&d_out, n * 4), "malloc");
    on_revolutions<<<(n + 255) / 256, 256>>>(op, 0, d_angle, d_out, n);
    std::vector<uint32_t> angle(n), out(n);
    check(cudaMemcpy(angle.data(), d_angle, n * 4, cudaMemcpyDeviceToHost), "copy back");
    check(cudaMemcpy(out.data(), d_out, n * 4, cudaMemcpyDeviceToHost), "copy back");
    save(dir, op == kSin ? "grid_sin" : "grid_cos", out);
    if (op == kSin) save(dir, "grid_angle", angle);
    cudaFree(d_angle);
    cudaFree(d_out);
  }
  // 2. Whole domains of the others.
  auto floats_from = [](float lo, long n) {
    std::vector<uint32_t> in(n);
    uint32_t first;
    std::memcpy(&first, &lo, 4);
    for (long i = 0; i < n; ++i) in[i] = first + (uint32_t)i;
    return in;
  };
  {
    std::vector<uint32_t> in(1L << 24);  // x = q * 2^-23, q in [-2^23, 2^23)
    for (long i = 0; i < (1L << 24); ++i) {
      float x = (float)(i - (1L << 23)) * 0x1p-23f;
      std::memcpy(&in[i], &x, 4);
    }
    save(dir, "grid_ex2", run_inputs(kEx2, in));
  }
  save(dir, "grid_lg2", run_inputs(kLg2, floats_from(0.5f, 1L << 24)));  // [0.5, 2)
  save(dir, "grid_rsq", run_inputs(kRsq, floats_from(1.0f, 1L << 24)));  // [1, 4)
  save(dir, "grid_rcp", run_inputs(kRcp, floats_from(1.0f, 1L << 23)));  // [1, 2)
  // 3. Random inputs, to find the rules outside the grids.
  std::mt19937 rng(12345);
  const long m = 1L << 18;
  for (int op : {kSin, kCos, kEx2, kLg2, kRsq, kRcp}) {
    std::vector<uint32_t> in(m);
    for (long i = 0; i < m; ++i) {
      const uint32_t bits = rng();
      float x;
      const int kind = (int)(i % 4);
      if (op == kSin || op == kCos) {
        if (kind == 0) x = std::ldexp((float)(bits >> 8), -24) * 6.2831853f;  // [0, 2 pi)
        else if (kind == 1) x = std::fmaf((float)bits, 1.4629181e-09f, 7.3145904e-10f);  // curand
        else if (kind == 2) x = std::fmaf((float)(bits & 0xffff), 1.4629181e-09f, 7.3145904e-10f);
        else { uint32_t b = (bits & 0x807fffffu) | ((uint32_t)(100 + bits % 40) << 23); std::memcpy(&x, &b, 4); }
      } else if (op == kEx2) {
        if (kind <= 1) x = std::ldexp((float)(bits >> 8), -23) - 1.0f;  // [-1, 1) off the grid too
        else { uint32_t b = (bits & 0x807fffffu) | ((uint32_t)(95 + bits % 40) << 23); std::memcpy(&x, &b, 4); }
      } else {
        uint32_t b = (bits & 0x007fffffu) | ((uint32_t)(1 + bits % 253) << 23);
        if (op == kRcp && (bits & 0x40000000u)) b |= 0x80000000u;
        std::memcpy(&x, &b, 4);
      }
      std::memcpy(&in[i], &x, 4);
    }
    const char* names[] = {"sin", "cos", "ex2", "lg2", "rsq", "rcp"};
    save(dir, std::string("sample_in_") + names[op], in);
    save(dir, std::string("sample_out_") + names[op], run_inputs(op, in));
  }
  check(cudaDeviceSynchronize(), "sync");
  std::printf("done\n");
  return 0;
}
