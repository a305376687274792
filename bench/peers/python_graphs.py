#!/usr/bin/env python3
"""P12: CUDA graphs from Python, cudakit against CuPy, in one run.

Per-launch time of 3,000 small launches (a 3-kernel step x 1,000): issued
directly, and replayed from a graph captured once, for cudakit (SourceModule
calls in `with graphs.capture()`) and CuPy (RawKernel calls between
Stream.begin_capture() and end_capture(), graph.launch()). Then the Laplace
solver of Numba's examples (one Jacobi step per launch, buffers swapped),
per iteration with and without `graphs.graphed`, and whether both give the
same bits. Prints a table, the ratios the issue asks for, and "RESULT name
value" lines; never asserts timings.

Usage: python_graphs.py [--steps N] [--repeats R]
Without a GPU it prints that it skips and exits 0; without CuPy the CuPy rows
are skipped.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

N = 4096
SOURCE = r"""
extern "C" __global__ void step_axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void step_square(float* z, const float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 0.5f * y[i] * y[i] - x[i];
}
extern "C" __global__ void step_mix(float* x, const float* z, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = b * z[i] + 0.001f * (float)(i % 7);
}
"""


def best_of(fn, sync, repeats: int) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cudakit_rows(steps: int, repeats: int) -> dict[str, float]:
    import cudakit.autoinit  # noqa: F401
    import cudakit.driver as drv
    from cudakit import gpuarray, graphs
    from cudakit.compiler import SourceModule

    mod = SourceModule(SOURCE, no_extern_c=True)
    k1, k2, k3 = (mod.get_function(n) for n in ("step_axpy", "step_square", "step_mix"))
    x = gpuarray.to_gpu(np.random.default_rng(1).uniform(-.5, .5, N).astype(np.float32))
    y, z = gpuarray.zeros(N, np.float32), gpuarray.zeros(N, np.float32)
    n, a, b = np.int32(N), np.float32(0.75), np.float32(0.9)
    block, grid = (128, 1, 1), ((N + 127) // 128, 1)

    def direct() -> None:
        for _ in range(steps):
            k1(y, x, a, n, block=block, grid=grid)
            k2(z, y, x, n, block=block, grid=grid)
            k3(x, z, b, n, block=block, grid=grid)

    with graphs.capture() as g:
        direct()
    g.upload()
    launches = 3 * steps
    return {
        "cudakit direct": best_of(direct, drv.Context.synchronize, repeats) / launches,
        "cudakit graph replay": best_of(g.replay, drv.Context.synchronize, repeats) / launches,
    }


def cupy_rows(steps: int, repeats: int) -> dict[str, float]:
    try:
        import cupy as cp
    except ImportError:
        print("CuPy does not import: its rows are skipped")
        return {}
    mod = cp.RawModule(code=SOURCE)
    k1, k2, k3 = (mod.get_function(n) for n in ("step_axpy", "step_square", "step_mix"))
    x = cp.asarray(np.random.default_rng(1).uniform(-.5, .5, N).astype(np.float32))
    y, z = cp.zeros(N, cp.float32), cp.zeros(N, cp.float32)
    n, a, b = np.int32(N), np.float32(0.75), np.float32(0.9)
    block, grid = (128,), ((N + 127) // 128,)
    stream = cp.cuda.Stream(non_blocking=True)

    def direct() -> None:
        for _ in range(steps):
            k1(grid, block, (y, x, a, n))
            k2(grid, block, (z, y, x, n))
            k3(grid, block, (x, z, b, n))

    with stream:
        stream.begin_capture()
        direct()
        graph = stream.end_capture()
    graph.upload(stream)
    launches = 3 * steps
    sync = cp.cuda.Device().synchronize
    return {
        "cupy direct": best_of(direct, sync, repeats) / launches,
        "cupy graph replay": best_of(lambda: graph.launch(stream), sync, repeats) / launches,
    }


def laplace_rows(iterations: int, repeats: int) -> tuple[dict[str, float], bool]:
    from cudakit import cuda, graphs

    @cuda.jit
    def laplace_step(u, u_next):
        i = cuda.grid(1)
        n = u.shape[0]
        if i == 0 or i == n - 1:
            u_next[i] = u[i]
        elif i < n:
            u_next[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1]

    size = 1 << 14
    start = np.zeros(size, np.float64)
    start[size // 2] = 1000.0

    def iteration(u, v):
        laplace_step[(size + 255) // 256, 256](u, v)
        laplace_step[(size + 255) // 256, 256](v, u)

    fast = graphs.graphed(iteration)
    results = {}
    bits = []
    for name, fn in (("laplace direct", iteration), ("laplace graphed", fast)):
        u, v = cuda.to_device(start), cuda.to_device(start)

        def run(fn=fn, u=u, v=v) -> None:
            for _ in range(iterations):
                fn(u, v)

        results[name] = best_of(run, cuda.synchronize, repeats) / iterations
        bits.append(u.copy_to_host().tobytes())
    return results, bits[0] == bits[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    import cudakit.driver as drv
    if drv.backend() != "cuda":
        print("python_graphs: no GPU (the CPU backend is selected): skipped")
        return 0
    rows = cudakit_rows(args.steps, args.repeats)
    rows.update(cupy_rows(args.steps, args.repeats))
    laplace, same = laplace_rows(200, args.repeats)
    print(f"{'method':28s} {'us per launch':>14s}")
    for name, seconds in rows.items():
        print(f"{name:28s} {seconds * 1e6:14.3f}")
    for name, seconds in laplace.items():
        print(f"{name + ' (per iteration)':28s} {seconds * 1e6:14.3f}")
    ours = rows["cudakit graph replay"]
    print(f"RESULT cudakit_replay_us {ours * 1e6:.3f}")
    print(f"RESULT cudakit_direct_over_replay {rows['cudakit direct'] / ours:.2f}  (goal >= 3)")
    if "cupy graph replay" in rows:
        print(f"RESULT cudakit_replay_over_cupy_replay {ours / rows['cupy graph replay']:.2f}"
              "  (goal <= 1.0)")
    print(f"RESULT laplace_direct_over_graphed "
          f"{laplace['laplace direct'] / laplace['laplace graphed']:.2f}  (goal >= 2)")
    print(f"RESULT laplace_same_bits {int(same)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
