// The compile and cache benchmark (PERF.md P3). Everything is timed in one
// run, so the ratios hold whatever the machine:
// - cold compile of a vector add: cudakit::compile_only with the cache off,
//   against raw NVRTC (dlopen'ed here) given the same source and flags;
// - memory-cache hit: CompileCache::key + load, and compile_only again;
// - disk-cache hit from a new cache instance in this process;
// - disk-cache hit in a fresh process: this program starts itself again
//   (the child is recognised by its environment before main runs) and times
//   its first compile call. With a GPU the child compiles to a loaded Module
//   and looks the kernel up; without one it measures compile_only.
#include "compile_bench.hpp"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/standard_headers.hpp"
#include "cudakit/cudakit.hpp"
#include "platform/library_search.hpp"

extern char** environ;

namespace cudakit {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* child_mode_var = "CUDAKIT_COMPILE_BENCH_CHILD";
constexpr const char* child_result_var = "CUDAKIT_COMPILE_BENCH_RESULT";
constexpr const char* child_arch_var = "CUDAKIT_COMPILE_BENCH_ARCH";

constexpr const char* vec_add_source =
    R"(__global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string format_time(double us) {
  std::ostringstream s;
  s << std::fixed;
  if (us >= 1000)
    s << std::setprecision(2) << us / 1000 << " ms";
  else
    s << std::setprecision(us >= 100 ? 0 : 1) << us << " us";
  return s.str();
}

// ---- raw NVRTC, loaded here on its own --------------------------------------
// Declared by hand (the ABI has been stable since CUDA 7), so this file needs
// no toolkit header and builds wherever cudakit builds.
class RawNvrtc {
 public:
  bool load(std::string& why) {
    // The same plan the library loads NVRTC with (CUDAKIT_NVRTC, CUDA_PATH,
    // ...): the raw baseline compiles with the very library cudakit uses.
    cudakit::detail::OpenedLibrary lib =
        cudakit::detail::open_first(cudakit::detail::nvrtc_search_plan(), RTLD_NOW | RTLD_LOCAL);
    handle_ = lib.handle;
    if (!handle_) {
      why = "libnvrtc not found; tried:";
      for (const auto& tried : lib.tried) why += " " + tried;
      return false;
    }
    path_ = lib.path;
    bool ok = sym(create_, "nvrtcCreateProgram") && sym(compile_, "nvrtcCompileProgram") &&
              sym(cubin_size_, "nvrtcGetCUBINSize") && sym(cubin_, "nvrtcGetCUBIN") &&
              sym(destroy_, "nvrtcDestroyProgram") && sym(log_size_, "nvrtcGetProgramLogSize") &&
              sym(log_, "nvrtcGetProgramLog");
    if (!ok) why = "libnvrtc at " + path_ + " lacks a symbol";
    return ok;
  }

  const std::string& path() const { return path_; }

  // What a user of NVRTC writes: create, compile, fetch the cubin, destroy.
  std::vector<char> compile(const std::string& source, const std::vector<std::string>& flags,
                            const std::vector<const char*>& header_names = {},
                            const std::vector<const char*>& header_texts = {}) const {
    void* program = nullptr;
    if (create_(&program, source.c_str(), "kernel.cu", static_cast<int>(header_names.size()),
                header_texts.data(), header_names.data()) != 0)
      throw std::runtime_error("nvrtcCreateProgram failed");
    std::vector<const char*> argv;
    for (const auto& f : flags) argv.push_back(f.c_str());
    const int status = compile_(program, static_cast<int>(argv.size()), argv.data());
    if (status != 0) {
      std::size_t size = 0;
      log_size_(program, &size);
      std::string log(size, '\0');
      log_(program, log.data());
      destroy_(&program);
      throw std::runtime_error("raw NVRTC compile failed: " + log);
    }
    std::size_t size = 0;
    cubin_size_(program, &size);
    std::vector<char> cubin(size);
    cubin_(program, cubin.data());
    destroy_(&program);
    return cubin;
  }

 private:
  template <class F>
  bool sym(F& f, const char* name) {
    f = reinterpret_cast<F>(::dlsym(handle_, name));
    return f != nullptr;
  }

