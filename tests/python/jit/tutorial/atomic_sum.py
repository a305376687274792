# The tutorial's advice for data races ("使用cuda.atomic操作"): a simple
# accumulation made safe with cuda.atomic.add, checked against NumPy.
import numpy as np
from cudakit import cuda


@cuda.jit
def sum_kernel(values, total):
    idx = cuda.grid(1)
    if idx < values.size:
        cuda.atomic.add(total, 0, values[idx])


@cuda.jit
def histogram_kernel(data, bins):
    idx = cuda.grid(1)
    if idx < data.size:
        cuda.atomic.add(bins, data[idx], 1)


if __name__ == "__main__":
    n = 100_003
    values = np.random.randint(-50, 50, n).astype(np.int32)
    total = cuda.to_device(np.zeros(1, dtype=np.int32))
    sum_kernel[(n + 255) // 256, 256](cuda.to_device(values), total)
    ok_sum = total.copy_to_host()[0] == values.sum()

    data = np.random.randint(0, 10, n).astype(np.int64)
    bins = cuda.to_device(np.zeros(10, dtype=np.int32))
    histogram_kernel[(n + 127) // 128, 128](cuda.to_device(data), bins)
    ok_hist = np.array_equal(bins.copy_to_host(), np.bincount(data, minlength=10))
    print("原子操作验证成功！" if ok_sum and ok_hist else "结果不一致！")
