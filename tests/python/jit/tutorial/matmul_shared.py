import numpy as np
from cudakit import cuda
import math

# 定义块大小（Tile Size）
TPB = 16  # 线程块维度，每个线程块有16x16个线程

@cuda.jit
def matmul_shared_mem(A, B, C):
    """
    使用共享内存优化的矩阵乘法内核。
    假设A, B, C都是二维矩阵，且形状兼容 (MxK) * (KxN) = (MxN)。
    TPB x TPB 的线程块负责计算C的一个TPBxTPB子块。
    """
    # 声明共享内存数组
    sA = cuda.shared.array((TPB, TPB), dtype=np.float32)
    sB = cuda.shared.array((TPB, TPB), dtype=np.float32)

    # 线程在块内的2维索引
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    # 线程块在网格中的2维索引（代表它负责计算C的哪个子块）
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y

    # 计算当前线程要计算的C中的元素坐标
    row = by * TPB + ty
    col = bx * TPB + tx

    # 累加变量
    tmp = 0.0
    # 循环遍历矩阵A的列和矩阵B的行（维度K）
    # 每次循环前进一个“块”的步长（TPB）
    for k in range(0, A.shape[1], TPB):
        # 协作加载数据到共享内存
        # 每个线程负责加载一个元素到sA和sB中
        if row < A.shape[0] and (k + tx) < A.shape[1]:
            sA[ty, tx] = A[row, k + tx]
        else:
            sA[ty, tx] = 0.0
        if (k + ty) < B.shape[0] and col < B.shape[1]:
            sB[ty, tx] = B[k + ty, col]
        else:
            sB[ty, tx] = 0.0

        # 等待块内所有线程完成共享内存的加载
        cuda.syncthreads()

        # 计算当前“块”对累加结果的贡献
        for i in range(TPB):
            tmp += sA[ty, i] * sB[i, tx]

        # 等待块内所有线程完成计算，再进行下一轮数据加载
        cuda.syncthreads()

    # 将最终结果写回全局内存C
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = tmp

def test_matmul():
    M, K, N = 512, 512, 512
    A = np.random.randn(M, K).astype(np.float32)
    B = np.random.randn(K, N).astype(np.float32)
    C_gpu = np.zeros((M, N), dtype=np.float32)

    # 配置执行参数
    threads_per_block = (TPB, TPB)
    blocks_per_grid_x = math.ceil(N / TPB)
    blocks_per_grid_y = math.ceil(M / TPB)
    blocks_per_grid = (blocks_per_grid_x, blocks_per_grid_y)

    # 复制数据到设备
    d_A = cuda.to_device(A)
    d_B = cuda.to_device(B)
    d_C = cuda.to_device(C_gpu)

    # 启动内核
    matmul_shared_mem[blocks_per_grid, threads_per_block](d_A, d_B, d_C)
    cuda.synchronize()
    d_C.copy_to_host(C_gpu)

    # 与NumPy结果对比验证
    C_cpu = A @ B
    if np.allclose(C_gpu, C_cpu, rtol=1e-4, atol=1e-4):
        print("矩阵乘法验证成功！")
    else:
        print("结果有差异！")
        print(f"最大误差: {np.max(np.abs(C_gpu - C_cpu))}")

if __name__ == "__main__":
    test_matmul()
