// Host cost of cuLaunchKernel for an almost-empty 2-argument kernel, by the
// stream it is queued on (the legacy NULL stream, the per-thread default
// stream, a created blocking stream, a created non-blocking stream) and by
// how the arguments are passed (kernelParams, the `extra` buffer,
// cuLaunchKernelEx). Used to choose the stream and call the Python layer
// launches on; not part of the build.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

// Counts its launches (block 0, thread 0), so a launch the driver refused
// cannot pass for a cheap one.
__global__ void touch(unsigned long long* launches, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && n > 0) atomicAdd(launches, 1ull);
}

using LaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, unsigned, CUstream, void**, void**);
using LaunchKernelEx = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);

unsigned long long expected = 0;

template <class F>
double us_per_launch(F launch, CUstream stream) {
  const int launches = 20000;
  if (CUresult r = launch(); r != CUDA_SUCCESS) std::printf("launch failed: error %d\n", int(r));
  ++expected;
  expected += 500 + 7 * launches;
  for (int i = 0; i < 500; ++i) launch();
  cudaStreamSynchronize(stream);
  cudaDeviceSynchronize();
  std::vector<double> samples;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) launch();
    cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

int main() {
  cudaFree(nullptr);
  LaunchKernel launch_kernel = nullptr;
  LaunchKernelEx launch_kernel_ex = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPointByVersion("cuLaunchKernel", reinterpret_cast<void**>(&launch_kernel),
                                   12000, cudaEnableDefault, &q);
  cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", reinterpret_cast<void**>(&launch_kernel_ex),
                                   12000, cudaEnableDefault, &q);
  cudaFunction_t rf;
  cudaGetFuncBySymbol(&rf, reinterpret_cast<const void*>(touch));
  CUfunction f = reinterpret_cast<CUfunction>(rf);
  unsigned long long* data;
  cudaMalloc(&data, 8);
  cudaMemset(data, 0, 8);
  int n = 1024;
  void* params[] = {&data, &n};
  // The parameter buffer as the kernel lays it out: 8-byte pointer, 4-byte
  // int, 12 bytes (a padded 16-byte struct is refused with error 701).
  alignas(8) unsigned char packed[12];
  std::memcpy(packed, &data, 8);
  std::memcpy(packed + 8, &n, 4);
  size_t packed_size = sizeof(packed);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                   CU_LAUNCH_PARAM_END};

  cudaStream_t blocking, nonblocking;
  cudaStreamCreateWithFlags(&blocking, cudaStreamDefault);
  cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking);
  struct Kind {
    const char* name;
    CUstream stream;
  } kinds[] = {{"legacy NULL stream", nullptr},
               {"per-thread default", CU_STREAM_PER_THREAD},
               {"created, blocking", reinterpret_cast<CUstream>(blocking)},
               {"created, non-blocking", reinterpret_cast<CUstream>(nonblocking)}};
  std::printf("%-24s %12s %12s %12s\n", "stream", "params us", "extra us", "Ex us");
  for (const Kind& k : kinds) {
    double a = us_per_launch([&] { return launch_kernel(f, 4, 1, 1, 256, 1, 1, 0, k.stream, params, nullptr); },
                             k.stream);
    double b = us_per_launch([&] { return launch_kernel(f, 4, 1, 1, 256, 1, 1, 0, k.stream, nullptr, extra); },
                             k.stream);
    CUlaunchConfig config{};
    config.gridDimX = 4;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 256;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = k.stream;
    double c = us_per_launch([&] { return launch_kernel_ex(&config, f, params, nullptr); }, k.stream);
    std::printf("%-24s %12.3f %12.3f %12.3f\n", k.name, a, b, c);
  }
  // The first row again: drift over the run.
  double a = us_per_launch([&] { return launch_kernel(f, 4, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr); },
                           nullptr);
  std::printf("%-24s %12.3f\n", "legacy NULL, again", a);
  unsigned long long counted = 0;
  cudaMemcpy(&counted, data, 8, cudaMemcpyDeviceToHost);
  std::printf("launches counted on the device: %llu of %llu\n", counted, expected);
  return 0;
}