  void* handle_ = nullptr;
  std::string path_;
  int (*create_)(void**, const char*, const char*, int, const char* const*,
                 const char* const*) = nullptr;
  int (*compile_)(void*, int, const char* const*) = nullptr;
  int (*cubin_size_)(void*, std::size_t*) = nullptr;
  int (*cubin_)(void*, char*) = nullptr;
  int (*destroy_)(void**) = nullptr;
  int (*log_size_)(void*, std::size_t*) = nullptr;
  int (*log_)(void*, char*) = nullptr;
};

// ---- the fresh-process child ------------------------------------------------

// Modes: "gpu" (compile to a loaded Module and look the kernel up),
// "cold_start" (compile_only, the backend started by the call itself),
// "warm_backend" (compile_only after the backend and NVRTC are loaded),
// "cpu" (compile_only on the CPU backend). Writes "<us> <disk_hits> <misses>"
// or "error <message>" to the result file.
int run_child(const std::string& mode) {
  const char* result_path = std::getenv(child_result_var);
  const char* arch_env = std::getenv(child_arch_var);
  std::string line;
  try {
    CompileOptions options;
    options.arch = arch_env ? arch_env : "sm_90";
    double us = 0;
    if (mode == "gpu") {
      // The context exists before the timer, as it does in the peers' figures.
      Device device = Device::current();
      device.synchronize();
      CompileOptions own_arch;  // the device's own arch, as users call it
      const auto t0 = Clock::now();
      Module module = compile(vec_add_source, own_arch, device);
      Kernel kernel = module.kernel("vec_add");
      us = us_since(t0);
      (void)kernel;
    } else if (mode == "cpu") {
      options.arch = "cpu";
      const auto t0 = Clock::now();
      compile_only(vec_add_source, options, BackendKind::cpu);
      us = us_since(t0);
    } else {
      if (mode == "warm_backend") detail::backend(BackendKind::cuda).compiler_identity();
      const auto t0 = Clock::now();
      compile_only(vec_add_source, options, BackendKind::cuda);
      us = us_since(t0);
    }
    const auto stats = CompileCache::global().stats();
    line = std::to_string(us) + " " + std::to_string(stats.disk_hits) + " " +
           std::to_string(stats.misses);
  } catch (const std::exception& e) {
    line = std::string("error ") + e.what();
  }
  if (result_path) {
    if (FILE* f = std::fopen(result_path, "w")) {
      std::fputs(line.c_str(), f);
      std::fclose(f);
    }
  }
  return 0;
}

// Runs before main in any program that links this file, so a child is timed
// from (nearly) its process start and never runs the parent's main.
[[maybe_unused]] const int child_hook = [] {
  if (const char* mode = std::getenv(child_mode_var)) std::_Exit(run_child(mode));
  return 0;
}();

struct ChildResult {
  bool ok = false;
  double us = 0;
  bool disk_hit = false;
  std::string error;
};

ChildResult spawn_child(const std::string& mode, const fs::path& cache_dir, const std::string& arch,
                        const fs::path& result_file) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view v = *e;
    if (!v.starts_with("CUDAKIT_CACHE") && !v.starts_with("CUDAKIT_COMPILE_BENCH"))
      env.emplace_back(v);
  }
  env.push_back("CUDAKIT_CACHE_DIR=" + cache_dir.string());
  env.push_back(std::string(child_mode_var) + "=" + mode);
  env.push_back(std::string(child_result_var) + "=" + result_file.string());
  env.push_back(std::string(child_arch_var) + "=" + arch);
  std::vector<char*> envp;
  for (auto& v : env) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe";
  char* argv[] = {self.data(), nullptr};
  ChildResult r;
  fs::remove(result_file);
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) {
    r.error = "could not start a child process";
    return r;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(result_file);
  std::string first;
  if (!(in >> first)) {
    r.error = "child wrote no result";
    return r;
  }
  if (first == "error") {
    std::getline(in, r.error);
    return r;
  }
  std::size_t hits = 0, misses = 0;
  in >> hits >> misses;
  r.ok = true;
  r.us = std::stod(first);
  r.disk_hit = hits == 1 && misses == 0;
  return r;
}

struct Row {
  std::string what;
  std::string value;
  std::string note;
};

