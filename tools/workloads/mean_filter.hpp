// The PyCUDA tutorial's 3x3 mean filter over an interleaved RGB image,
// shared by the examples, the demo and the benchmarks.
#pragma once

namespace cudakit::workloads {

// Verbatim from the tutorial (its naive version, before the shared-memory
// rewrite it suggests): interior pixels get the integer mean of their 3x3
// neighbourhood per channel, border pixels are copied.
inline constexpr const char* mean_filter_source = R"(
#define CHANNELS 3
__global__ void convolution_3x3(const unsigned char* input, unsigned char* output, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= 1 && x < width - 1 && y >= 1 && y < height - 1) {
        for (int c = 0; c < CHANNELS; c++) {
            int sum = 0;
            for (int ky = -1; ky <= 1; ky++) {
                for (int kx = -1; kx <= 1; kx++) {
                    int idx = ((y + ky) * width + (x + kx)) * CHANNELS + c;
                    sum += input[idx];
                }
            }
            int out_idx = (y * width + x) * CHANNELS + c;
            output[out_idx] = (unsigned char)(sum / 9);
        }
    } else if (x < width && y < height) {
        // 处理边界直接拷贝
        for (int c = 0; c < CHANNELS; c++) {
            int idx = (y * width + x) * CHANNELS + c;
            output[idx] = input[idx];
        }
    }
}
)";

inline constexpr int mean_filter_channels = 3;

}  // namespace cudakit::workloads
