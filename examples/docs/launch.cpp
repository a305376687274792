// The complete program of the C++ fragments in docs/guide/launch.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_launch (on a GPU where there is one, else on the CPU backend).
#include <cstdio>
#include <cudakit/cudakit.hpp>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int launching_kernels() {
  const std::size_t n = 128 * 128;
  const char* source = R"(
    __global__ void vec_add(const float* a, const float* b, float* c, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) c[i] = a[i] + b[i];
    })";
  ck::Kernel matmul = ck::compile(R"(
    __global__ void matmul(const float* a, const float* b, float* c, int width) {
      extern __shared__ float tiles[];
      float* tile_a = tiles;
      float* tile_b = tiles + 16 * 16;
      int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
      float sum = 0.0f;
      for (int t = 0; t < width / 16; ++t) {
        tile_a[threadIdx.y * 16 + threadIdx.x] = a[row * width + t * 16 + threadIdx.x];
        tile_b[threadIdx.y * 16 + threadIdx.x] = b[(t * 16 + threadIdx.y) * width + col];
        __syncthreads();
        for (int k = 0; k < 16; ++k) sum += tile_a[threadIdx.y * 16 + k] * tile_b[k * 16 + threadIdx.x];
        __syncthreads();
      }
      c[row * width + col] = sum;
    })")
                          .kernel("matmul");
  ck::Stream stream = ck::Device::current().create_stream();

  // --- docs/guide/launch.md, "Launching kernels" ---
  // clang-format off

  namespace ck = cudakit;

  auto vec_add = ck::compile(source).kernel("vec_add");
  std::vector<float> a(n), b(n), c(n);
  // ... fill a and b

  // With device buffers.
  auto da = ck::to_device(a), db = ck::to_device(b);
  ck::DeviceBuffer<float> dc(n);
  vec_add.launch(ck::grid_for(n, 256), da, db, dc, static_cast<int>(n));
  dc.copy_to(c);

  // With host data, as PyCUDA's drv.In / drv.Out: copied in before, out after.
  vec_add.launch(ck::grid_for(n, 256), ck::In(a), ck::In(b), ck::Out(c), static_cast<int>(n));

  // Full control: 2-D grid, dynamic shared memory, a stream (n = 128 * 128 here).
  ck::LaunchConfig config{ck::Dim3(8, 8), ck::Dim3(16, 16), 2 * 16 * 16 * sizeof(float), stream};
  matmul.launch(config, da, db, dc, 128);
  // clang-format on
  // ---
  stream.synchronize();
  return 0;
}

int arguments_chosen_at_run_time_kernelargs() {
  const std::size_t n = 1001;
  ck::Kernel vec_add = ck::compile(R"(
    __global__ void vec_add(const float* a, const float* b, float* c, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) c[i] = a[i] + b[i];
    })")
                           .kernel("vec_add");
  std::vector<float> a(n, 1.5f), b(n, 2.0f), c(n, 0.0f);
  auto da = ck::to_device(a), db = ck::to_device(b);
  ck::DeviceBuffer<float> dc(n);

  // --- docs/guide/launch.md, "Arguments chosen at run time: `KernelArgs`" ---
  // clang-format off
  ck::KernelArgs args;
  args.add(da).add(db).add(dc)                        // what the variadic launch accepts
      .integer_literal(static_cast<long long>(n));    // a number with no C type: fits `int n`
  vec_add.launch(ck::grid_for(n, 256), args);

  ck::KernelArgs staged;                              // host data, staged like In / Out
  staged.host(a.data(), a.size() * sizeof(float), ck::TransferDirection::in)
      .host(b.data(), b.size() * sizeof(float), ck::TransferDirection::in)
      .host(c.data(), c.size() * sizeof(float), ck::TransferDirection::out)
      .scalar(static_cast<int>(n));                   // a value of a fixed C type
  vec_add.launch(ck::grid_for(n, 256), staged);       // returns when c is on the host
  // clang-format on
  // ---
  if (dc.to_host() != std::vector<float>(n, 3.5f)) return 1;
  return c == std::vector<float>(n, 3.5f) ? 0 : 1;
}

}  // namespace

int main() {
  return run_doc_sections(
      {{"launching_kernels", &launching_kernels},
       {"arguments_chosen_at_run_time_kernelargs", &arguments_chosen_at_run_time_kernelargs}});
}
