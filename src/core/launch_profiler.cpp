#include "launch_profiler.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace cudakit::detail {
namespace {

struct LaunchRecord {
  std::string kernel;
  Dim3 grid, block;
  NativeStream stream;
  NativeEvent start, stop;
};

struct KernelSummary {
  long calls = 0;
  double total_ms = 0, min_ms = 1e300, max_ms = 0;
  std::string shapes;  // "grid 4x1x1 block 256x1x1" (the first; "+ others" when they vary)
};

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

class ProfilingBackend final : public Backend {
 public:
  explicit ProfilingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  ~ProfilingBackend() override { report(); }

  BackendKind kind() const noexcept override { return inner_->kind(); }
  int device_count() override { return inner_->device_count(); }
  DeviceProperties properties(int o) override { return inner_->properties(o); }
  std::int64_t attribute(int o, DeviceAttribute a) override { return inner_->attribute(o, a); }
  void make_current(int o) override { inner_->make_current(o); }
  int current_device() override { return inner_->current_device(); }
  void synchronize(int o) override { inner_->synchronize(o); }
  MemoryInfo memory_info(int o) override { return inner_->memory_info(o); }
  std::size_t limit(int o, ContextLimit w) override { return inner_->limit(o, w); }
  void set_limit(int o, ContextLimit w, std::size_t v) override { inner_->set_limit(o, w, v); }
  void set_cache_preference(int o, CachePreference p) override {
    inner_->set_cache_preference(o, p);
  }
  CachePreference cache_preference(int o) override { return inner_->cache_preference(o); }
  void set_shared_memory_bank_size(int o, SharedMemoryBankSize s) override {
    inner_->set_shared_memory_bank_size(o, s);
  }
  SharedMemoryBankSize shared_memory_bank_size(int o) override {
    return inner_->shared_memory_bank_size(o);
  }
  int driver_version() override { return inner_->driver_version(); }
  DevicePtr allocate(int o, std::size_t b) override { return inner_->allocate(o, b); }
  void deallocate(int o, DevicePtr p) noexcept override { inner_->deallocate(o, p); }
  void set_usable_bytes(DevicePtr p, std::size_t u, std::size_t c) noexcept override {
    inner_->set_usable_bytes(p, u, c);
  }
  void* allocate_pinned(std::size_t b) override { return inner_->allocate_pinned(b); }
  void deallocate_pinned(void* p) noexcept override { inner_->deallocate_pinned(p); }
  void register_host(void* p, std::size_t b, unsigned f) override {
    inner_->register_host(p, b, f);
  }
  void unregister_host(void* p) override { inner_->unregister_host(p); }
  DevicePtr host_device_pointer(void* p) override { return inner_->host_device_pointer(p); }
  void copy(void* d, const void* s, std::size_t b, NativeStream st, bool a) override {
    inner_->copy(d, s, b, st, a);
  }
  void fill(DevicePtr d, std::uint32_t v, unsigned e, std::size_t c, NativeStream s,
            bool a) override {
    inner_->fill(d, v, e, c, s, a);
  }
  NativeStream create_stream(int o, bool nb) override { return inner_->create_stream(o, nb); }
  void destroy_stream(NativeStream s) noexcept override { inner_->destroy_stream(s); }
  void synchronize_stream(NativeStream s) override { inner_->synchronize_stream(s); }
  bool query_stream(NativeStream s) override { return inner_->query_stream(s); }
  void stream_wait_event(NativeStream s, NativeEvent e) override {
    inner_->stream_wait_event(s, e);
  }
  NativeEvent create_event(int o, bool t) override { return inner_->create_event(o, t); }
  void destroy_event(NativeEvent e) noexcept override { inner_->destroy_event(e); }
  void record_event(NativeEvent e, NativeStream s) override { inner_->record_event(e, s); }
  void synchronize_event(NativeEvent e) override { inner_->synchronize_event(e); }
  bool query_event(NativeEvent e) override { return inner_->query_event(e); }
  float elapsed_ms(NativeEvent a, NativeEvent b) override { return inner_->elapsed_ms(a, b); }
  std::string compiler_identity() override { return inner_->compiler_identity(); }
  std::string default_arch(int o) override { return inner_->default_arch(o); }
  CompiledCode compile(const CompileRequest& r) override { return inner_->compile(r); }
  NativeModule load_module(int o, const CompiledCode& c) override {
    return inner_->load_module(o, c);
  }
  void unload_module(NativeModule m) noexcept override { inner_->unload_module(m); }
  std::vector<std::string> kernel_symbols(NativeModule m) override {
    return inner_->kernel_symbols(m);
  }
  NativeKernel get_kernel(NativeModule m, const std::string& s) override {
    return inner_->get_kernel(m, s);
  }
  ParamLayout param_layout(NativeModule m, const std::string& s) override {
    return inner_->param_layout(m, s);
  }
  KernelAttributes kernel_attributes(NativeKernel k) override {
    return inner_->kernel_attributes(k);
  }
  void set_max_dynamic_shared_memory(NativeKernel k, std::size_t b) override {
    inner_->set_max_dynamic_shared_memory(k, b);
  }
  void set_kernel_cache_preference(NativeKernel k, CachePreference p) override {
    inner_->set_kernel_cache_preference(k, p);
  }
  std::pair<DevicePtr, std::size_t> get_global(NativeModule m, const std::string& n) override {
    return inner_->get_global(m, n);
  }
  int max_active_blocks_per_multiprocessor(NativeKernel k, int b, std::size_t s) override {
    return inner_->max_active_blocks_per_multiprocessor(k, b, s);
  }
  std::pair<int, int> suggest_block_size(NativeKernel k, std::size_t s) override {
    return inner_->suggest_block_size(k, s);
  }

