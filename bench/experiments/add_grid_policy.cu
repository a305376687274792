// Which grid policy reaches the bandwidth ceiling for a float4 add at 2^28
// and 10M elements: one wave + grid-stride loop (unrolled or not), or a grid
// covering all the work with U vectors per thread. Used to choose the
// elementwise code generator's launch shape; not part of the build.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <functional>
#include <cuda_runtime.h>

template <int U>
__global__ void stride_add(const float4* a, const float4* b, float4* c, int nv) {
  int step = gridDim.x * blockDim.x;
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  for (; v + (U - 1) * step < nv; v += U * step) {
    float4 x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) { x[u] = a[v + u * step]; y[u] = b[v + u * step]; }
#pragma unroll
    for (int u = 0; u < U; ++u) c[v + u * step] = make_float4(x[u].x + y[u].x, x[u].y + y[u].y, x[u].z + y[u].z, x[u].w + y[u].w);
  }
  for (; v < nv; v += step) { float4 x = a[v], y = b[v]; c[v] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}

template <int U>
__global__ void full_add(const float4* a, const float4* b, float4* c, int nv) {
  int base = blockIdx.x * blockDim.x * U + threadIdx.x;
  float4 x[U], y[U];
#pragma unroll
  for (int u = 0; u < U; ++u) { int v = base + u * blockDim.x; if (v < nv) { x[u] = a[v]; y[u] = b[v]; } }
#pragma unroll
  for (int u = 0; u < U; ++u) { int v = base + u * blockDim.x; if (v < nv) c[v] = make_float4(x[u].x + y[u].x, x[u].y + y[u].y, x[u].z + y[u].z, x[u].w + y[u].w); }
}

template <class F>
float time_ms(F f) {
  cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < 30; ++i) { cudaEventRecord(s); f(); cudaEventRecord(e); cudaEventSynchronize(e); float ms; cudaEventElapsedTime(&ms, s, e); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (long n : {1L << 20, 1L << 24, 10000000L, 1L << 28}) {
    int nv = int(n / 4);
    float4 *a, *b, *c; cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&c, n * 4);
    cudaMemset(a, 1, n * 4); cudaMemset(b, 2, n * 4);
    double bytes = 12.0 * n;
    int wave = sms * 8;  // 256-thread blocks, 2048 threads per SM
    struct Variant { const char* name; std::function<void()> run; std::vector<float> ms; };
    std::vector<Variant> variants = {
      {"stride one wave U=1", [&] { stride_add<1><<<wave, 256>>>(a, b, c, nv); }, {}},
      {"stride 4 waves U=1", [&] { stride_add<1><<<wave * 4, 256>>>(a, b, c, nv); }, {}},
      {"full grid U=1 (256)", [&] { full_add<1><<<(nv + 255) / 256, 256>>>(a, b, c, nv); }, {}},
      {"full grid U=1 (128)", [&] { full_add<1><<<(nv + 127) / 128, 128>>>(a, b, c, nv); }, {}},
      {"full grid U=2 (128)", [&] { full_add<2><<<(nv + 255) / 256, 128>>>(a, b, c, nv); }, {}},
      {"full grid U=2 (256)", [&] { full_add<2><<<(nv + 511) / 512, 256>>>(a, b, c, nv); }, {}},
      {"full grid U=4 (128)", [&] { full_add<4><<<(nv + 511) / 512, 128>>>(a, b, c, nv); }, {}},
      {"full grid U=8 (128)", [&] { full_add<8><<<(nv + 1023) / 1024, 128>>>(a, b, c, nv); }, {}},
    };
    // Interleaved rounds, so drift hits every variant alike.
    for (int round = 0; round < 5; ++round)
      for (auto& v : variants) v.ms.push_back(time_ms(v.run));
    for (auto& v : variants) {
      std::sort(v.ms.begin(), v.ms.end());
      float med = v.ms[v.ms.size() / 2];
      printf("%-24s n=%-10ld %8.4f ms %7.1f GB/s (rounds %.4f-%.4f)\n", v.name, n, med, bytes / med / 1e6, v.ms.front(), v.ms.back());
    }
    cudaFree(a); cudaFree(b); cudaFree(c);
  }
  printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
