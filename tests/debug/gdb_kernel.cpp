// A CPU-backend kernel built for the debugger (CompileOptions::debug, a
// source name of its own), launched on 2 blocks of 8 threads; the gdb batch
// run of tests/debug/gdb_kernel.sh stops in it at one CUDA thread.
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <vector>

namespace ck = cudakit;

// Line 3 of my_filter.cu is where the debugger stops.
const char* kSource = R"(__global__ void scale_by_two(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * p[i];
}
)";

int main() try {
  ck::Device device = ck::Device::current();
  ck::CompileOptions options;
  options.debug = true;
  options.source_name = "my_filter.cu";
  ck::Kernel k = ck::compile(kSource, options, device).kernel("scale_by_two");
  const int n = 13;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.5f + float(i);
  ck::DeviceBuffer<float> p(device, n);
  p.copy_from(host);
  k.launch(ck::LaunchConfig{ck::Dim3(2), ck::Dim3(8)}, p, n);
  std::vector<float> out(n);
  p.copy_to(out);
  for (int i = 0; i < n; ++i)
    if (out[i] != 2.0f * host[i]) {
      std::fprintf(stderr, "wrong result at %d: %g\n", i, double(out[i]));
      return 1;
    }
  std::puts("gdb_kernel: results correct");
  return 0;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
