// `cudakit doctor`: every check prints [ ok ], [warn] or [FAIL]; a failed or
// doubtful one says its cause and the fix on the lines below it. The known
// install and run-time problems from the PyCUDA / Numba tutorials are
// recognised and explained when they apply.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands/commands.hpp"
#include "cudakit/cudakit.hpp"
#include "debug/program_search.hpp"
#include "platform/library_loader.hpp"
#include "platform/library_search.hpp"
#include "probe/cuda_probe.hpp"
#include "workloads/vector_add.hpp"

namespace cudakit::cli {
namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// Continuation lines of multi-line messages (compiler logs, search lists)
// stay under their tag.
std::string indented(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "         ";
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// Long compiler logs would bury the report: the first lines say enough.
std::string first_lines(const std::string& text, int lines) {
  std::size_t pos = 0;
  for (int i = 0; i < lines; ++i) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return text;
    ++pos;
  }
  std::size_t rest =
      static_cast<std::size_t>(std::count(text.begin() + long(pos), text.end(), '\n'));
  return text.substr(0, pos) + "... (" + std::to_string(rest + 1) + " more lines)";
}

class Report {
 public:
  void ok(const std::string& what) { std::cout << "[ ok ] " << indented(what) << "\n"; }
  void warn(const std::string& what, const std::string& cause, const std::string& fix) {
    ++warnings_;
    print("[warn] ", what, cause, fix);
  }
  void fail(const std::string& what, const std::string& cause, const std::string& fix) {
    ++failures_;
    print("[FAIL] ", what, cause, fix);
  }
  void detail(const std::string& line) { std::cout << "       " << line << "\n"; }
  void section(const std::string& title) { std::cout << "\n" << title << "\n"; }
  // A problem users meet in the field, explained once when it applies here.
  void field_note(const std::string& symptom, const std::string& explanation) {
    if (std::find(seen_.begin(), seen_.end(), symptom) != seen_.end()) return;
    seen_.push_back(symptom);
    notes_.push_back({symptom, explanation});
  }
  void print_field_notes() const {
    if (notes_.empty()) return;
    std::cout << "\nKnown problems from the tutorials that apply to this machine:\n";
    for (const auto& [symptom, explanation] : notes_)
      std::cout << "  * \"" << symptom << "\": " << explanation << "\n";
  }
  int failures() const { return failures_; }
  int warnings() const { return warnings_; }

