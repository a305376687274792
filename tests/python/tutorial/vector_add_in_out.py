# Tutorial section 4: the launch with drv.Out / drv.In (the section-5 kernel).
import cudakit.autoinit
import cudakit.driver as drv
import numpy as np
from cudakit.compiler import SourceModule

mod = SourceModule("""
__global__ void vec_add(float *a, float *b, float *c)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    c[idx] = a[idx] + b[idx];
}
""")
my_kernel = mod.get_function("vec_add")  # (added)
input = np.random.randn(1024).astype(np.float32)  # (added)
output = np.zeros_like(input)  # (added)

# 假设我们要处理一个包含1024个元素的一维数组
# 我们决定让每个Block有256个Thread
threads_per_block = 256
# 那么需要多少个Block呢 1024 / 256 = 4
blocks_per_grid = (1024 + threads_per_block - 1) // threads_per_block  # 向上取整确保覆盖所有数据
# 内核调用时
my_kernel(drv.In(input), drv.In(input), drv.Out(output),  # (the section-5 kernel's order)
          block=(threads_per_block, 1, 1), grid=(blocks_per_grid, 1, 1))
print("Max error:", np.max(np.abs(output - 2 * input)))
