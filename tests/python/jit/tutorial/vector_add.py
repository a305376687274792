import numpy as np
from cudakit import cuda
import time

# 1. 定义CUDA内核函数
@cuda.jit
def add_kernel(a, b, c):
    """内核函数：每个线程计算一个c[i] = a[i] + b[i]"""
    # 计算当前线程的全局索引
    idx = cuda.grid(1)  # 一维网格
    # 检查索引是否越界（因为线程总数可能大于数组长度）
    if idx < c.size:
        c[idx] = a[idx] + b[idx]

def main():
    # 2. 准备数据（在主机内存）
    n = 10_000_000  # 向量长度一千万
    a_host = np.random.randn(n).astype(np.float32)
    b_host = np.random.randn(n).astype(np.float32)
    c_host = np.empty_like(a_host)

    # 3. 在设备上分配内存
    a_device = cuda.to_device(a_host)  # 将主机数据复制到设备，并返回设备数组句柄
    b_device = cuda.to_device(b_host)
    c_device = cuda.device_array_like(a_host)  # 在设备上分配一个与a_host形状、类型相同的空数组

    # 4. 配置内核执行参数
    threads_per_block = 256  # 每个线程块包含256个线程。这是一个经验值，通常是32的倍数（warp大小）。
    blocks_per_grid = (n + threads_per_block - 1) // threads_per_block  # 计算需要的线程块数量
    print(f"启动内核: 网格大小={blocks_per_grid}, 线程块大小={threads_per_block}")

    # 5. 启动内核（异步操作）
    start = time.time()
    add_kernel[blocks_per_grid, threads_per_block](a_device, b_device, c_device)
    # 等待GPU上所有线程计算完成
    cuda.synchronize()
    gpu_time = time.time() - start

    # 6. 将结果从设备复制回主机
    c_device.copy_to_host(c_host)

    # 7. （可选）用CPU计算进行验证
    start = time.time()
    c_cpu = a_host + b_host  # numpy的向量化操作，底层也是优化的，但运行在CPU上
    cpu_time = time.time() - start

    # 验证结果正确性
    if np.allclose(c_host, c_cpu, rtol=1e-5):
        print("结果验证成功！")
    else:
        print("结果不一致！")

    print(f"GPU计算时间: {gpu_time:.4f} 秒")
    print(f"CPU计算时间: {cpu_time:.4f} 秒")
    print(f"加速比: {cpu_time / gpu_time:.2f}x")

if __name__ == "__main__":
    main()