 private:
  void print(const char* tag, const std::string& what, const std::string& cause,
             const std::string& fix) {
    std::cout << tag << indented(what) << "\n";
    if (!cause.empty()) std::cout << "       cause: " << indented(cause) << "\n";
    if (!fix.empty()) std::cout << "       fix:   " << indented(fix) << "\n";
  }
  int failures_ = 0;
  int warnings_ = 0;
  std::vector<std::string> seen_;
  std::vector<std::pair<std::string, std::string>> notes_;
};

struct VectorAddCheck {
  bool ok = false;
  std::string summary;  // for the report line
  std::string error;    // what failed, when it did
};

// Compiles the Numba tutorial's vector add through cudakit::compile, runs it
// on random data and checks every element, on device `ordinal` of `kind`
// (made current for the check when it is not device 0).
VectorAddCheck check_vector_add(BackendKind kind, int ordinal = 0) {
  VectorAddCheck result;
  try {
    Device device = Device::get(kind, ordinal);
    std::optional<DeviceScope> scope;
    if (ordinal != 0) scope.emplace(device);
    auto before = CompileCache::global().stats();
    Stopwatch clock;
    Module module = compile(workloads::numba_add_kernel_source, CompileOptions{}, device);
    double compile_ms = clock.ms();
    auto after = CompileCache::global().stats();
    bool cached = CompileCache::global().enabled() && after.misses == before.misses;
    Kernel kernel = module.kernel("add_kernel");
    const std::size_t n = 100'003;  // not a multiple of the block: the bounds check matters
    auto a = random_floats(n, fresh_seed()), b = random_floats(n, fresh_seed());
    std::vector<float> c(n);
    kernel.launch(grid_for(n, 256), In(a), In(b), Out(c), int(n));
    double err = 0;
    for (std::size_t i = 0; i < n; ++i)
      err = std::max(err, double(std::fabs(c[i] - (a[i] + b[i]))));
    result.ok = err == 0.0;
    result.summary = "vector add compiled (" + fixed(compile_ms, 1) + " ms, " +
                     (cached ? "from the cache" : "fresh compile") + ") and ran on " +
                     device.describe() + ": " + std::to_string(n) + " random floats, max error " +
                     fixed(err, 6);
    if (!result.ok)
      result.error = "vector add gave wrong results (max error " + fixed(err, 6) + ")";
  } catch (const Error& e) {
    result.error = e.what();
  }
  return result;
}

std::string explain_init_status(int status, std::string& fix) {
  switch (status) {
    case 100:
      fix =
          "check `nvidia-smi`; in a container run with --gpus all (NVIDIA Container Toolkit); "
          "check CUDA_VISIBLE_DEVICES";
      return "the driver sees no CUDA-capable device";
    case 35:
      fix =
          "the kernel module and libcuda differ in version: reboot after a driver update, or "
          "reinstall the driver";
      return "the installed driver is older than this libcuda (CUDA_ERROR_INSUFFICIENT_DRIVER)";
    case 34:
      fix = "remove .../lib64/stubs from LD_LIBRARY_PATH; the stub is only for linking";
      return "the toolkit's stub libcuda was loaded instead of the real driver";
    case 999:
      fix =
          "reboot, or reload the driver (`sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm`) "
          "after suspend or a driver update";
      return "the driver is in an unknown state (CUDA_ERROR_UNKNOWN)";
    case 804:
    case 803:
      fix = "use the driver's own libcuda instead of the forward-compatibility package";
      return "the forward-compatibility libcuda does not support this GPU or driver";
    default:
      fix = "run `nvidia-smi`; reinstall the NVIDIA driver if it fails";
      return "cuInit failed";
  }
}

}  // namespace

