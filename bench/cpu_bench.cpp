// The CPU backend's figures (PERF.md P9 and issue 3): fiber switch cost of
// the two candidate mechanisms, cold host compile and disk-cache hit, the
// tutorials' tiled matmul at 64x64 and 512x512, and a 10M-element vector
// add. Prints a table; every result is checked before it is timed.
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"
#include "cudakit/program.hpp"
#include "workloads/tiled_matmul.hpp"
#include "workloads/vector_add.hpp"

namespace ck = cudakit;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

template <class F>
double median_ms(int reps, F f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    f();
    t.push_back(ms_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// ---- fiber switches -----------------------------------------------------------
namespace fctx = boost::context::detail;
constexpr long kSwitches = 2'000'000;

void fcontext_body(fctx::transfer_t t) {
  for (;;) t = fctx::jump_fcontext(t.fctx, nullptr);
}

double fcontext_switch_ns() {
  std::vector<char> stack(64 * 1024);
  fctx::fcontext_t f =
      fctx::make_fcontext(stack.data() + stack.size(), stack.size(), &fcontext_body);
  auto t0 = Clock::now();
  for (long i = 0; i < kSwitches / 2; ++i) f = fctx::jump_fcontext(f, nullptr).fctx;
  return ms_since(t0) * 1e6 / kSwitches;
}

ucontext_t uc_main, uc_fiber;
void ucontext_body() {
  for (;;) swapcontext(&uc_fiber, &uc_main);
}

double ucontext_switch_ns() {
  std::vector<char> stack(64 * 1024);
  getcontext(&uc_fiber);
  uc_fiber.uc_stack.ss_sp = stack.data();
  uc_fiber.uc_stack.ss_size = stack.size();
  uc_fiber.uc_link = nullptr;
  makecontext(&uc_fiber, &ucontext_body, 0);
  auto t0 = Clock::now();
  for (long i = 0; i < kSwitches / 2; ++i) swapcontext(&uc_main, &uc_fiber);
  return ms_since(t0) * 1e6 / kSwitches;
}

// ---- kernels through the backend seam --------------------------------------------
ck::detail::Backend& cpu() { return ck::detail::backend(ck::BackendKind::cpu); }

template <class T>
T* device_copy(const std::vector<T>& host) {
  auto* p = reinterpret_cast<T*>(cpu().allocate(0, host.size() * sizeof(T)));
  cpu().copy(p, host.data(), host.size() * sizeof(T), nullptr, false);
  return p;
}

std::vector<float> random_floats(std::size_t n) {
  static std::mt19937 rng(12345);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

ck::detail::NativeKernel load(const char* source, const char* name) {
  ck::CompileOptions options;
  options.arch = "cpu";
  ck::detail::CompileRequest request;
  request.source = ck::prepare_source(source, options);
  request.options = options;
  auto module = cpu().load_module(0, cpu().compile(request));
  return cpu().get_kernel(module, name);
}

struct MatmulResult {
  double ms;
  double max_error;
};

MatmulResult time_matmul(ck::detail::NativeKernel k, int n, int reps) {
  auto a = random_floats(std::size_t(n) * n), b = random_floats(std::size_t(n) * n);
  float* da = device_copy(a);
  float* db = device_copy(b);
  auto* dc = reinterpret_cast<float*>(cpu().allocate(0, std::size_t(n) * n * sizeof(float)));
  void* args[] = {&da, &db, &dc, &n, &n, &n};
  ck::Dim3 grid((n + 15) / 16, (n + 15) / 16), block(16, 16);
  auto run = [&] {
    cpu().launch(k, "matmul_shared", grid, block, 0, nullptr, args);
    cpu().synchronize_stream(nullptr);
  };
  run();
  std::vector<float> c(std::size_t(n) * n);
  cpu().copy(c.data(), dc, c.size() * sizeof(float), nullptr, false);
  double err = 0;
  for (int i = 0; i < n; i += std::max(1, n / 64))
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < n; ++p) s += double(a[i * n + p]) * b[p * n + j];
      err = std::max(err, std::fabs(s - c[i * n + j]));
    }
  double ms = median_ms(reps, run);
  for (void* p : {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dc)})
    cpu().deallocate(0, reinterpret_cast<ck::detail::DevicePtr>(p));
  return {ms, err};
}

