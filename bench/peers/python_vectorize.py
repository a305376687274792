"""GPU ufuncs: `@vectorize(['float32(float32, float32, float32)'],
target='cuda')` of a*b+c on device arrays of 10M float32, timed for
cudakit.cuda.vectorize, numba-cuda's vectorize and cupy.fuse (each only
where it imports), with the ratios to cudakit printed.

    python bench/peers/python_vectorize.py [--size N] [--repeat R]

Every call gets device arrays and returns a device array (no host copies
are timed); each is warmed once (the compile), then timed as the median of
R calls, each followed by a synchronize. The results are checked against
NumPy. Meant for the GPU machine; on the CPU backend use a small --size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
SIGNATURE = ["float32(float32, float32, float32)"]


def mul_add(a, b, c):
    return a * b + c


def median_ms(call: Callable[[], Any], sync: Callable[[], None], repeat: int) -> tuple[float, Any]:
    result = call()  # warm: compile and first launch
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        sync()
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times), result


def run_cudakit(hosts: list[np.ndarray], repeat: int) -> tuple[float, np.ndarray]:
    from cudakit import cuda
    ufunc = cuda.vectorize(SIGNATURE)(mul_add)
    devices = [cuda.to_device(h) for h in hosts]
    ms, out = median_ms(lambda: ufunc(*devices), cuda.synchronize, repeat)
    return ms, out.copy_to_host()


def run_numba(hosts: list[np.ndarray], repeat: int) -> tuple[float, np.ndarray]:
    np.row_stack = np.vstack  # type: ignore[attr-defined] (numba-cuda with NumPy 2)
    from numba import cuda, vectorize
    ufunc = vectorize(SIGNATURE, target="cuda")(mul_add)
    devices = [cuda.to_device(h) for h in hosts]
    ms, out = median_ms(lambda: ufunc(*devices), cuda.synchronize, repeat)
    return ms, out.copy_to_host()


def run_cupy(hosts: list[np.ndarray], repeat: int) -> tuple[float, np.ndarray]:
    import cupy
    fused = cupy.fuse(mul_add)
    devices = [cupy.asarray(h) for h in hosts]
    ms, out = median_ms(lambda: fused(*devices),
                        cupy.cuda.runtime.deviceSynchronize, repeat)
    return ms, cupy.asnumpy(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=20)
    options = parser.parse_args()
    rng = np.random.default_rng(1)
    hosts = [rng.standard_normal(options.size).astype(np.float32) for _ in range(3)]
    want = hosts[0] * hosts[1] + hosts[2]
    rows: list[tuple[str, float | None, str]] = []
    for name, run in [("cudakit.cuda.vectorize", run_cudakit),
                      ("numba-cuda vectorize", run_numba), ("cupy.fuse", run_cupy)]:
        try:
            ms, got = run(hosts, options.repeat)
        except ImportError as error:
            rows.append((name, None, f"not installed ({error})"))
            continue
        except Exception as error:  # noqa: BLE001 (a peer that fails here is reported)
            rows.append((name, None, f"failed: {type(error).__name__}: {error}"))
            continue
        ok = np.allclose(got, want, rtol=1e-5, atol=1e-5)
        rows.append((name, ms, "ok" if ok else "WRONG RESULT"))
    mine = rows[0][1]
    gbytes = 4 * 4 * options.size / 1e9
    print(f"a*b+c on {options.size} float32 device arrays (median of {options.repeat})")
    print(f"{'peer':26} {'ms':>9} {'GB/s':>8} {'vs cudakit':>11}  check")
    for name, ms, note in rows:
        if ms is None:
            print(f"{name:26} {'-':>9} {'-':>8} {'-':>11}  {note}")
            continue
        ratio = f"{ms / mine:.2f}x" if mine else "-"
        print(f"{name:26} {ms:9.3f} {gbytes / (ms / 1000):8.1f} {ratio:>11}  {note}")
    return 0 if all(note in ("ok",) or note.startswith("not installed") for _, _, note in rows
                    ) else 1


if __name__ == "__main__":
    sys.exit(main())
