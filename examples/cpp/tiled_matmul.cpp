// The PyCUDA tutorial's tiled shared-memory matrix product (16x16 tiles,
// __shared__ + __syncthreads) on shapes that are not multiples of the tile,
// checked against the naive triple loop.
#include "workloads/tiled_matmul.hpp"

#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <vector>

namespace ck = cudakit;

int main() try {
  ck::Device device = ck::Device::current();
  std::printf("tiled_matmul on %s\n", device.describe().c_str());

  ck::Module module = ck::compile(ck::workloads::tiled_matmul_source, {}, device);
  ck::Kernel matmul = module.kernel("matmul_shared");
  const auto attributes = matmul.attributes();
  std::printf("matmul_shared: %d registers, %zu B static shared memory\n", attributes.registers,
              attributes.static_shared_bytes);

  const int M = 131, K = 77, N = 203;  // C (M x N) = A (M x K) * B (K x N)
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(std::size_t(M) * K), b(std::size_t(K) * N);
  for (auto& v : a) v = dist(gen);
  for (auto& v : b) v = dist(gen);

  auto da = ck::to_device(a), db = ck::to_device(b);
  ck::DeviceBuffer<float> dc(device, std::size_t(M) * N);
  const unsigned tile = ck::workloads::tiled_matmul_block;
  // x covers the N columns, y the M rows, as the kernel indexes them.
  matmul.launch(ck::grid_for_2d(N, M, tile, tile), da, db, dc, M, N, K);
  std::vector<float> c = dc.to_host();

  double max_error = 0;
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < N; ++col) {
      float sum = 0.0f;
      for (int i = 0; i < K; ++i) sum += a[std::size_t(row) * K + i] * b[std::size_t(i) * N + col];
      max_error = std::max(max_error, double(std::fabs(sum - c[std::size_t(row) * N + col])));
    }
  std::printf("%dx%d * %dx%d: max error %g\n", M, K, K, N, max_error);
  return max_error <= 1e-4 ? 0 : 1;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
