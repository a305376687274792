// Where the time of a disk-cache hit in a fresh process goes (P3): each step
// of cudakit::compile timed on its own. Run it twice with the same
// CUDAKIT_CACHE_DIR (the first run fills the cache). Not part of the build.
#include <chrono>
#include <cstdio>

#include "backend/backend.hpp"
#include "cudakit/cudakit.hpp"

namespace ck = cudakit;
using Clock = std::chrono::steady_clock;

static double us(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

int main() {
  const char* src = R"(__global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
})";
  ck::Device dev = ck::Device::current();
  dev.synchronize();
  auto t0 = Clock::now();
  ck::CompileCache& cache = ck::CompileCache::global();
  auto t1 = Clock::now();
  ck::CompileOptions options;
  options.arch = dev.arch();
  std::string prepared = ck::prepare_source(src, options);
  std::string identity = ck::detail::backend_of(dev).compiler_identity();
  auto t2 = Clock::now();
  std::string key = ck::CompileCache::key(prepared, options, identity);
  auto t3 = Clock::now();
  auto code = cache.load(key);
  auto t4 = Clock::now();
  if (!code) {
    ck::Module m = ck::compile(src, {}, dev);
    std::printf("cache was cold: filled it; run again\n");
    return 0;
  }
  ck::Module m = ck::Module::load(*code, dev);
  auto t5 = Clock::now();
  ck::Kernel k = m.kernel("vec_add");
  auto t6 = Clock::now();
  (void)k.params();
  std::printf(
      "global cache %.1f us | prepare+identity %.1f us | key %.1f us | disk load %.1f us | "
      "module load %.1f us | kernel lookup %.1f us | total %.1f us\n",
      us(t0, t1), us(t1, t2), us(t2, t3), us(t3, t4), us(t4, t5), us(t5, t6), us(t0, t6));
}
