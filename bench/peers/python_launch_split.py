"""Where a @cuda.jit launch's time goes, against a SourceModule launch of
the same vector add (bench/peers/python_jit_bench.py reports the ratio):
the host's submission alone (a burst short enough not to fill the launch
queue, no wait) and the launches back to back (host and GPU together), for
the dispatcher, JitKernel.launch without dispatch, and the SourceModule
call. Prints microseconds per launch; medians of 9 bursts."""

from __future__ import annotations

import statistics
import time

import numpy as np

from cudakit import cuda
from cudakit.compiler import SourceModule


@cuda.jit
def add_kernel(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


def main() -> None:
    a = cuda.to_device(np.ones(256, np.float32))
    c = cuda.device_array_like(a)
    add_kernel[1, 256](a, a, c)
    cuda.synchronize()
    spec = next(iter(add_kernel.overloads.values()))
    objects = (a, a, c)
    module = SourceModule("__global__ void add(const float* a, const float* b, float* c, int n) "
                          "{ int i = blockIdx.x * blockDim.x + threadIdx.x; "
                          "if (i < n) c[i] = a[i] + b[i]; }")
    function = module.get_function("add")
    n32 = np.int32(256)
    ways = {
        "dispatcher kernel[1, 256](a, a, c)": lambda: add_kernel[1, 256](a, a, c),
        "JitKernel.launch (no dispatch)": lambda: spec.kernel.launch(
            (1, 1, 1), (256, 1, 1), 0, 0, objects),
        "SourceModule f(a, a, c, n)": lambda: function(a, a, c, n32, block=(256, 1, 1),
                                                       grid=(1, 1)),
    }
    print(f"{'launch':40} {'submit only':>12} {'back to back':>13}  (us per launch)")
    for name, launch in ways.items():
        submits, throughputs = [], []
        for _ in range(9):
            cuda.synchronize()
            start = time.perf_counter()
            for _ in range(200):  # well inside the launch queue
                launch()
            submits.append((time.perf_counter() - start) / 200 * 1e6)
            cuda.synchronize()
            start = time.perf_counter()
            for _ in range(5000):
                launch()
            cuda.synchronize()
            throughputs.append((time.perf_counter() - start) / 5000 * 1e6)
        print(f"{name:40} {statistics.median(submits):12.2f} {statistics.median(throughputs):13.2f}")
    print("PTX of the @cuda.jit kernel's parameters:")
    ptx = spec.kernel.ptx if isinstance(spec.kernel.ptx, str) else spec.kernel.ptx()
    print("\n".join(line for line in ptx.splitlines() if ".param" in line)[:800])


if __name__ == "__main__":
    main()
