// The complete program of the C++ fragments in docs/guide/streams.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_streams (on a GPU where there is one, else on the CPU backend).
#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int streams_and_events() {
  const std::size_t n = 1000;
  ck::Kernel kernel = ck::compile(R"(
    __global__ void scale(const float* x, float* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = 2.0f * x[i];
    })")
                          .kernel("scale");

  // --- docs/guide/streams.md, "Streams and events" ---
  // clang-format off

  namespace ck = cudakit;

  auto dev = ck::Device::current();
  ck::Stream copy_stream = dev.create_stream();      // non-blocking by default
  ck::Stream compute = dev.create_stream();

  ck::PinnedBuffer<float> host(n);
  ck::DeviceBuffer<float> x(n), y(n);
  x.copy_from_async(host, copy_stream);
  ck::Event copied = copy_stream.record();
  compute.wait(copied);                               // the kernel starts after the copy
  kernel.launch(ck::grid_for(n, 256, compute), x, y, static_cast<int>(n));

  ck::Event start(dev), stop(dev);
  start.record(compute);
  kernel.launch(ck::grid_for(n, 256, compute), x, y, static_cast<int>(n));
  stop.record(compute);
  stop.synchronize();
  float ms = ck::elapsed_ms(start, stop);
  // clang-format on
  // ---

  const std::vector<float> doubled = y.to_host();
  for (std::size_t i = 0; i < n; ++i)
    if (doubled[i] != 2.0f * host[i] && !(std::isnan(host[i]))) return 1;
  return ms >= 0.0f ? 0 : 1;
}

int arrays_on_several_streams() {
  const ck::Device dev = ck::Device::current();
  const std::int64_t n = 1024;
  std::vector<float> data(static_cast<std::size_t>(n), 0.5f);
  ck::Kernel producer = ck::compile(R"(
    __global__ void produce(float* a, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) a[i] += 1.0f;
    })")
                            .kernel("produce");

  // --- docs/guide/streams.md, "Arrays on several streams" ---
  // clang-format off
  ck::Stream s1 = dev.create_stream(), s2 = dev.create_stream();
  ck::Array a = ck::from_host(data.data(), {n}, ck::DType::float32, s1);  // a host pointer
  ck::Array x = ck::ones({n}, ck::DType::float32, s2);
  producer.launch(ck::grid_for(n, 256, s1), a, static_cast<int>(n));  // writes a on s1
  ck::Array total = ck::sum(ck::Expr(x) + a);  // runs on s2 (x's), after the producer
  ck::Array c = ck::matmul(x.reshape({32, 32}), a.reshape({32, 32}));  // likewise
  // clang-format on
  // ---
  total.stream().synchronize();
  c.stream().synchronize();
  if (total.item().as_double() != 2.5 * static_cast<double>(n)) return 1;  // 1 + (0.5 + 1)
  return 0;
}

}  // namespace

int main() {
  return run_doc_sections({{"streams_and_events", &streams_and_events},
                           {"arrays_on_several_streams", &arrays_on_several_streams}});
}
