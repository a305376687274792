// Overlapping copies and compute: the input is cut into chunks, each chunk's
// host-to-device copy, kernel and device-to-host copy are queued on its own
// stream from pinned memory, so one chunk's copies run while another computes.
// Events time each stream and order a final stream after all of them.
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <vector>

#include "workloads/vector_add.hpp"

namespace ck = cudakit;

int main() try {
  ck::Device device = ck::Device::current();
  std::printf("streams_overlap on %s\n", device.describe().c_str());

  ck::Module module = ck::compile(ck::workloads::numba_add_kernel_source, {}, device);
  ck::Kernel add = module.kernel("add_kernel");

  const int chunks = 4;
  const std::size_t chunk = 250'007;
  const std::size_t n = chunk * chunks;
  // Pinned host memory: asynchronous copies from pageable memory would be
  // staged by the driver and could not overlap with kernels.
  ck::PinnedBuffer<float> a(n), b(n), c(n);
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (std::size_t i = 0; i < n; ++i) a[i] = dist(gen), b[i] = dist(gen), c[i] = 0.0f;

  std::vector<ck::Stream> streams;
  std::vector<ck::DeviceBuffer<float>> da, db, dc;
  for (int s = 0; s < chunks; ++s) {
    streams.push_back(device.create_stream());
    da.emplace_back(device, chunk);
    db.emplace_back(device, chunk);
    dc.emplace_back(device, chunk);
  }

  std::vector<ck::Event> started, finished;
  for (int s = 0; s < chunks; ++s) {
    const ck::Stream& stream = streams[std::size_t(s)];
    const std::size_t offset = std::size_t(s) * chunk;
    std::span<const float> a_part(a.data() + offset, chunk), b_part(b.data() + offset, chunk);
    std::span<float> c_part(c.data() + offset, chunk);
    started.push_back(stream.record());
    da[std::size_t(s)].copy_from_async(a_part, stream);
    db[std::size_t(s)].copy_from_async(b_part, stream);
    add.launch(ck::grid_for(chunk, 256, stream), da[std::size_t(s)], db[std::size_t(s)],
               dc[std::size_t(s)], static_cast<int>(chunk));
    dc[std::size_t(s)].copy_to_async(c_part, stream);
    finished.push_back(stream.record());
  }

  // A last stream waits for every chunk (no host round trip), then the host waits for it.
  ck::Stream join = device.create_stream();
  for (const auto& event : finished) join.wait(event);
  ck::Event all_done = join.record();
  all_done.synchronize();

  for (int s = 0; s < chunks; ++s)
    std::printf("stream %d: %.3f ms for copy in, kernel, copy out\n", s,
                double(ck::elapsed_ms(started[std::size_t(s)], finished[std::size_t(s)])));
  for (std::size_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      std::printf("wrong result at %zu\n", i);
      return 1;
    }
  std::printf("ok: %d chunks of %zu elements\n", chunks, chunk);
  return 0;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
