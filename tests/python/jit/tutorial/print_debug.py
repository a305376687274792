import numpy as np
from cudakit import cuda


@cuda.jit
def debug_kernel(arr):
    idx = cuda.grid(1)
    if idx == 0:  # 只让第一个线程打印
        print("Block", cuda.blockIdx.x, "Thread", cuda.threadIdx.x, "value", arr[idx])


if __name__ == "__main__":
    arr = cuda.to_device(np.array([1.5, 2.5, 3.5], dtype=np.float32))
    debug_kernel[1, 32](arr)
    cuda.synchronize()
