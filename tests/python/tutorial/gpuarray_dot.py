# Tutorial section 6.3: gpuarray arithmetic and dot.
import numpy as np  # (added: the tutorial's fragment uses np from its earlier programs)
import cudakit.gpuarray as gpuarray
import cudakit.autoinit

# 创建GPU数组 (数据会自动从CPU传到GPU)
a_gpu = gpuarray.to_gpu(np.random.randn(1024, 1024).astype(np.float32))
b_gpu = gpuarray.to_gpu(np.random.randn(1024, 1024).astype(np.float32))

# 直接在GPU上进行逐元素运算由PyCUDA提供的内核实现
c_gpu = a_gpu + b_gpu
d_gpu = a_gpu * b_gpu

# 点积运算
dot_product = gpuarray.dot(a_gpu.ravel(), b_gpu.ravel())  # 注意需要展平

# 将结果取回CPU
c_cpu = c_gpu.get()
