#!/usr/bin/env python3
"""One Dask computation with cudakit chunks and with CuPy chunks, in one process.

  x: ROWS x COLS float32 in row chunks, resident on the device (persisted)
  y = x.map_blocks(kernel)           the same elementwise CUDA C kernel,
                                     2*x + 1 (cudakit ElementwiseKernel,
                                     cupy.ElementwiseKernel)
  r = (y * y - x).sum(axis=0), y.mean(), x.std(axis=1)    computed together

Both run on the threaded scheduler (one GPU, DASK_THREADS threads), on
their own copy of the same data; each result is checked against numpy on the
host before timing. A timed run is `dask.compute(...)` and a device
synchronize (wall clock: Dask's scheduling is host work both share), median
of REPEATS after a warm-up. Prints a table and "RESULT name value" lines;
ratios > 1 mean cudakit is faster.

Usage: python_dask.py [--rows N] [--cols N] [--chunk-rows N] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError:  # pragma: no cover - optional dependency
    dask = None
try:
    import cupy
except ImportError:  # pragma: no cover - optional peer
    cupy = None

import cudakit.driver as drv

SOURCE = "out[i] = 2.0f * a[i] + 1.0f"


def computation(x: Any, kernel_blocks: Callable[[Any], Any]) -> tuple[Any, Any, Any]:
    y = x.map_blocks(kernel_blocks, dtype=np.float32)
    return (y * y - x).sum(axis=0), y.mean(), x.std(axis=1)


def expected(host: np.ndarray) -> tuple[np.ndarray, ...]:
    x = host.astype(np.float64)
    y = 2 * x + 1
    return (y * y - x).sum(axis=0), np.asarray(y.mean()), x.std(axis=1)


def check(name: str, results: tuple[np.ndarray, ...], host: np.ndarray) -> None:
    """float32 results within bounds that scale with the terms' sizes."""
    eps = np.finfo(np.float32).eps
    x = host.astype(np.float64)
    y = 2 * x + 1
    scales = (np.abs(y * y - x).sum(axis=0), np.asarray(np.abs(y).mean()),
              np.abs(x).max(axis=1) + 1)
    for index, (got, want, scale) in enumerate(zip(results, expected(host), scales)):
        bound = 64 * eps * scale
        if got.shape != want.shape or not np.all(np.abs(got - want) <= bound):
            raise SystemExit(f"python_dask: {name} result {index} differs from numpy "
                             f"(max error {np.max(np.abs(got - want)):.3g}, bound "
                             f"{np.min(bound):.3g})")


def wall_ms(run: Callable[[], object], sync: Callable[[], object], repeats: int) -> float:
    run()
    sync()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        sync()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=16_384)
    parser.add_argument("--cols", type=int, default=4_099)
    parser.add_argument("--chunk-rows", type=int, default=2_048)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if dask is None:
        print("python_dask: needs Dask (pip install dask)")
        return 0
    if drv.backend() != "cuda":
        print("python_dask: needs a CUDA GPU (cudakit runs on the CPU backend here)")
        return 0
    import cudakit.autoinit  # noqa: F401  (the primary context, shared with CuPy)
    import cudakit.dask  # noqa: F401  (GPUArray as a Dask chunk type)
    from cudakit import gpuarray
    from cudakit.elementwise import ElementwiseKernel

    repeats = 3 if args.quick else 11
    rng = np.random.default_rng(0)
    host = rng.standard_normal((args.rows, args.cols)).astype(np.float32)
    chunks = (args.chunk_rows, args.cols)
    rows: list[tuple[str, float]] = []
    config = dask.config.set(scheduler="threads", num_workers=args.threads)
    config.__enter__()

    ck_kernel = ElementwiseKernel("float *out, const float *a", SOURCE, "scale_shift")

    def ck_blocks(block: Any) -> Any:
        out = gpuarray.empty_like(block)
        if block.size:
            ck_kernel(out, block)
        return out

    ck_x = da.from_array(host, chunks=chunks).map_blocks(gpuarray.to_gpu).persist()
    ck_graph = computation(ck_x, ck_blocks)
    check("cudakit", tuple(r.get() for r in dask.compute(*ck_graph)), host)
    ck_ms = wall_ms(lambda: dask.compute(*ck_graph), drv.Context.synchronize, repeats)
    rows.append(("cudakit chunks", ck_ms))

    if cupy is not None:
        cp_kernel = cupy.ElementwiseKernel("float32 a", "float32 out", "out = 2.0f * a + 1.0f",
                                           "scale_shift")

        def cp_blocks(block: Any) -> Any:
            return cp_kernel(block)

        cp_x = da.from_array(host, chunks=chunks).map_blocks(cupy.asarray).persist()
        cp_graph = computation(cp_x, cp_blocks)
        check("cupy", tuple(cupy.asnumpy(r) for r in dask.compute(*cp_graph)), host)
        cp_ms = wall_ms(lambda: dask.compute(*cp_graph),
                        lambda: cupy.cuda.Device().synchronize(), repeats)
        rows.append(("cupy chunks", cp_ms))
        print(f"RESULT dask_chunks_vs_cupy {cp_ms / ck_ms:.3f}")
    else:
        print("python_dask: CuPy is not installed; cudakit's time only")
    config.__exit__(None, None, None)

    print(f"\n{args.rows} x {args.cols} float32 in chunks of {args.chunk_rows} rows, "
          f"{args.threads} threads, median of {repeats} runs (wall clock)")
    print(f"{'chunks':20s} {'ms/run':>9s}")
    for name, ms in rows:
        print(f"{name:20s} {ms:9.2f}")
    print("ratio > 1: cudakit faster (CuPy time / cudakit time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