  void launch(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
              unsigned dynamic_shared_bytes, NativeStream stream, void** args) override {
    const int device = inner_->current_device();
    NativeEvent start = inner_->create_event(device, true);
    NativeEvent stop = inner_->create_event(device, true);
    inner_->record_event(start, stream);
    try {
      inner_->launch(kernel, kernel_name, grid, block, dynamic_shared_bytes, stream, args);
    } catch (...) {
      inner_->destroy_event(start);
      inner_->destroy_event(stop);
      throw;
    }
    inner_->record_event(stop, stream);
    std::lock_guard lock(mutex_);
    records_.push_back({kernel_name ? kernel_name : "?", grid, block, stream, start, stop});
  }

  // Prints the table (and writes the trace) once; called at exit, before
  // the backend itself goes.
  void report() noexcept {
    std::vector<LaunchRecord> records;
    {
      std::lock_guard lock(mutex_);
      if (reported_) return;
      reported_ = true;
      records.swap(records_);
    }
    if (records.empty()) {
      std::fprintf(stderr, "cudakit profile: no kernel launches\n");
      return;
    }
    std::map<std::string, KernelSummary> by_kernel;
    std::vector<double> duration(records.size(), -1), offset(records.size(), 0);
    for (std::size_t i = 0; i < records.size(); ++i) {
      const LaunchRecord& r = records[i];
      try {
        inner_->synchronize_event(r.stop);
        duration[i] = inner_->elapsed_ms(r.start, r.stop);
        offset[i] = inner_->elapsed_ms(records[0].start, r.start);
      } catch (...) {
        // A failed launch's events may never complete: the launch is listed
        // without a time.
      }
      KernelSummary& s = by_kernel[r.kernel];
      const std::string shape = "grid " + r.grid.to_string() + " block " + r.block.to_string();
      if (s.shapes.empty())
        s.shapes = shape;
      else if (s.shapes.find(shape) != 0 && s.shapes.find(" + others") == std::string::npos)
        s.shapes += " + others";
      ++s.calls;
      if (duration[i] >= 0) {
        s.total_ms += duration[i];
        s.min_ms = std::min(s.min_ms, duration[i]);
        s.max_ms = std::max(s.max_ms, duration[i]);
      }
    }
    std::vector<std::pair<std::string, KernelSummary>> rows(by_kernel.begin(), by_kernel.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.second.total_ms > b.second.total_ms; });
    std::fprintf(stderr, "\ncudakit profile: %zu launches of %zu kernels (times from events)\n",
                 records.size(), rows.size());
    std::fprintf(stderr, "%-32s %7s %11s %11s %11s %11s  %s\n", "kernel", "calls", "total ms",
                 "mean ms", "min ms", "max ms", "launch shape");
    for (const auto& [name, s] : rows)
      std::fprintf(stderr, "%-32s %7ld %11.4f %11.4f %11.4f %11.4f  %s\n", name.c_str(), s.calls,
                   s.total_ms, s.calls ? s.total_ms / double(s.calls) : 0.0,
                   s.min_ms > 1e299 ? 0.0 : s.min_ms, s.max_ms, s.shapes.c_str());
    if (const char* path = std::getenv("CUDAKIT_PROFILE_TRACE"); path && *path)
      write_trace(path, records, duration, offset);
    for (const auto& r : records) {
      inner_->destroy_event(r.start);
      inner_->destroy_event(r.stop);
    }
  }

 private:
  void write_trace(const char* path, const std::vector<LaunchRecord>& records,
                   const std::vector<double>& duration, const std::vector<double>& offset) {
    std::ofstream out(path);
    std::map<NativeStream, int> stream_ids;
    out << "{\"traceEvents\": [\n";
    bool first = true;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const LaunchRecord& r = records[i];
      auto [it, fresh] = stream_ids.emplace(r.stream, static_cast<int>(stream_ids.size()));
      char times[96];
      std::snprintf(times, sizeof times, "\"ts\": %.3f, \"dur\": %.3f", offset[i] * 1000.0,
                    std::max(0.0, duration[i]) * 1000.0);
      out << (first ? "" : ",\n") << "  {\"name\": \"" << json_escape(r.kernel)
          << "\", \"cat\": \"kernel\", \"ph\": \"X\", " << times
          << ", \"pid\": 0, \"tid\": " << it->second << ", \"args\": {\"grid\": \""
          << r.grid.to_string() << "\", \"block\": \"" << r.block.to_string() << "\"}}";
      first = false;
    }
    out << "\n], \"displayTimeUnit\": \"ms\"}\n";
    if (out)
      std::fprintf(stderr, "cudakit profile: trace of %zu launches written to %s\n", records.size(),
                   path);
    else
      std::fprintf(stderr, "cudakit profile: cannot write the trace to %s\n", path);
  }

  std::unique_ptr<Backend> inner_;
  std::mutex mutex_;
  std::vector<LaunchRecord> records_;
  bool reported_ = false;
};

ProfilingBackend* active_profiler = nullptr;

}  // namespace

bool launch_profiling_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("CUDAKIT_PROFILE");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

std::unique_ptr<Backend> make_profiling_backend(std::unique_ptr<Backend> inner) {
  auto profiler = std::make_unique<ProfilingBackend>(std::move(inner));
  active_profiler = profiler.get();
  // At exit, while the backend (a static created before this handler was
  // registered) is still alive.
  std::atexit([] {
    if (active_profiler) active_profiler->report();
  });
  return profiler;
}

}  // namespace cudakit::detail
