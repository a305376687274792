// The complete program of the C++ fragments in docs/guide/profiling.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_profiling (on a GPU where there is one, else on the CPU backend).
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <cudakit/profiler.hpp>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

const char* const kScaleSource = R"(
    __global__ void scale(float* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] *= 0.5f;
    })";

// What the fragments use: the scale kernel, a launch shape for n floats and a
// zeroed device buffer of them.
struct ScaleSetup {
  int n = 1 << 16;
  ck::Kernel scale = ck::compile(kScaleSource).kernel("scale");
  ck::LaunchConfig config = ck::grid_for(n, 256);
  ck::DeviceBuffer<float> buffer{static_cast<std::size_t>(n)};
  ScaleSetup() { buffer.zero(); }
};

int declaring_what_your_kernel_moves() {
  ScaleSetup setup;
  auto& [n, scale, config, buffer] = setup;

  // --- docs/guide/profiling.md, "Declaring what your kernel moves" ---
  // clang-format off
  ck::LaunchConfig declared = config;
  declared.bytes_moved = 2 * sizeof(float) * n;  // each float read and written once
  declared.label = "scale (halving)";
  scale.launch(declared, buffer, n);
  // clang-format on
  // ---

  return 0;
}

int from_inside_the_program() {
  ScaleSetup setup;
  auto& [n, scale, config, buffer] = setup;

  // --- docs/guide/profiling.md, "From inside the program" ---
  // clang-format off


  ck::ProfileSession session;
  for (int i = 0; i < 10; ++i) scale.launch(config, buffer, n);
  ck::ProfileReport report = session.stop();
  std::fputs(report.to_string().c_str(), stdout);  // the table
  report.write_chrome_trace("scale_trace.json");
  std::printf("%s: %ld calls, %.4f ms each\n", report.rows[0].name.c_str(), report.rows[0].calls,
              report.rows[0].mean_ms);
  // clang-format on
  // ---

  return 0;
}

int timing_a_piece_of_work_benchmark() {
  ScaleSetup setup;
  auto& [n, scale, config, buffer] = setup;

  // --- docs/guide/profiling.md, "Timing a piece of work: `benchmark`" ---
  // clang-format off


  ck::BenchmarkOptions options;
  options.n_warmup = 10;
  options.n_repeat = 100;
  options.name = "scale";
  ck::BenchmarkResult r = ck::benchmark([&] { scale.launch(config, buffer, n); }, options);
  std::puts(r.to_string().c_str());
  // scale: CPU:     14.210 us +/-   1.032 (min 12.9, max 19.8)   GPU:   9.870 us +/- ...
  // clang-format on
  // ---

  return 0;
}

int occupancy() {
  ck::Kernel kernel = ck::compile(kScaleSource).kernel("scale");
  const std::size_t dynamic_shared_bytes = 0;

  // --- docs/guide/profiling.md, "Is the launch shape right? `kernel.occupancy(block, shared)`" ---
  // clang-format off
  ck::Occupancy o = kernel.occupancy(256, dynamic_shared_bytes);  // or ck::occupancy(kernel, ...)
  std::puts(o.to_string().c_str());
  // block 256: 8 blocks (64 of 64 warps, 100%) per multiprocessor, limited by threads (warps) per multiprocessor
  // clang-format on
  // ---

  return 0;
}

}  // namespace

int main() {
  return run_doc_sections({{"declaring_what_your_kernel_moves", &declaring_what_your_kernel_moves},
                           {"from_inside_the_program", &from_inside_the_program},
                           {"timing_a_piece_of_work_benchmark", &timing_a_piece_of_work_benchmark},
                           {"occupancy", &occupancy}});
}