void print_table(std::ostream& out, const std::vector<Row>& rows) {
  std::size_t w0 = 4, w1 = 6;
  for (const auto& r : rows) {
    w0 = std::max(w0, r.what.size());
    w1 = std::max(w1, r.value.size());
  }
  out << "| " << std::left << std::setw(int(w0)) << "what"
      << " | " << std::setw(int(w1)) << "median"
      << " | note\n";
  out << "|-" << std::string(w0, '-') << "-|-" << std::string(w1, '-') << "-|-----\n";
  for (const auto& r : rows)
    out << "| " << std::setw(int(w0)) << r.what << " | " << std::setw(int(w1)) << r.value << " | "
        << r.note << "\n";
  out << std::right;
}

struct BenchOptions {
  int repeats = 7;
  int fresh = 11;
  std::string arch = "sm_90";
};

// The fresh-process row for one child mode: one child to fill the cache (a
// miss), then `n` timed children that must each be a disk hit.
Row fresh_process_row(const std::string& what, const std::string& mode, const BenchOptions& opt,
                      const fs::path& work, const char* target_note) {
  const fs::path cache_dir = work / ("cache-" + mode);
  const fs::path result = work / ("result-" + mode);
  auto prime = spawn_child(mode, cache_dir, opt.arch, result);
  if (!prime.ok) return {what, "n/a", prime.error};
  std::vector<double> samples;
  int not_hits = 0;
  for (int i = 0; i < opt.fresh; ++i) {
    auto r = spawn_child(mode, cache_dir, opt.arch, result);
    if (!r.ok) return {what, "n/a", r.error};
    if (!r.disk_hit) ++not_hits;
    samples.push_back(r.us);
  }
  std::string note = std::to_string(opt.fresh) + " processes";
  if (target_note) note += std::string("; ") + target_note;
  if (not_hits) note += "; WARNING: " + std::to_string(not_hits) + " were not disk hits";
  return {what, format_time(median(samples)), note};
}

int parse_options(int argc, char** argv, BenchOptions& opt, std::ostream& out) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--repeats")
        opt.repeats = std::max(1, std::stoi(value()));
      else if (a == "--fresh")
        opt.fresh = std::max(1, std::stoi(value()));
      else if (a == "--arch")
        opt.arch = value();
      else if (a == "--help" || a == "-h") {
        out << "compile_bench [--repeats N] [--fresh N] [--arch sm_XX]\n";
        return 1;
      } else {
        throw std::invalid_argument("unknown option " + a);
      }
    } catch (const std::exception& e) {
      out << "compile_bench: " << e.what() << "\n";
      return 2;
    }
  }
  return 0;
}

