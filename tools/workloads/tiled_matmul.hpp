// The PyCUDA tutorial's tiled shared-memory matrix product (16x16 tiles),
// shared by the examples, the demo and the benchmarks.
#pragma once

namespace cudakit::workloads {

// Verbatim from the tutorial: C (M x N) = A (M x K) * B (K x N), row-major.
// Launch with 16x16 blocks and a grid covering N columns by M rows.
inline constexpr const char* tiled_matmul_source = R"(
#define BLOCK_SIZE 16 // 分块大小通常为16或32
__global__ void matmul_shared(const float *A, const float *B, float *C, int M, int N, int K) {
    // 为当前Block声明共享内存
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    // 计算当前线程要计算的C矩阵中的位置 (row, col)
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    // 循环遍历所有分块
    for (int tile = 0; tile < (K + BLOCK_SIZE - 1) / BLOCK_SIZE; tile++) {
        // 协作加载每个线程负责将全局内存中A和B的一个元素加载到共享内存
        int loadA_row = row;
        int loadA_col = tile * BLOCK_SIZE + threadIdx.x;
        int loadB_row = tile * BLOCK_SIZE + threadIdx.y;
        int loadB_col = col;
        // 边界检查防止越界
        if (loadA_row < M && loadA_col < K) {
            As[threadIdx.y][threadIdx.x] = A[loadA_row * K + loadA_col];
        } else {
            As[threadIdx.y][threadIdx.x] = 0.0f;
        }
        if (loadB_row < K && loadB_col < N) {
            Bs[threadIdx.y][threadIdx.x] = B[loadB_row * N + loadB_col];
        } else {
            Bs[threadIdx.y][threadIdx.x] = 0.0f;
        }
        // 等待Block内所有线程完成加载确保共享内存数据就绪
        __syncthreads();
        // 使用共享内存中的数据计算部分和
        for (int i = 0; i < BLOCK_SIZE; i++) {
            sum += As[threadIdx.y][i] * Bs[i][threadIdx.x];
        }
        // 等待所有线程完成本次分块的计算再加载下一个分块避免数据竞争
        __syncthreads();
    }
    // 将最终结果写回全局内存
    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
}
)";

inline constexpr unsigned tiled_matmul_block = 16;

}  // namespace cudakit::workloads
