// `cudakit demo`: the tutorials' workloads (vector add, tiled matmul, 3x3
// mean filter) compiled at run time, checked against a CPU reference, and
// timed on the device against the honest single-threaded CPU loop.
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands/commands.hpp"
#include "cudakit/cudakit.hpp"
#include "workloads/mean_filter.hpp"
#include "workloads/mean_filter_steps.hpp"
#include "workloads/references.hpp"
#include "workloads/tiled_matmul.hpp"
#include "workloads/vector_add.hpp"

namespace cudakit::cli {
namespace {

struct Sizes {
  std::size_t vector_n;
  std::vector<int> matmul;  // square sizes
  int image_width;
  int image_height;
  int device_repeats;
  int cpu_repeats;
};

Sizes sizes_for(const std::string& size, BackendKind kind) {
  std::string s = size == "auto" ? (kind == BackendKind::cuda ? "full" : "small") : size;
  // full: the tutorials' own sizes plus a 1024 matmul; small: what two shared
  // cores finish in seconds on the CPU backend (64x64 is the size Numba's
  // simulator is measured at); tiny: for tests.
  if (s == "full") return {10'000'000, {1024, 512}, 3840, 2160, 20, 3};
  if (s == "small") return {1'000'003, {256, 64}, 640, 480, 3, 3};
  return {100'003, {64}, 161, 97, 2, 1};
}

struct Row {
  std::string workload;
  std::string size;
  double device_ms = 0;
  double cpu_ms = 0;
  double with_copies_ms = 0;
  double compile_ms = 0;
  std::string compile_note;
  std::string check;
  bool ok = false;
};

// Compiles through the cache and says where the module came from.
Module compile_noting(const char* source, const Device& device, Row& row) {
  auto before = CompileCache::global().stats();
  Stopwatch clock;
  Module module = compile(source, CompileOptions{}, device);
  row.compile_ms = clock.ms();
  auto after = CompileCache::global().stats();
  row.compile_note = !CompileCache::global().enabled()        ? "compiled, cache off"
                     : after.misses > before.misses           ? "compiled"
                     : after.disk_hits > before.disk_hits     ? "disk cache"
                     : after.memory_hits > before.memory_hits ? "memory cache"
                                                              : "already loaded";
  return module;
}

// Median device time of `work` (events around it on `stream`), after one warm-up.
double time_on_stream(const Device& device, const Stream& stream, int repeats,
                      const std::function<void()>& work) {
  Event start(device), stop(device);
  work();
  stream.synchronize();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    start.record(stream);
    work();
    stop.record(stream);
    stop.synchronize();
    times.push_back(elapsed_ms(start, stop));
  }
  return median(times);
}

double time_on_host(int repeats, const std::function<void()>& work) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    Stopwatch clock;
    work();
    times.push_back(clock.ms());
  }
  return median(times);
}

template <class T>
std::span<const T> cspan(const PinnedBuffer<T>& p) {
  return {p.data(), p.size()};
}

template <class T>
PinnedBuffer<T> pinned_copy(const std::vector<T>& v) {
  PinnedBuffer<T> p(v.size());
  std::copy(v.begin(), v.end(), p.data());
  return p;
}