int run(const BenchOptions& opt, std::ostream& out) {
  std::random_device rd;
  const fs::path work =
      fs::temp_directory_path() /
      ("cudakit-compile-bench-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  fs::create_directories(work);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work};

  // The process-wide cache of this run lives in the scratch directory, not in
  // the user's cache (unless something used the cache before this call).
  ::setenv("CUDAKIT_CACHE_DIR", (work / "global").c_str(), 1);
  const bool gpu = backend_available(BackendKind::cuda);
  CompileOptions options;
  options.arch = opt.arch;
  CompileOptions uncached = options;
  uncached.use_cache = false;
  const std::string prepared = prepare_source(vec_add_source, options);
  std::string identity;
  try {
    identity = detail::backend(BackendKind::cuda).compiler_identity();
  } catch (const std::exception& e) {
    out << "compile benchmark: NVRTC is not usable here: " << e.what() << "\n";
    return 2;
  }
  RawNvrtc raw;
  std::string why;
  if (!raw.load(why)) {
    out << "compile benchmark: " << why << "\n";
    return 2;
  }

  out << "Compile and cache: vector add, " << identity << ", arch " << opt.arch << ", "
      << (gpu ? "GPU present" : "no GPU (compile_only + cache; no module load)") << "\n";
  out << "  medians of " << opt.repeats << " cold compiles per path (interleaved), " << opt.fresh
      << " fresh processes per disk-hit row\n\n";

  // Same compiler input on both paths: the prepared (extern "C") source and
  // the flags cudakit gives NVRTC for these options.
  const std::vector<std::string> raw_flags = {"-arch=" + opt.arch, "-std=" + options.std};
  std::vector<Row> rows;
  std::vector<double> raw_us, kit_us;
  try {
    raw.compile(prepared, raw_flags);  // both paths pay NVRTC's first-use cost here
    compile_only(vec_add_source, uncached);
    for (int r = 0; r < opt.repeats; ++r) {
      for (int which = 0; which < 2; ++which) {
        const bool raw_first = r % 2 == 0;
        const auto t0 = Clock::now();
        if ((which == 0) == raw_first) {
          raw.compile(prepared, raw_flags);
          raw_us.push_back(us_since(t0));
        } else {
          compile_only(vec_add_source, uncached);
          kit_us.push_back(us_since(t0));
        }
      }
    }
  } catch (const std::exception& e) {
    out << "compile benchmark: cold compile failed: " << e.what() << "\n";
    return 1;
  }
  const double raw_med = median(raw_us), kit_med = median(kit_us);
  std::ostringstream ratio;
  ratio << std::fixed << std::setprecision(2) << kit_med / raw_med
        << "x raw NVRTC (target <= 1.10x)";
  rows.push_back(
      {"cold compile, raw NVRTC (dlopen, create/compile/getCUBIN)", format_time(raw_med), "1.00x"});
  rows.push_back(
      {"cold compile, cudakit::compile_only, cache off", format_time(kit_med), ratio.str()});

  // The standard-header stand-ins (backend/cuda/standard_headers.cpp): NVRTC
  // is given every one by name and reads one only where the source includes
  // it, so a source that includes none pays nothing for them; a vector add
  // that includes <math.h> pays little more than one that does not.
  {
    std::vector<const char*> names, texts;
    for (const auto& header : detail::standard_headers()) {
      names.push_back(header.name);
      texts.push_back(header.text);
    }
    const std::string with_math = "#include <math.h>\n" + std::string(vec_add_source);
    std::vector<double> bare_us, named_us, plain_us, math_us;
    try {
      compile_only(with_math, uncached);
      for (int r = 0; r < opt.repeats; ++r) {
        for (int k = 0; k < 4; ++k) {
          const int which = (k + r) % 4;  // a different order each round
          const auto t0 = Clock::now();
          if (which == 0) {
            raw.compile(prepared, raw_flags);
            bare_us.push_back(us_since(t0));
          } else if (which == 1) {
            raw.compile(prepared, raw_flags, names, texts);
            named_us.push_back(us_since(t0));
          } else if (which == 2) {
            compile_only(vec_add_source, uncached);
            plain_us.push_back(us_since(t0));
          } else {
            compile_only(with_math, uncached);
            math_us.push_back(us_since(t0));
          }
        }
      }
    } catch (const std::exception& e) {
      out << "compile benchmark: stand-in compile failed: " << e.what() << "\n";
      return 1;
    }
    auto versus = [](double us, double base, const char* what) {
      std::ostringstream text;
      text << std::fixed << std::setprecision(2) << us / base << "x " << what;
      return text.str();
    };
    rows.push_back(
        {"stand-ins: raw NVRTC given all " + std::to_string(names.size()) +
             " by name, none included",
         format_time(median(named_us)),
         versus(median(named_us), median(bare_us), "raw NVRTC without them (target <= 1.10x)")});
    rows.push_back(
        {"stand-ins: compile_only, vector add with #include <math.h>", format_time(median(math_us)),
         versus(median(math_us), median(plain_us), "without the #include (target <= 1.10x)")});
  }

  // Memory level: what a repeated compile() of the same source costs in the cache.
  const CompiledCode code = compile_only(vec_add_source, uncached);
  {
    CompileCache cache(work / "memory");
    const std::string key = CompileCache::key(prepared, options, identity);
    cache.store(key, code);
    constexpr int batch = 200;
    std::vector<double> load_us, key_us;
    for (int r = 0; r < 15; ++r) {
      auto t0 = Clock::now();
      for (int i = 0; i < batch; ++i) {
        auto hit = cache.load(CompileCache::key(prepared, options, identity));
        if (!hit) throw std::runtime_error("memory level lost its entry");
      }
      load_us.push_back(us_since(t0) / batch);
      t0 = Clock::now();
      std::size_t sink = 0;
      for (int i = 0; i < batch; ++i) sink += CompileCache::key(prepared, options, identity).size();
      key_us.push_back(us_since(t0) / batch + (sink == 0 ? 1 : 0));
    }
    rows.push_back({"memory hit: CompileCache::key + load", format_time(median(load_us)),
                    "of which key(): " + format_time(median(key_us))});

    // Disk level from a new instance in this (warm) process: file read,
    // checksum, decode, mtime refresh.
    std::vector<double> disk_us;
    for (int r = 0; r < 31; ++r) {
      CompileCache fresh(work / "memory");
      const auto t0 = Clock::now();
      auto hit = fresh.load(CompileCache::key(prepared, options, identity));
      disk_us.push_back(us_since(t0));
      if (!hit || fresh.stats().disk_hits != 1) throw std::runtime_error("disk level missed");
    }
    rows.push_back({"disk hit, warm process: new CompileCache, key + load",
                    format_time(median(disk_us)),
                    std::to_string(code.image.size()) + "-byte cubin entry"});
  }

  // Through the public compile path, when the process-wide cache is on.
  if (CompileCache::global().enabled()) {
    compile_only(vec_add_source, options);  // fills the cache if it was not there
    std::vector<double> hit_us;
    for (int r = 0; r < 31; ++r) {
      const auto t0 = Clock::now();
      compile_only(vec_add_source, options);
      hit_us.push_back(us_since(t0));
    }
    rows.push_back({"memory hit: cudakit::compile_only, cache on", format_time(median(hit_us)),
                    "source prepared, key, lookup, copy"});
  }

  constexpr const char* p3 = "CuPy disk-cache hit: 0.83 ms (PERF.md P3)";
  if (gpu) {
    rows.push_back(
        fresh_process_row("disk hit, fresh process: cudakit::compile to loaded Module + kernel",
                          "gpu", opt, work, p3));
  }
  rows.push_back(
      fresh_process_row("disk hit, fresh process: compile_only, first call (cold backend)",
                        "cold_start", opt, work, gpu ? nullptr : p3));
  rows.push_back(fresh_process_row("disk hit, fresh process: compile_only, NVRTC already loaded",
                                   "warm_backend", opt, work, nullptr));

  // The CPU backend: its compiler is the host's C++ compiler, so a cache hit
  // saves far more there.
  try {
    CompileOptions cpu;
    cpu.arch = "cpu";
    cpu.use_cache = false;
    std::vector<double> cpu_us;
    for (int r = 0; r < std::min(opt.repeats, 3); ++r) {
      const auto t0 = Clock::now();
      compile_only(vec_add_source, cpu, BackendKind::cpu);
      cpu_us.push_back(us_since(t0));
    }
    rows.push_back({"cold compile, CPU backend (host compiler), cache off",
                    format_time(median(cpu_us)), std::to_string(cpu_us.size()) + " compiles"});
    rows.push_back(fresh_process_row("disk hit, fresh process: CPU backend compile_only", "cpu",
                                     opt, work, nullptr));
  } catch (const std::exception& e) {
    std::string reason = e.what();
    if (auto nl = reason.find('\n'); nl != std::string::npos) reason.resize(nl);
    rows.push_back({"CPU backend compile", "n/a", reason});
  }
  print_table(out, rows);
  return 0;
}

}  // namespace

int run_compile_bench(int argc, char** argv, std::ostream& out) {
  BenchOptions opt;
  if (int status = parse_options(argc, argv, opt, out)) return status == 1 ? 0 : status;
  try {
    return run(opt, out);
  } catch (const std::exception& e) {
    out << "compile benchmark failed: " << e.what() << "\n";
    return 1;
  }
}

int run_compile_bench(int argc, char** argv) { return run_compile_bench(argc, argv, std::cout); }

int run_compile_bench(std::ostream& out) {
  char name[] = "compile_bench";
  char* argv[] = {name, nullptr};
  return run_compile_bench(1, argv, out);
}

std::string raw_nvrtc_path(std::string& why) {
  RawNvrtc raw;
  return raw.load(why) ? raw.path() : std::string();
}

}  // namespace cudakit

#ifdef CUDAKIT_COMPILE_BENCH_MAIN
int main(int argc, char** argv) { return cudakit::run_compile_bench(argc, argv); }
#endif