int run_doctor(const DoctorOptions& options) {
  Report report;
  std::optional<std::string> gpu_unusable;
  auto gpu_fails = [&](const std::string& reason) {
    if (!gpu_unusable) gpu_unusable = reason;
  };

  report.section("Driver");
  DriverProbe driver = probe_driver();
  if (driver.loaded) {
    report.ok("driver library: " + driver.path + " (driver supports CUDA " +
              format_cuda_version(driver.version) + ")");
  } else {
    std::string searched;
    for (const auto& candidate : driver.searched) searched += "\n         " + candidate;
    report.fail(
        std::string("driver library: libcuda.so.1 not found") +
            (driver.explicit_location ? " where CUDAKIT_LIBCUDA points" : "") +
            "; searched:" + searched,
        "no NVIDIA driver is installed, or it is not visible here (" + driver.load_error + ")",
        "install the NVIDIA driver (`nvidia-smi` must work); in a container, run with "
        "--gpus all. The CPU backend works without it (CUDAKIT_BACKEND=cpu)");
    gpu_fails("no NVIDIA driver (libcuda.so.1 not found)");
  }
  if (driver.installed_copies.size() > 1) {
    std::string list;
    for (const auto& c : driver.installed_copies) list += (list.empty() ? "" : ", ") + c;
    report.warn("several libcuda copies installed: " + list,
                "a package-manager driver and a runfile driver are mixed",
                "uninstall one of them and keep a single install channel");
    report.field_note("cuda existing package manager installation of the driver found",
                      "the runfile installer found a distribution driver; mixing the two leaves "
                      "mismatched libcuda copies. Keep one install channel.");
  }
  if (driver.loaded) {
    if (driver.init_status == 0) {
      report.ok("driver initialised (cuInit)");
    } else {
      std::string fix;
      std::string cause = explain_init_status(driver.init_status, fix);
      report.fail("driver initialisation failed: " + driver.init_status_name + " (" +
                      std::to_string(driver.init_status) + ")" +
                      (driver.init_status_text.empty() ? "" : ": " + driver.init_status_text),
                  cause, fix);
      gpu_fails(cause);
    }
  }
  if (auto visible = env("CUDA_VISIBLE_DEVICES");
      getenv("CUDA_VISIBLE_DEVICES") && (visible.empty() || visible == "-1"))
    report.warn("CUDA_VISIBLE_DEVICES='" + visible + "' hides every GPU", "",
                "unset CUDA_VISIBLE_DEVICES or list the GPUs to use (e.g. 0)");

  report.section("Devices");
  std::vector<Device> gpus;
  if (driver.loaded && driver.init_status == 0) {
    try {
      int count = Device::count(BackendKind::cuda);
      for (int i = 0; i < count; ++i) gpus.push_back(Device::get(BackendKind::cuda, i));
    } catch (const Error& e) {
      report.fail("listing CUDA devices failed", e.what(), "run `nvidia-smi`");
      gpu_fails(e.message());
    }
    if (gpus.empty() && !gpu_unusable) {
      report.fail("no CUDA devices", "the driver loads but reports no GPU",
                  "check `nvidia-smi` and CUDA_VISIBLE_DEVICES");
      gpu_fails("no CUDA devices");
    }
    for (const auto& d : gpus) {
      auto [major, minor] = d.compute_capability();
      report.ok(d.describe() + ": compute capability " + std::to_string(major) + "." +
                std::to_string(minor) + ", " + format_bytes(d.total_memory()) +
                "; cudakit uses its primary context (shared with PyTorch, CuPy, Numba)");
    }
    if (!gpus.empty())
      report.field_note("pycuda context issues (invalid resource handle, context pop errors)",
                        "pycuda.autoinit and make_context() create private contexts that other "
                        "libraries cannot see, and each thread must push/pop them by hand. cudakit "
                        "always uses the device's primary context and makes it current on every "
                        "thread that uses the device, so none of this is needed.");
  } else {
    std::cout << "       (no GPU checks: the driver is not usable)\n";
  }

  report.section("NVRTC (the run-time compiler)");
  NvrtcProbe nvrtc = probe_nvrtc();
  if (nvrtc.loaded) {
    report.ok("NVRTC " + std::to_string(nvrtc.major) + "." + std::to_string(nvrtc.minor) + ": " +
              nvrtc.path);
    report.detail("supported archs: " + format_archs(nvrtc.archs));
  } else {
    std::string searched;
    for (const auto& s : nvrtc.searched) searched += "\n         " + s;
    report.fail("NVRTC not found; searched:" + searched,
                "the CUDA toolkit's run-time compiler (libnvrtc) is not installed or not on the "
                "search path",
                "install the toolkit's NVRTC (apt: cuda-nvrtc-13-0; pip: nvidia-cuda-nvrtc) or "
                "point CUDAKIT_NVRTC at libnvrtc.so");
    gpu_fails("NVRTC not found");
  }
  for (const auto& d : gpus) {
    if (!nvrtc.loaded || nvrtc.archs.empty()) break;
    auto [major, minor] = d.compute_capability();
    int arch = major * 10 + minor;
    if (std::find(nvrtc.archs.begin(), nvrtc.archs.end(), arch) != nvrtc.archs.end()) {
      report.ok(d.arch() + " (" + d.name() +
                ") is among NVRTC's archs: cudakit compiles cubins "
                "for exactly this GPU");
    } else if (arch > nvrtc.archs.back()) {
      report.warn(d.arch() + " is newer than this NVRTC knows",
                  "cudakit falls back to PTX for compute_" + std::to_string(nvrtc.archs.back()) +
                      ", which the driver JIT-compiles at load (slower first load)",
                  "install a newer CUDA toolkit NVRTC");
    } else {
      report.fail(d.arch() + " is older than NVRTC " + std::to_string(nvrtc.major) + " supports",
                  "this NVRTC cannot generate code for the GPU",
                  "install an older toolkit's NVRTC and point CUDAKIT_NVRTC at it");
      gpu_fails(d.arch() + " not supported by NVRTC " + std::to_string(nvrtc.major));
      report.field_note("no kernel image is available for execution on the device",
                        "the code was built for archs that do not include this GPU's. cudakit "
                        "compiles for the GPU's exact arch at run time, but only when the compiler "
                        "knows that arch.");
    }
  }
  if (driver.loaded && driver.version > 0 && nvrtc.loaded) {
    int needed = nvrtc.major * 1000 + nvrtc.minor * 10;
    if (driver.version >= needed) {
      report.ok("driver (CUDA " + format_cuda_version(driver.version) +
                ") is new enough for NVRTC " + std::to_string(nvrtc.major) + "." +
                std::to_string(nvrtc.minor));
    } else {
      report.fail("driver too old: it supports CUDA " + format_cuda_version(driver.version) +
                      ", NVRTC is " + std::to_string(nvrtc.major) + "." +
                      std::to_string(nvrtc.minor),
                  "code from a newer compiler cannot be loaded by an older driver (DriverTooOld; "
                  "PTX: CUDA_ERROR_UNSUPPORTED_PTX_VERSION)",
                  "upgrade the NVIDIA driver to one supporting CUDA " +
                      std::to_string(nvrtc.major) + "." + std::to_string(nvrtc.minor) +
                      ", or point CUDAKIT_NVRTC at the NVRTC of an older toolkit");
      gpu_fails("driver too old for NVRTC (DriverTooOld)");
      report.field_note("driver too old / no kernel image is available",
                        "frameworks built for a newer CUDA than the driver supports fail this way; "
                        "the fix is a newer driver, or a toolkit matching the driver.");
    }
  }

  report.section("Toolkit and environment");
  bool any_cuda_var = false;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"}) {
    std::string value = env(var);
    if (value.empty()) continue;
    any_cuda_var = true;
    if (looks_like_toolkit(value))
      report.ok(std::string(var) + "=" + value + " (a CUDA toolkit)");
    else
      report.warn(
          std::string(var) + "=" + value + " points at no CUDA toolkit",
          "there is no include/cuda.h or bin/nvcc under it",
          std::string("set ") + var + " to the toolkit root (e.g. /usr/local/cuda) or unset it");
  }
  if (!any_cuda_var)
    report.ok(
        std::string("CUDA_PATH/CUDA_HOME not set (not needed: NVRTC is searched in the "
                    "standard places") +
        (looks_like_toolkit("/usr/local/cuda") ? "; toolkit found at /usr/local/cuda)" : ")"));
  if (std::string nvcc = find_on_path("nvcc"); !nvcc.empty()) {
    report.ok("nvcc on PATH: " + nvcc + " (cudakit does not need it; PyCUDA does)");
  } else {
    report.warn("nvcc not on PATH",
                "cudakit compiles with NVRTC and does not need nvcc; PyCUDA's "
                "SourceModule shells out to nvcc and fails without it",
                looks_like_toolkit("/usr/local/cuda")
                    ? "for PyCUDA: export PATH=/usr/local/cuda/bin:$PATH"
                    : "for PyCUDA: install the CUDA toolkit and put its bin/ on PATH");
    report.field_note("nvcc not found",
                      "PyCUDA compiles every SourceModule with the nvcc binary; add the toolkit's "
                      "bin/ to PATH. cudakit uses the NVRTC library instead.");
  }
  {
    // The CPU backend compiles each kernel with the host C++ compiler at run
    // time (the command it runs: CUDAKIT_CXX, else CXX, else c++); the GPU
    // path does not need one.
    std::string named_by = "CUDAKIT_CXX";
    std::string compiler = env("CUDAKIT_CXX");
    if (compiler.empty()) {
      named_by = "CXX";
      compiler = env("CXX");
    }
    if (compiler.empty()) {
      named_by.clear();
      compiler = "c++";
    }
    const std::string how = named_by.empty() ? "" : " (" + named_by + ")";
    if (std::string found = find_in_path(compiler); !found.empty())
      report.ok("C++ compiler for the CPU backend: " + found + how);
    else
      report.warn(
          "no C++ compiler for the CPU backend: '" + compiler + "'" + how + " is not on PATH",
          "the CPU backend compiles each kernel with the host C++ compiler at run time "
          "(the GPU path does not need one)",
          "install g++ or clang++ (Debian/Ubuntu: apt install g++), or name one with "
          "CUDAKIT_CXX");
  }
  {
    auto& cache = CompileCache::global();
    fs::path dir = cache.directory();
    if (!cache.enabled()) {
      report.warn("compile cache disabled (CUDAKIT_CACHE=0)", "every process compiles every kernel",
                  "unset CUDAKIT_CACHE to cache compiled kernels on disk");
    } else {
      std::error_code ec;
      fs::create_directories(dir, ec);
      fs::path probe = dir / (".doctor-probe-" + std::to_string(getpid()));
      bool writable = !ec && static_cast<bool>(std::ofstream(probe) << "ok");
      fs::remove(probe, ec);
      if (writable)
        report.ok("compile cache " + dir.string() + " is writable");
      else
        report.warn("compile cache " + dir.string() + " is not writable",
                    "kernels are compiled again in every process",
                    "set CUDAKIT_CACHE_DIR to a writable directory");
    }
  }

  {
    // NCCL is needed only by Communicator on the GPU: its absence is a note,
    // not a failure. Looked for exactly where the library looks.
    const detail::SearchPlan plan = detail::nccl_search_plan();
    const detail::OpenedLibrary nccl = detail::open_first(plan, RTLD_NOW | RTLD_LOCAL);
    using GetVersion = int (*)(int*);
    auto* get_version = nccl.handle
                            ? reinterpret_cast<GetVersion>(::dlsym(nccl.handle, "ncclGetVersion"))
                            : nullptr;
    int version = 0;
    if (get_version && get_version(&version) == 0)
      report.ok(
          "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
          "." + std::to_string(version % 100) +
          " for collectives on the GPU: " + detail::loaded_path(nccl.handle, "ncclGetVersion"));
    else
      report.warn(std::string("NCCL not found (") +
                      (plan.explicit_location
                           ? "CUDAKIT_NCCL=" + detail::environment("CUDAKIT_NCCL")
                           : std::to_string(plan.candidates.size()) + " places searched") +
                      ")",
                  "only cudakit::Communicator on the GPU needs it (the CPU backend's "
                  "collectives do not)",
                  "install NCCL (apt: libnccl2, pip: nvidia-nccl-cu13) or set CUDAKIT_NCCL to "
                  "libnccl.so.2 or its directory");
  }

  report.section("Backend");
  BackendKind selected = BackendKind::cpu;
  try {
    selected = default_backend_kind();
    std::string env_value = env("CUDAKIT_BACKEND");
    std::string why = !env_value.empty()              ? "CUDAKIT_BACKEND=" + env_value
                      : selected == BackendKind::cuda ? "automatic: a driver and a GPU were found"
                                                      : "automatic: no usable GPU";
    report.ok("selected backend: " + std::string(to_string(selected)) + " (" + why + ")");
    if (selected == BackendKind::cpu || !env("CUDAKIT_CPU_DEVICES").empty()) {
      const int cpu_devices = Device::count(BackendKind::cpu);
      const std::string asked = env("CUDAKIT_CPU_DEVICES");
      report.ok("CPU backend: " + std::to_string(cpu_devices) +
                (cpu_devices == 1 ? " device" : " virtual devices on one host") +
                (asked.empty() ? std::string() : " (CUDAKIT_CPU_DEVICES=" + asked + ")"));
    }
    if (!env_value.empty() && selected == BackendKind::cpu && !gpus.empty())
      report.warn("a GPU is present but CUDAKIT_BACKEND=cpu", "",
                  "unset CUDAKIT_BACKEND to use it");
  } catch (const Error& e) {
    report.fail("CUDAKIT_BACKEND is invalid", e.message(), e.hint());
  }

  report.section("Compile and run");
  bool cpu_works = false;
  if (!gpus.empty() && !gpu_unusable) {
    VectorAddCheck gpu_check = check_vector_add(BackendKind::cuda);
    if (gpu_check.ok) {
      report.ok(gpu_check.summary);
    } else {
      report.fail("vector add on " + gpus.front().describe() + " failed",
                  first_lines(gpu_check.error, 12),
                  "see the message above; `cudakit info` lists the device's limits");
      gpu_fails(gpu_check.error);
      if (gpu_check.error.find("device symbol") != std::string::npos ||
          gpu_check.error.find("NO_BINARY_FOR_GPU") != std::string::npos)
        report.field_note("invalid device symbol / cuModuleLoadDataEx failed",
                          "code compiled for another arch (-arch=sm_xx) than the GPU's. cudakit "
                          "compiles for the device's own arch by default; a module loaded from a "
                          "file must contain this GPU's arch or PTX.");
    }
  } else {
    if (nvrtc.loaded) {
      try {
        CompileOptions opts;
        opts.arch = "sm_90";
        Stopwatch clock;
        CompiledCode code = compile_only(workloads::numba_add_kernel_source, opts);
        report.ok("NVRTC compiles the vector add for sm_90 with no GPU (" +
                  std::string(to_string(code.format)) + ", " + format_bytes(code.image.size()) +
                  ", " + fixed(clock.ms(), 1) + " ms)");
      } catch (const Error& e) {
        report.fail("NVRTC could not compile the vector add for sm_90", e.what(),
                    "check the NVRTC installation (libnvrtc-builtins must sit beside libnvrtc)");
      }
    }
    std::cout << "       no GPU: running the vector add on the CPU backend instead\n";
    // Every virtual device when CUDAKIT_CPU_DEVICES asks for several.
    int cpu_devices = 1;
    try {
      cpu_devices = Device::count(BackendKind::cpu);
    } catch (const Error&) {
      // check_vector_add reports why the CPU backend cannot start.
    }
    cpu_works = true;
    for (int ordinal = 0; ordinal < cpu_devices; ++ordinal) {
      VectorAddCheck cpu_check = check_vector_add(BackendKind::cpu, ordinal);
      cpu_works = cpu_works && cpu_check.ok;
      if (cpu_check.ok)
        report.ok(cpu_check.summary);
      else
        report.fail("vector add on the CPU backend failed", first_lines(cpu_check.error, 12),
                    "the CPU backend compiles kernels with the host C++ compiler (CUDAKIT_CXX, "
                    "CXX or c++); the message above says what failed");
    }
  }

  report.print_field_notes();
  std::cout << "\n";
  if (gpu_unusable) {
    std::cout << "GPU path unusable: " << *gpu_unusable << "\n";
    if (cpu_works)
      std::cout << "CPU backend works: kernels run on the host (CUDAKIT_BACKEND=cpu is chosen "
                   "automatically here)\n";
    return options.cpu_ok && cpu_works ? 0 : 1;
  }
  std::cout << "GPU path ready (" << report.failures() << " failures, " << report.warnings()
            << " warnings)\n";
  return report.failures() == 0 ? 0 : 1;
}

}  // namespace cudakit::cli