Row vector_add(const Device& device, const Stream& stream, const Sizes& s) {
  Row row{"vector add (Numba tutorial)", std::to_string(s.vector_n) + " floats"};
  const std::size_t n = s.vector_n;
  Module module = compile_noting(workloads::numba_add_kernel_source, device, row);
  Kernel kernel = module.kernel("add_kernel");
  auto a = random_floats(n, fresh_seed()), b = random_floats(n, fresh_seed());
  std::vector<float> expected(n), c(n);
  workloads::parallel_for(n, [&](std::size_t lo, std::size_t hi) {
    workloads::vector_add_rows(a.data(), b.data(), expected.data(), lo, hi);
  });

  DeviceBuffer<float> da(device, n), db(device, n), dc(device, n);
  da.copy_from(a);
  db.copy_from(b);
  const LaunchConfig config = grid_for(n, 256, stream);
  const int count = static_cast<int>(n);
  kernel.launch(config, da, db, dc, count);
  stream.synchronize();
  dc.copy_to(c);
  double err = 0;
  for (std::size_t i = 0; i < n; ++i) err = std::max(err, double(std::fabs(c[i] - expected[i])));
  row.ok = err <= 1e-6;
  row.check = std::string(row.ok ? "ok" : "WRONG") + ", max err " + fixed(err, 6);

  row.device_ms = time_on_stream(device, stream, s.device_repeats,
                                 [&] { kernel.launch(config, da, db, dc, count); });
  auto pa = pinned_copy(a), pb = pinned_copy(b);
  PinnedBuffer<float> pc(n);
  row.with_copies_ms = time_on_stream(device, stream, std::max(3, s.device_repeats / 4), [&] {
    da.copy_from_async(cspan(pa), stream);
    db.copy_from_async(cspan(pb), stream);
    kernel.launch(config, da, db, dc, count);
    dc.copy_to_async(pc.span(), stream);
  });
  row.cpu_ms = time_on_host(
      s.cpu_repeats, [&] { workloads::vector_add_rows(a.data(), b.data(), c.data(), 0, n); });
  return row;
}

Row tiled_matmul(const Device& device, const Stream& stream, const Sizes& s, int m) {
  Row row{"tiled matmul 16x16 (PyCUDA tutorial)", std::to_string(m) + "x" + std::to_string(m)};
  const int n = m, k = m;
  const std::size_t elems = std::size_t(m) * std::size_t(m);
  Module module = compile_noting(workloads::tiled_matmul_source, device, row);
  Kernel kernel = module.kernel("matmul_shared");
  auto a = random_floats(elems, fresh_seed()), b = random_floats(elems, fresh_seed());
  std::vector<float> expected(elems), c(elems);
  workloads::parallel_for(std::size_t(m), [&](std::size_t lo, std::size_t hi) {
    workloads::matmul_rows(a.data(), b.data(), expected.data(), n, k, lo, hi);
  });

  DeviceBuffer<float> da(device, elems), db(device, elems), dc(device, elems);
  da.copy_from(a);
  db.copy_from(b);
  const LaunchConfig config =
      grid_for_2d(std::size_t(n), std::size_t(m), workloads::tiled_matmul_block,
                  workloads::tiled_matmul_block, stream);
  kernel.launch(config, da, db, dc, m, n, k);
  stream.synchronize();
  dc.copy_to(c);
  double err = 0;
  for (std::size_t i = 0; i < elems; ++i)
    err = std::max(err, double(std::fabs(c[i] - expected[i])));
  // Same summation order as the reference; only FMA contraction differs.
  row.ok = err <= 1e-4 * k;
  row.check = std::string(row.ok ? "ok" : "WRONG") + ", max err " + fixed(err, 6);

  row.device_ms = time_on_stream(device, stream, s.device_repeats,
                                 [&] { kernel.launch(config, da, db, dc, m, n, k); });
  auto pa = pinned_copy(a), pb = pinned_copy(b);
  PinnedBuffer<float> pc(elems);
  row.with_copies_ms = time_on_stream(device, stream, std::max(3, s.device_repeats / 4), [&] {
    da.copy_from_async(cspan(pa), stream);
    db.copy_from_async(cspan(pb), stream);
    kernel.launch(config, da, db, dc, m, n, k);
    dc.copy_to_async(pc.span(), stream);
  });
  row.cpu_ms = time_on_host(s.cpu_repeats, [&] {
    workloads::matmul_rows(a.data(), b.data(), c.data(), n, k, 0, std::size_t(m));
  });
  return row;
}

