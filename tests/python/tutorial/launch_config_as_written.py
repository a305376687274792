# Tutorial section 4: the launch configuration, with its call kept as written,
# my_kernel(drv.Out(output), drv.In(input), ...) (vector_add_in_out.py runs the
# section-5 kernel instead). The tutorial never shows my_kernel: the kernel
# below takes the call's two arrays in its order (added), output = 2 * input.
import cudakit.autoinit  # (added)
import cudakit.driver as drv  # (added)
import numpy as np  # (added)
from cudakit.compiler import SourceModule  # (added)

my_kernel = SourceModule("""
__global__ void my_kernel(float *output, const float *input)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    output[i] = 2.0f * input[i];
}
""").get_function("my_kernel")  # (added)
input = np.random.randn(1024).astype(np.float32)  # (added)
output = np.zeros_like(input)  # (added)

# 假设我们要处理一个包含1024个元素的一维数组
# 我们决定让每个Block有256个Thread
threads_per_block = 256
# 那么需要多少个Block呢 1024 / 256 = 4
blocks_per_grid = (1024 + threads_per_block - 1) // threads_per_block  # 向上取整确保覆盖所有数据
# 内核调用时
my_kernel(drv.Out(output), drv.In(input), block=(threads_per_block, 1, 1), grid=(blocks_per_grid, 1, 1))
print("Max error:", np.max(np.abs(output - 2 * input)))  # (added)