const char* kFreshKernel = R"(
__global__ void fresh_vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--cache-hit-child") {
    // A fresh process: the kernel is on disk from the parent's compile.
    auto t0 = Clock::now();
    ck::compile(kFreshKernel, {}, ck::Device::get(ck::BackendKind::cpu, 0));
    std::printf("%.3f\n", ms_since(t0));
    return 0;
  }

  std::printf("cudakit CPU backend: %s\n\n", cpu().properties(0).name.c_str());
  std::printf("%-52s %14s %s\n", "measurement", "result", "note");

  std::printf("%-52s %11.1f ns %s\n", "fiber switch, Boost.Context fcontext", fcontext_switch_ns(),
              "(used)");
  std::printf("%-52s %11.1f ns %s\n", "fiber switch, ucontext swapcontext", ucontext_switch_ns(),
              "(saves/restores the signal mask: a system call)");

  // Cold compile and disk-cache hit in a private cache directory.
  std::string cache_dir =
      (std::filesystem::temp_directory_path() / ("cudakit-cpu-bench-" + std::to_string(getpid())))
          .string();
  setenv("CUDAKIT_CACHE_DIR", cache_dir.c_str(), 1);
  {
    ck::CompileOptions options;
    options.use_cache = false;
    double cold = median_ms(
        3, [&] { ck::compile(kFreshKernel, options, ck::Device::get(ck::BackendKind::cpu, 0)); });
    std::printf("%-52s %11.1f ms %s\n", "cold host compile + load (vector add)", cold,
                "(median of 3)");
    ck::compile(kFreshKernel, {}, ck::Device::get(ck::BackendKind::cpu, 0));  // stores on disk
    std::string cmd = "CUDAKIT_CACHE_DIR=" + cache_dir + " /proc/" + std::to_string(getpid()) +
                      "/exe --cache-hit-child";
    std::vector<double> hits;
    for (int i = 0; i < 5; ++i)
      if (FILE* p = popen(cmd.c_str(), "r")) {
        double ms = -1;
        if (std::fscanf(p, "%lf", &ms) == 1) hits.push_back(ms);
        pclose(p);
      }
    std::sort(hits.begin(), hits.end());
    if (!hits.empty())
      std::printf("%-52s %11.3f ms %s\n", "disk-cache hit + load, fresh process (vector add)",
                  hits[hits.size() / 2], "(median of 5 processes)");
  }
  std::filesystem::remove_all(cache_dir);

  auto matmul = load(ck::workloads::tiled_matmul_source, "matmul_shared");
  auto r64 = time_matmul(matmul, 64, 21);
  std::printf("%-52s %11.3f ms max |err| %.1e; %.0fx faster than Numba's simulator (21.8 s)\n",
              "tutorial tiled matmul 64x64 (after compile)", r64.ms, r64.max_error,
              21800.0 / r64.ms);
  auto r512 = time_matmul(matmul, 512, 5);
  std::printf("%-52s %11.1f ms max |err| %.1e; %.2f GFLOP/s\n", "tutorial tiled matmul 512x512",
              r512.ms, r512.max_error, 2.0 * 512 * 512 * 512 / (r512.ms * 1e6));

  {
    auto vec_add = load(ck::workloads::numba_add_kernel_source, "add_kernel");
    int n = 10'000'000;
    auto a = random_floats(n), b = random_floats(n);
    float* da = device_copy(a);
    float* db = device_copy(b);
    auto* dc = reinterpret_cast<float*>(cpu().allocate(0, std::size_t(n) * sizeof(float)));
    void* args[] = {&da, &db, &dc, &n};
    auto run = [&] {
      cpu().launch(vec_add, "add_kernel", ck::Dim3((n + 255) / 256), ck::Dim3(256), 0, nullptr,
                   args);
      cpu().synchronize_stream(nullptr);
    };
    run();
    std::vector<float> c(n);
    cpu().copy(c.data(), dc, c.size() * sizeof(float), nullptr, false);
    for (int i = 0; i < n; ++i)
      if (c[i] != a[i] + b[i]) {
        std::printf("vector add: wrong result at %d\n", i);
        return 1;
      }
    double ms = median_ms(11, run);
    std::printf("%-52s %11.2f ms %.2f GB/s (12 bytes per element)\n", "vector add, 10M float32", ms,
                12.0 * n / (ms * 1e6));
  }
  return 0;
}
