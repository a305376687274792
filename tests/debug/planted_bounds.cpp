// The tutorials' first bug, planted: a kernel without `if (i < n)` run with
// 128 threads over 100 floats, so threads 100..127 write past the end.
// The argument picks how the 100 floats are allocated: every kind must be
// reported under `cudakit run --sanitize`, with the kernel's file and line.
//   planted_bounds buffer|pooled_buffer|array|pool
#include <cstdio>
#include <cstring>
#include <cudakit/cudakit.hpp>

namespace ck = cudakit;

// Line 3 of missing_check.cu is the unguarded write.
const char* kSource = R"(__global__ void fill_ones(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = 1.0f;
}
)";

int main(int argc, char** argv) try {
  const char* mode = argc > 1 ? argv[1] : "buffer";
  const int n = 100;
  ck::Device device = ck::Device::current();
  ck::CompileOptions options;
  options.source_name = "missing_check.cu";
  ck::Kernel fill = ck::compile(kSource, options, device).kernel("fill_ones");
  const ck::LaunchConfig config{ck::Dim3(1), ck::Dim3(128)};
  if (std::strcmp(mode, "buffer") == 0) {
    ck::DeviceBuffer<float> p(device, n, ck::Allocator::direct);
    fill.launch(config, p, n);
  } else if (std::strcmp(mode, "pooled_buffer") == 0) {
    ck::DeviceBuffer<float> p(device, n, ck::Allocator::pool);
    fill.launch(config, p, n);
  } else if (std::strcmp(mode, "array") == 0) {
    ck::Array a = ck::empty({n}, ck::DType::float32);
    fill.launch(config, static_cast<float*>(a.data()), n);
  } else if (std::strcmp(mode, "pool") == 0) {
    ck::MemoryPool& pool = ck::MemoryPool::of(device);
    std::uint64_t block = pool.allocate(n * sizeof(float));
    fill.launch(config, reinterpret_cast<float*>(static_cast<std::uintptr_t>(block)), n);
    device.synchronize();
    pool.deallocate(block, n * sizeof(float));
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  device.synchronize();
  std::puts("finished without a report");
  return 0;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
