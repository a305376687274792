# The tutorial's "several GPUs" question (Q5), written for Numba: the work is
# split over every device, each part computed inside `with cuda.gpus[i]:`.
import numpy as np
from cudakit import cuda


@cuda.jit
def add_kernel(a, b, c):
    idx = cuda.grid(1)
    if idx < c.size:
        c[idx] = a[idx] + b[idx]


def main():
    print(f"Number of GPUs: {len(cuda.gpus)}")
    n = 1_000_003
    a_host = np.random.randn(n).astype(np.float32)
    b_host = np.random.randn(n).astype(np.float32)
    c_host = np.empty_like(a_host)
    bounds = np.linspace(0, n, len(cuda.gpus) + 1).astype(int)
    for gpu, lo, hi in zip(cuda.gpus, bounds[:-1], bounds[1:]):
        with gpu:
            a_device = cuda.to_device(a_host[lo:hi])
            b_device = cuda.to_device(b_host[lo:hi])
            c_device = cuda.device_array_like(a_device)
            threads_per_block = 256
            blocks_per_grid = (hi - lo + threads_per_block - 1) // threads_per_block
            add_kernel[blocks_per_grid, threads_per_block](a_device, b_device, c_device)
            c_device.copy_to_host(c_host[lo:hi])
            device = cuda.get_current_device()
            print(f"GPU {device.id} ({device.name.decode()}): {hi - lo} elements")
    if np.allclose(c_host, a_host + b_host, rtol=1e-5):
        print("结果验证成功")
    else:
        print("结果不一致")


if __name__ == "__main__":
    main()
