// Which grid policy reaches the bandwidth ceiling for a float4 add at 2^28
// and 10M elements: one wave + grid-stride loop (unrolled or not), or a grid
// covering all the work with U vectors per thread. Used to choose the
// elementwise code generator's launch shape; not part of the build.
#include <cstdio>
#include <vector>
#include <algorithm>
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
  for (long n : {10000000L, 1L << 28}) {
    int nv = int(n / 4);
    float4 *a, *b, *c; cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&c, n * 4);
    cudaMemset(a, 1, n * 4); cudaMemset(b, 2, n * 4);
    double bytes = 12.0 * n;
    auto report = [&](const char* name, float ms) { printf("%-34s n=%-10ld %8.4f ms %7.1f GB/s\n", name, n, ms, bytes / ms / 1e6); };
    int wave = sms * 8;  // 256-thread blocks, 2048 threads per SM
    report("stride one wave U=1", time_ms([&] { stride_add<1><<<wave, 256>>>(a, b, c, nv); }));
    report("stride one wave U=4", time_ms([&] { stride_add<4><<<wave, 256>>>(a, b, c, nv); }));
    report("stride 4 waves U=1", time_ms([&] { stride_add<1><<<wave * 4, 256>>>(a, b, c, nv); }));
    report("stride 4 waves U=2", time_ms([&] { stride_add<2><<<wave * 4, 256>>>(a, b, c, nv); }));
    report("full grid U=1 (256)", time_ms([&] { full_add<1><<<(nv + 255) / 256, 256>>>(a, b, c, nv); }));
    report("full grid U=2 (256)", time_ms([&] { full_add<2><<<(nv + 511) / 512, 256>>>(a, b, c, nv); }));
    report("full grid U=4 (128)", time_ms([&] { full_add<4><<<(nv + 511) / 512, 128>>>(a, b, c, nv); }));
    report("full grid U=4 (256)", time_ms([&] { full_add<4><<<(nv + 1023) / 1024, 256>>>(a, b, c, nv); }));
    report("full grid U=8 (128)", time_ms([&] { full_add<8><<<(nv + 1023) / 1024, 128>>>(a, b, c, nv); }));
    report("cudaMemcpy D2D (read+write as 8B/elem)", time_ms([&] { cudaMemcpyAsync(c, a, n * 4, cudaMemcpyDeviceToDevice); }) * 12.0f / 8.0f);
    cudaFree(a); cudaFree(b); cudaFree(c);
  }
  printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
