# Tutorial section 5: vector addition with mem_alloc / memcpy.
import cudakit.autoinit  # 自动完成初始化、上下文创建等繁琐工作
import cudakit.driver as drv
import numpy as np
from cudakit.compiler import SourceModule

# 1. 定义CUDA C内核代码
mod = SourceModule("""
// __global__ 声明这是一个GPU内核函数由CPU调用GPU执行
__global__ void vec_add(float *a, float *b, float *c)
{
    // 计算当前线程的全局索引
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // 用这个索引去操作对应的数组元素
    c[idx] = a[idx] + b[idx];
}
""")

# 2. 准备测试数据 (在CPU内存中)
n = 1024
a_cpu = np.random.randn(n).astype(np.float32)  # 必须转换为32位浮点数与内核参数类型匹配
b_cpu = np.random.randn(n).astype(np.float32)
c_cpu = np.zeros_like(a_cpu)

# 3. 在GPU上分配内存
a_gpu = drv.mem_alloc(a_cpu.nbytes)  # 分配与a_cpu字节数相同的内存
b_gpu = drv.mem_alloc(b_cpu.nbytes)
c_gpu = drv.mem_alloc(c_cpu.nbytes)

# 4. 将数据从CPU拷贝到GPU
drv.memcpy_htod(a_gpu, a_cpu)  # host to device
drv.memcpy_htod(b_gpu, b_cpu)

# 5. 获取编译后的内核函数对象
vec_add_func = mod.get_function("vec_add")  # 函数名必须与内核代码中的一致

# 6. 定义执行配置并启动内核
threads_per_block = 256
blocks_per_grid = (n + threads_per_block - 1) // threads_per_block
vec_add_func(a_gpu, b_gpu, c_gpu, block=(threads_per_block, 1, 1), grid=(blocks_per_grid, 1, 1))

# 7. 将计算结果从GPU拷贝回CPU
drv.memcpy_dtoh(c_cpu, c_gpu)  # device to host

# 8. 验证结果
c_cpu_expected = a_cpu + b_cpu
print("Max error:", np.max(np.abs(c_cpu - c_cpu_expected)))
