// Planted bugs for `cudakit check` on a GPU (compute-sanitizer):
//   planted_gpu oob    an out-of-bounds global write (missing `if (i < n)`)
//   planted_gpu race   a shared-memory race (a missing __syncthreads)
// Exits 77 when there is no GPU, so the tests skip.
#include <cstdio>
#include <cstring>
#include <cudakit/cudakit.hpp>
#include <vector>

namespace ck = cudakit;

// Line 3 of planted_oob.cu writes past the end for i >= n.
const char* kOutOfBounds = R"(__global__ void write_past_end(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = 1.0f;
}
)";

// Line 4 of planted_race.cu writes tile[] and line 5 reads a neighbour's
// element with no barrier between them.
const char* kRace = R"(__global__ void reverse_block(float* out, const float* in) {
  __shared__ float tile[256];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 256 + t];
  out[blockIdx.x * 256 + t] = tile[255 - t];
}
)";

int main(int argc, char** argv) try {
  const char* mode = argc > 1 ? argv[1] : "oob";
  ck::Device device = ck::Device::current();
  if (device.backend_kind() != ck::BackendKind::cuda) {
    std::puts("no GPU: the planted GPU bugs need one (skipped)");
    return 77;
  }
  ck::CompileOptions options;
  if (std::strcmp(mode, "oob") == 0) {
    options.source_name = "planted_oob.cu";
    ck::Kernel k = ck::compile(kOutOfBounds, options, device).kernel("write_past_end");
    const int n = 1000;
    ck::DeviceBuffer<float> p(device, n, ck::Allocator::direct);
    k.launch(ck::LaunchConfig{ck::Dim3(4), ck::Dim3(256)}, p, n);
  } else if (std::strcmp(mode, "race") == 0) {
    options.source_name = "planted_race.cu";
    ck::Kernel k = ck::compile(kRace, options, device).kernel("reverse_block");
    std::vector<float> host(4 * 256);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i) * 0.5f + 1.0f;
    ck::DeviceBuffer<float> in = ck::to_device(host);
    ck::DeviceBuffer<float> out(device, host.size());
    k.launch(ck::LaunchConfig{ck::Dim3(4), ck::Dim3(256)}, out, in);
  } else {
    std::fprintf(stderr, "unknown mode %s (oob or race)\n", mode);
    return 2;
  }
  device.synchronize();
  std::puts("finished");
  return 0;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
