// CPU references for the tutorials' workloads: the honest naive loops the
// demo times, and a multi-threaded form used only to check results quickly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace cudakit::workloads {

// Runs body(begin, end) over [0, n) split across the host's cores.
inline void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
  std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, std::max<std::size_t>(1, n / 1024));
  if (workers <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> threads;
  std::size_t chunk = (n + workers - 1) / workers;
  for (std::size_t w = 0; w < workers; ++w) {
    std::size_t begin = w * chunk, end = std::min(n, begin + chunk);
    if (begin < end) threads.emplace_back(body, begin, end);
  }
  for (auto& t : threads) t.join();
}

inline void vector_add_rows(const float* a, const float* b, float* c, std::size_t begin,
                            std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
}

// C (m x n) = A (m x k) * B (k x n), rows [row_begin, row_end), the naive
// triple loop in the kernel's summation order (so results agree closely).
inline void matmul_rows(const float* a, const float* b, float* c, int n, int k,
                        std::size_t row_begin, std::size_t row_end) {
  for (std::size_t row = row_begin; row < row_end; ++row)
    for (int col = 0; col < n; ++col) {
      float sum = 0.0f;
      for (int i = 0; i < k; ++i) sum += a[row * std::size_t(k) + i] * b[std::size_t(i) * n + col];
      c[row * std::size_t(n) + col] = sum;
    }
}

// The mean filter of mean_filter.hpp on rows [row_begin, row_end).
inline void mean_filter_rows(const std::uint8_t* in, std::uint8_t* out, int width, int height,
                             std::size_t row_begin, std::size_t row_end) {
  constexpr int ch = 3;
  for (std::size_t yy = row_begin; yy < row_end; ++yy) {
    int y = int(yy);
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < ch; ++c) {
        std::size_t at = (std::size_t(y) * width + x) * ch + c;
        if (x >= 1 && x < width - 1 && y >= 1 && y < height - 1) {
          int sum = 0;
          for (int ky = -1; ky <= 1; ++ky)
            for (int kx = -1; kx <= 1; ++kx)
              sum += in[(std::size_t(y + ky) * width + (x + kx)) * ch + c];
          out[at] = static_cast<std::uint8_t>(sum / 9);
        } else {
          out[at] = in[at];
        }
      }
  }
}

}  // namespace cudakit::workloads
