# Tutorial section 8.3: one kernel per dtype, compiled with no_extern_c.
import cudakit.autoinit  # (added)
import cudakit.driver as drv  # (added)
from cudakit.compiler import SourceModule
import numpy as np


def get_vector_add_kernel(dtype=np.float32):
    type_str = {np.float32: "float", np.float64: "double"}[dtype]
    mod = SourceModule(f"""
    __global__ void vec_add({type_str} *a, {type_str} *b, {type_str} *c) {{
        int idx = threadIdx.x + blockIdx.x * blockDim.x;
        c[idx] = a[idx] + b[idx];
    }}
    """, no_extern_c=True)  # no_extern_c 在某些情况下需要
    return mod.get_function("vec_add")


# 根据数据类型获取不同的内核
kernel_float = get_vector_add_kernel(np.float32)
kernel_double = get_vector_add_kernel(np.float64)

# (added) launch both.
results = {}
for dtype, kernel in ((np.float32, kernel_float), (np.float64, kernel_double)):
    a = np.random.randn(1024).astype(dtype)
    b = np.random.randn(1024).astype(dtype)
    c = np.zeros_like(a)
    kernel(drv.In(a), drv.In(b), drv.Out(c), block=(256, 1, 1), grid=(4, 1))
    results[dtype] = (a, b, c)
    print(np.dtype(dtype).name, "max error:", np.max(np.abs(c - (a + b))))
