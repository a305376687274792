# Tutorial section 8.1: two streams, async copies from page-locked memory.
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
n = 1024  # (added) the data of section 5, in page-locked memory
threads_per_block = 256
blocks_per_grid = (n + threads_per_block - 1) // threads_per_block
a_cpu = drv.pagelocked_empty(n, np.float32)
a_cpu[:] = np.random.randn(n)
b_cpu = drv.pagelocked_zeros(n, np.float32)
b_cpu[:] = np.random.randn(n)
c_cpu = drv.pagelocked_empty_like(a_cpu)
a_gpu = drv.mem_alloc(a_cpu.nbytes)
b_gpu = drv.mem_alloc(b_cpu.nbytes)
c_gpu = drv.mem_alloc(c_cpu.nbytes)

# 创建两个流
stream1 = drv.Stream()
stream2 = drv.Stream()
# 在流1中执行内存拷贝Host to Device
drv.memcpy_htod_async(a_gpu, a_cpu, stream1)
# 在流2中执行另一个内存拷贝
drv.memcpy_htod_async(b_gpu, b_cpu, stream2)
# 等待流1中的拷贝完成然后在流1中启动内核
stream1.synchronize()
stream2.synchronize()  # (added) the kernel also reads b, copied on stream 2
my_kernel(a_gpu, b_gpu, c_gpu, block=(threads_per_block, 1, 1), grid=(blocks_per_grid, 1, 1),
          stream=stream1)
# 流2中的拷贝可能还在进行与流1中的内核计算重叠
# 最后等待所有流完成
stream1.synchronize()
stream2.synchronize()

drv.memcpy_dtoh_async(c_cpu, c_gpu, stream1)  # (added) the result, on stream 1
stream1.synchronize()
print("Max error:", np.max(np.abs(c_cpu - (a_cpu + b_cpu))))