Row mean_filter(const Device& device, const Stream& stream, const Sizes& s) {
  const int w = s.image_width, h = s.image_height;
  Row row{"3x3 mean filter, RGB (PyCUDA tutorial)",
          std::to_string(w) + "x" + std::to_string(h) + "x3 u8"};
  const std::size_t bytes = std::size_t(w) * std::size_t(h) * workloads::mean_filter_channels;
  // The shipped (fastest) step of the optimisation checklist
  // (mean_filter_steps.hpp); `cudakit bench conv` compares it with the
  // tutorial's naive kernel.
  const workloads::MeanFilterStep& step =
      workloads::mean_filter_steps().at(workloads::mean_filter_shipped_step());
  Module module = compile_noting(step.source.c_str(), device, row);
  Kernel kernel = module.kernel(step.kernel);
  auto image = random_bytes(bytes, fresh_seed());
  std::vector<std::uint8_t> expected(bytes), out(bytes);
  workloads::parallel_for(std::size_t(h), [&](std::size_t lo, std::size_t hi) {
    workloads::mean_filter_rows(image.data(), expected.data(), w, h, lo, hi);
  });

  DeviceBuffer<std::uint8_t> din(device, bytes), dout(device, bytes);
  din.copy_from(image);
  const LaunchConfig config = workloads::mean_filter_step_launch(
      workloads::mean_filter_shipped_step(), kernel, w, h, stream);
  kernel.launch(config, din, dout, w, h);
  stream.synchronize();
  dout.copy_to(out);
  int err = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    err = std::max(err, std::abs(int(out[i]) - int(expected[i])));
  row.ok = err == 0;
  row.check = std::string(row.ok ? "ok" : "WRONG") + ", max err " + std::to_string(err);

  row.device_ms = time_on_stream(device, stream, s.device_repeats,
                                 [&] { kernel.launch(config, din, dout, w, h); });
  auto pin = pinned_copy(image);
  PinnedBuffer<std::uint8_t> pout(bytes);
  row.with_copies_ms = time_on_stream(device, stream, std::max(3, s.device_repeats / 4), [&] {
    din.copy_from_async(cspan(pin), stream);
    kernel.launch(config, din, dout, w, h);
    dout.copy_to_async(pout.span(), stream);
  });
  row.cpu_ms = time_on_host(s.cpu_repeats, [&] {
    workloads::mean_filter_rows(image.data(), out.data(), w, h, 0, std::size_t(h));
  });
  return row;
}

}  // namespace

int run_demo(const DemoOptions& options) {
  Device device = Device::current();
  const bool gpu = device.backend_kind() == BackendKind::cuda;
  if (!gpu)
    std::cout << "no GPU: running on the CPU backend (" << device.name()
              << "); sizes are reduced so it finishes quickly\n";
  else
    std::cout << "running on " << device.describe() << "\n";
  Sizes sizes = sizes_for(options.size, device.backend_kind());
  if (options.repeats > 0) sizes.device_repeats = sizes.cpu_repeats = options.repeats;

  Stream stream = device.create_stream();
  std::vector<Row> rows;
  auto run = [&](const char* what, const std::function<Row()>& body) {
    std::cout << "  " << what << "..." << std::flush;
    rows.push_back(body());
    std::cout << " " << rows.back().check << "\n";
  };
  run("vector add", [&] { return vector_add(device, stream, sizes); });
  for (int m : sizes.matmul)
    run("tiled matmul", [&] { return tiled_matmul(device, stream, sizes, m); });
  run("3x3 mean filter", [&] { return mean_filter(device, stream, sizes); });

  const std::string device_col = gpu ? "GPU ms" : "CPU-backend ms";
  std::cout << "\n";
  Table table({"workload", "size", device_col, "CPU ms", "speed-up", "check",
               gpu ? "GPU ms incl. copies" : "CPU-backend ms incl. copies", "compile ms"});
  bool all_ok = true;
  for (const auto& r : rows) {
    all_ok = all_ok && r.ok;
    table.add({r.workload, r.size, format_ms(r.device_ms), format_ms(r.cpu_ms),
               r.device_ms > 0 ? fixed(r.cpu_ms / r.device_ms, 1) + "x" : "-", r.check,
               format_ms(r.with_copies_ms), format_ms(r.compile_ms) + " (" + r.compile_note + ")"});
  }
  table.print(std::cout);
  std::cout << "\n"
            << device_col << ": kernel only, median of " << sizes.device_repeats
            << " (events on one stream); CPU ms: one thread, the naive loop, median of "
            << sizes.cpu_repeats << "; incl. copies: pinned host to device, kernel, back.\n";
  if (!all_ok) std::cout << "demo: a result did not match the CPU reference\n";
  return all_ok ? 0 : 1;
}

}  // namespace cudakit::cli
