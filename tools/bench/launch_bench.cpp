#include "bench/launch_bench.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "cli_support.hpp"
#include "cudakit/cudakit.hpp"
#include "cudakit/profiler.hpp"

namespace cudakit::cli {
namespace {

constexpr const char* empty_kernel_source = R"(
__global__ void empty2(float *data, int n) {
    if (n < 0) data[0] = 0.0f;  // never true: keeps both parameters alive
}
)";

// cuLaunchKernel from the libcuda the backend has already loaded
// (RTLD_NOLOAD: the same copy, nothing new is opened): the file named by
// CUDAKIT_LIBCUDA when that is set (a scripted driver measures the host
// side alone), else libcuda.so.1.
struct RawDriver {
  using LaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, void*, void**, void**);
  LaunchFn launch = nullptr;
  static RawDriver load() {
    RawDriver d;
    const char* chosen = std::getenv("CUDAKIT_LIBCUDA");
    void* handle = chosen && *chosen ? dlopen(chosen, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    if (!handle) handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!handle) handle = dlopen("libcuda.so.1", RTLD_NOW);
    if (handle) {
      // The versioned symbol is what cuda.h maps cuLaunchKernel to.
      d.launch = reinterpret_cast<LaunchFn>(dlsym(handle, "cuLaunchKernel"));
    }
    return d;
  }
};

}  // namespace

LaunchBenchResult run_launch_bench(const Device& device, int launches, int repeats,
                                   std::ostream& out) {
  const bool gpu = device.backend_kind() == BackendKind::cuda;
  if (launches <= 0) launches = gpu ? 20000 : 2000;
  if (repeats <= 0) repeats = 7;

  Module module = compile(empty_kernel_source, CompileOptions{}, device);
  Kernel kernel = module.kernel("empty2");
  Stream stream = device.create_stream();
  DeviceBuffer<float> data(device, 1);
  int n = 1;
  const LaunchConfig config{Dim3(1), Dim3(32), 0, stream};

  // The raw path gets exactly what a hand-written C++ caller would pass.
  std::uint64_t data_ptr = data.address();
  void* args[] = {&data_ptr, &n};
  void* native_stream = stream.native();
  void* native_kernel = kernel.native();
  RawDriver driver = gpu ? RawDriver::load() : RawDriver{};
  detail::Backend& backend = detail::backend_of(device);
  if (gpu && !driver.launch)
    throw NotSupported("benchmarking launches", "cuLaunchKernel not found in libcuda.so.1",
                       "check the driver installation with `cudakit doctor`");

  auto raw_launch = [&] {
    if (gpu) {
      int status = driver.launch(native_kernel, 1, 1, 1, 32, 1, 1, 0, native_stream, args, nullptr);
      if (status != 0) throw CudaError("raw cuLaunchKernel of empty2", "launch failed", {}, status);
    } else {
      backend.launch(native_kernel, "empty2", Dim3(1), Dim3(32), 0, native_stream, args);
    }
  };
  auto cudakit_launch = [&] { kernel.launch(config, data, n); };

  // Warm-up: first launches pay for lazy loading in the driver.
  for (int i = 0; i < 100; ++i) {
    raw_launch();
    cudakit_launch();
  }
  stream.synchronize();

  std::vector<double> raw_times, cudakit_times;
  for (int r = 0; r < repeats; ++r) {
    Stopwatch raw_clock;
    for (int i = 0; i < launches; ++i) raw_launch();
    stream.synchronize();
    raw_times.push_back(raw_clock.ms() * 1000.0 / launches);

    Stopwatch ck_clock;
    for (int i = 0; i < launches; ++i) cudakit_launch();
    stream.synchronize();
    cudakit_times.push_back(ck_clock.ms() * 1000.0 / launches);
  }

  // The same launches while a profile session records them (what
  // CUDAKIT_PROFILE=1 does for a whole program): two events a launch. The
  // session's final read of the times is outside the timed loop. Measured
  // only when the process is not already profiled, as then every row is.
  std::vector<double> profiled_times;
  const char* profile_env = std::getenv("CUDAKIT_PROFILE");
  const bool already_profiled = profile_env && *profile_env && std::string(profile_env) != "0";
  for (int r = 0; r < repeats && !already_profiled; ++r) {
    ProfileSession session;
    Stopwatch clock;
    for (int i = 0; i < launches; ++i) cudakit_launch();
    stream.synchronize();
    profiled_times.push_back(clock.ms() * 1000.0 / launches);
    session.stop();
  }

  LaunchBenchResult result;
  result.raw_us = median(raw_times);
  result.cudakit_us = median(cudakit_times);
  result.profiled_us = profiled_times.empty() ? 0 : median(profiled_times);
  result.raw_name = gpu ? "raw cuLaunchKernel" : "raw CPU-backend launch";
  out << "launch overhead on " << device.describe() << ": empty kernel (float*, int), " << launches
      << " back-to-back launches then synchronize, median of " << repeats << "\n";
  Table table({"path", "us per launch"});
  table.add({result.raw_name, fixed(result.raw_us, 3)});
  table.add({"cudakit Kernel::launch (checked)", fixed(result.cudakit_us, 3)});
  if (result.profiled_us > 0)
    table.add(
        {"cudakit Kernel::launch, profiled (CUDAKIT_PROFILE=1)", fixed(result.profiled_us, 3)});
  table.print(out);
  out << "launch ratio (cudakit / raw): " << fixed(result.ratio(), 3) << "x (target <= 1.05x)\n";
  if (result.profiled_us > 0)
    out << "profiling overhead (CUDAKIT_PROFILE=1 / ProfileSession, an event pair a launch): "
        << (result.profiled_us >= result.cudakit_us ? "+" : "")
        << fixed(result.profiled_us - result.cudakit_us, 3) << " us a launch\n";
  else
    out << "profiling overhead: not measured (CUDAKIT_PROFILE is set, so every row is "
           "profiled)\n";
  return result;
}

}  // namespace cudakit::cli
