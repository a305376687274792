#!/usr/bin/env python3
"""P2+ without a GPU: the host-side cost of each Python launch path, against
the raw C++ cuLaunchKernel, all through the scripted libcuda of the C++ tests
(tests/unit/cuda_fake_driver.cpp, whose launch does nothing). What is left is
exactly what cudakit adds on the host: reading keywords, converting
arguments, the checked launch, the backend.

Each path runs `--launches` launches back to back in one timeit loop (no
Python function call around the launch itself); the figure is the time per
launch, median (and best) of `--repeats` loops. The floor is `cudakit bench
launch` run on the same driver: the raw cuLaunchKernel and the C++ checked
Kernel::launch.

Usage: python_launch_host.py [--launches N] [--repeats R] [--paths a,b]
Finds the scripted driver at build/lib/libcuda_fake_driver.so (or
$CUDAKIT_FAKE_LIBCUDA) and the CLI at build/bin/cudakit (or $CUDAKIT_CLI).
Prints a table and "RESULT name value" lines (microseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

from python_launch import N, SOURCE, touch_jit_kernel  # the kernel P2 and P2+ time

ROOT = Path(__file__).resolve().parents[2]

# key -> (label, the statement timed; its objects come from setup_objects()).
PATHS = {
    "sm_int32": ("SourceModule f(alloc, np.int32)",
                 "f(data, n32, block=(256, 1, 1), grid=(4, 1))"),
    "sm_int": ("SourceModule f(alloc, int)", "f(data, 1024, block=(256, 1, 1), grid=(4, 1))"),
    "prepared": ("prepared_call", "f.prepared_call((4, 1), (256, 1, 1), data, n32)"),
    "prepared_async": ("prepared_async_call",
                       "f.prepared_async_call((4, 1), (256, 1, 1), stream, data, n32)"),
    "jit": ("@cuda.jit k[4, 256](d, n)", "touch_jit[4, 256](values, 1024)"),
    "jit_launcher": ("@cuda.jit launcher(d, n), k[4, 256] kept", "launcher(values, 1024)"),
    "jit_kernel": ("JitKernel.launch (no dispatch)",
                   "jit_kernel.launch((4, 1, 1), (256, 1, 1), 0, 0, jit_args)"),
}


def setup_objects() -> dict:
    import numpy as np

    import cudakit.autoinit  # noqa: F401
    import cudakit.driver as drv
    from cudakit import cuda
    from cudakit.compiler import SourceModule

    assert drv.backend() == "cuda", "the scripted driver was not picked up"
    f = SourceModule(SOURCE, no_extern_c=True).get_function("touch")
    f.prepare("Pi")
    data = drv.mem_alloc(N * 4)

    touch_jit = touch_jit_kernel()
    values = cuda.to_device(np.zeros(N, np.float32))
    touch_jit[4, 256](values, N)
    spec = next(iter(touch_jit.overloads.values()))
    return {"f": f, "data": data, "n32": np.int32(N), "stream": drv.Stream(),
            "touch_jit": touch_jit, "values": values, "launcher": touch_jit[4, 256],
            "jit_kernel": spec.kernel, "jit_args": (values, N),
            "sync": drv.Context.synchronize}


def measure(paths: list[str], launches: int, repeats: int) -> dict[str, tuple[float, float]]:
    """(median, best) seconds per launch of each path."""
    objects = setup_objects()
    results = {}
    for name in paths:
        timer = timeit.Timer(PATHS[name][1], globals=objects)
        timer.timeit(launches // 4)  # warm-up: caches filled, the loop's code hot
        samples = [timer.timeit(launches) / launches for _ in range(repeats)]
        objects["sync"]()
        results[name] = (statistics.median(samples), min(samples))
    return results


def find(env: str, default: Path) -> str | None:
    for candidate in (os.environ.get(env, ""), str(default)):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def floor_us(cli: str | None, env: dict[str, str], launches: int) -> dict[str, float]:
    """The C++ rows of `cudakit bench launch` on the same driver."""
    if not cli:
        return {}
    done = subprocess.run([cli, "bench", "launch", "--launches", str(launches)], env=env,
                          capture_output=True, text=True)
    rows = {}
    for label, key in (("raw cuLaunchKernel", "raw"), ("cudakit Kernel::launch (checked)", "cpp")):
        match = re.search(re.escape(label) + r"\s*\|\s*([0-9.]+)", done.stdout)
        if match:
            rows[key] = float(match.group(1))
    if not rows:
        print(f"  the C++ floor failed: {(done.stdout + done.stderr).strip()[-400:]}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--paths", default=",".join(PATHS),
                        help="comma-separated keys of the paths to time: " + ", ".join(PATHS))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    paths = [p for p in args.paths.split(",") if p]
    unknown = [p for p in paths if p not in PATHS]
    if unknown:
        parser.error(f"unknown path(s) {unknown}; known: {list(PATHS)}")

    if args.child:
        print(json.dumps(measure(paths, args.launches, args.repeats)))
        return

    driver = find("CUDAKIT_FAKE_LIBCUDA", ROOT / "build" / "lib" / "libcuda_fake_driver.so")
    if not driver:
        sys.exit("the scripted libcuda is not built: build the target cuda_fake_driver "
                 "(build/lib/libcuda_fake_driver.so) or set CUDAKIT_FAKE_LIBCUDA")
    cli = find("CUDAKIT_CLI", ROOT / "build" / "bin" / "cudakit")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, CUDAKIT_LIBCUDA=driver, CUDAKIT_BACKEND="cuda",
                   CUDAKIT_FAKE_ANY_KERNEL="1", CUDAKIT_FAKE_DEVICE_COUNT="1",
                   CUDAKIT_CACHE_DIR=cache)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")  # no BLAS threads spinning beside the loop
        floor = floor_us(cli, env, args.launches)
        done = subprocess.run([sys.executable, __file__, "--child", "--launches",
                               str(args.launches), "--repeats", str(args.repeats),
                               "--paths", ",".join(paths)],
                              env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(done.stdout + done.stderr)
    times = json.loads(done.stdout.strip().splitlines()[-1])

    raw = floor.get("raw")
    print("Host cost of one launch, scripted libcuda (its launch does nothing); us per launch")
    print(f"{'path':42} {'median':>8} {'best':>8} {'- raw':>8}")
    rows = [("C++ raw cuLaunchKernel", floor.get("raw")),
            ("C++ Kernel::launch (checked)", floor.get("cpp"))]
    for label, value in rows:
        if value is not None:
            print(f"{label:42} {value:8.3f} {'':>8} {value - raw:8.3f}")
    for name, (median, best) in times.items():
        extra = f"{median * 1e6 - raw:8.3f}" if raw is not None else f"{'-':>8}"
        print(f"{PATHS[name][0]:42} {median * 1e6:8.3f} {best * 1e6:8.3f} {extra}")
    for label, value in rows:
        if value is not None:
            print(f"RESULT host_{label.split()[1].replace('::', '_').lower()}_us {value:.3f}")
    for name, (median, best) in times.items():
        print(f"RESULT host_{name}_us {median * 1e6:.3f}")
        print(f"RESULT host_{name}_best_us {best * 1e6:.3f}")


if __name__ == "__main__":
    main()
