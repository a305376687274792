#!/usr/bin/env python3
"""cudakit.gpuarray against PyTorch and CuPy from Python, in one process (P11).

  c = a + b      on 10M float32: cudakit GPUArray vs torch tensors
  a*b + x*y      on 10M float32: cudakit (fused with no decorator) vs cupy.fuse
                 (and torch eager, for reference)

Each library works on its own copy of the same data; each result is checked
against numpy before timing. cudakit operators return pending expressions, so
each timed cudakit iteration is `c = a + b; c.evaluate()`: the same work torch
does eagerly (one kernel into new memory), not a deferred one. Times are CUDA
events around ITERS calls, median of REPEATS after warm-up, all on the legacy
default stream. Prints a table and "RESULT name value" lines.

Usage: python_array_bench.py [--size N] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Callable

import numpy as np

import cudakit.driver as drv
import cudakit.gpuarray as ga

try:
    import torch
except ImportError:  # pragma: no cover - optional peer
    torch = None
try:
    import cupy
except ImportError:  # pragma: no cover - optional peer
    cupy = None


def median_ms(step: Callable[[], object], iters: int, repeats: int, sync: Callable[[], object],
              new_event: Callable[[], object],
              elapsed_ms: Callable[[object, object], float]) -> float:
    """Median milliseconds per call: `iters` calls queued between two events
    of the library that runs them, after five warm-up calls."""
    for _ in range(5):
        step()
    sync()
    samples = []
    for _ in range(repeats):
        start, end = new_event(), new_event()
        start.record()
        for _ in range(iters):
            step()
        end.record()
        end.synchronize()
        samples.append(elapsed_ms(start, end) / iters)
    return statistics.median(samples)


def time_cudakit(step: Callable[[], object], iters: int, repeats: int) -> float:
    return median_ms(step, iters, repeats, drv.Context.synchronize, drv.Event,
                     lambda start, end: start.time_till(end))


def time_torch(step: Callable[[], object], iters: int, repeats: int) -> float:
    return median_ms(step, iters, repeats, torch.cuda.synchronize,
                     lambda: torch.cuda.Event(enable_timing=True),
                     lambda start, end: start.elapsed_time(end))


def time_cupy(step: Callable[[], object], iters: int, repeats: int) -> float:
    return median_ms(step, iters, repeats, lambda: cupy.cuda.Device().synchronize(),
                     cupy.cuda.Event, cupy.cuda.get_elapsed_time)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if drv.backend() != "cuda":
        print("python_array_bench: needs a CUDA GPU (cudakit runs on the CPU backend here)")
        return 0
    n = args.size
    iters, repeats = (5, 5) if args.quick else (20, 31)
    rng = np.random.default_rng(0)
    host = {k: rng.standard_normal(n).astype(np.float32) for k in "abxy"}
    gbytes_add = 3 * n * 4 / 1e9
    gbytes_fma = 5 * n * 4 / 1e9
    rows: list[tuple[str, float, float]] = []

    a, b, x, y = (ga.to_gpu(host[k]) for k in "abxy")
    np.testing.assert_allclose((a + b).get(), host["a"] + host["b"], rtol=1e-6)
    np.testing.assert_allclose((a * b + x * y).get(), host["a"] * host["b"] + host["x"] *
                               host["y"], rtol=1e-5, atol=1e-5)
    ck_add = time_cudakit(lambda: (a + b).evaluate(), iters, repeats)
    ck_fma = time_cudakit(lambda: (a * b + x * y).evaluate(), iters, repeats)
    rows += [("cudakit  c = a + b", ck_add, gbytes_add), ("cudakit  a*b + x*y", ck_fma,
                                                          gbytes_fma)]

    if torch is not None and torch.cuda.is_available():
        ta, tb, tx, ty = (torch.from_numpy(host[k]).cuda() for k in "abxy")
        torch_add = time_torch(lambda: ta + tb, iters, repeats)
        torch_fma = time_torch(lambda: ta * tb + tx * ty, iters, repeats)
        rows += [("torch    c = a + b", torch_add, gbytes_add),
                 ("torch    a*b + x*y (eager)", torch_fma, gbytes_fma)]
        print(f"RESULT p11_add_vs_torch {torch_add / ck_add:.3f}")
    if cupy is not None:
        ca, cb, cx, cy = (cupy.asarray(host[k]) for k in "abxy")

        @cupy.fuse()
        def fused(p, q, r, s):
            return p * q + r * s

        np.testing.assert_allclose(cupy.asnumpy(fused(ca, cb, cx, cy)),
                                   host["a"] * host["b"] + host["x"] * host["y"], rtol=1e-5,
                                   atol=1e-5)
        cupy_fma = time_cupy(lambda: fused(ca, cb, cx, cy), iters, repeats)
        cupy_add = time_cupy(lambda: ca + cb, iters, repeats)
        rows += [("cupy     c = a + b", cupy_add, gbytes_add),
                 ("cupy.fuse a*b + x*y", cupy_fma, gbytes_fma)]
        print(f"RESULT p11_fma_vs_cupy_fuse {cupy_fma / ck_fma:.3f}")

    print(f"\n{n} float32 elements, median of {repeats} x {iters} calls (CUDA events)")
    print(f"{'operation':30s} {'ms/call':>9s} {'GB/s':>8s}")
    for name, ms, gbytes in rows:
        print(f"{name:30s} {ms:9.4f} {gbytes / (ms / 1e3):8.1f}")
    print("ratios > 1: cudakit faster (peer time / cudakit time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
