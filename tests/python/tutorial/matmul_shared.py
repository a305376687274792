# Tutorial section 6.2: tiled matrix multiplication in shared memory.
import cudakit.autoinit
import cudakit.driver as drv
import numpy as np
from cudakit.compiler import SourceModule

mod = SourceModule("""
#define BLOCK_SIZE 16  // 分块大小通常为16或32

__global__ void matmul_shared(const float *A, const float *B, float *C, int M, int N, int K)
{
    // 为当前Block声明共享内存
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // 计算当前线程要计算的C矩阵中的位置 (row, col)
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    float sum = 0.0f;
    // 循环遍历所有分块
    for (int tile = 0; tile < (K + BLOCK_SIZE - 1) / BLOCK_SIZE; ++tile) {
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
        for (int i = 0; i < BLOCK_SIZE; ++i) {
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
""")

# (added) the launch, as the tutorial's vector addition does it.
M, N, K = 100, 70, 53
A = np.random.randn(M, K).astype(np.float32)
B = np.random.randn(K, N).astype(np.float32)
C = np.zeros((M, N), dtype=np.float32)
matmul = mod.get_function("matmul_shared")
matmul(drv.In(A), drv.In(B), drv.Out(C), np.int32(M), np.int32(N), np.int32(K),
       block=(16, 16, 1), grid=((N + 15) // 16, (M + 15) // 16))
print("Max error:", np.max(np.abs(C - A @ B)))
