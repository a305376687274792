#!/usr/bin/env python3
"""P2 and P3 from Python: cudakit's launch path against CuPy and cuda.core.

P2: host cost of one launch of a 2-argument kernel (a pointer and an int)
from Python, cudakit's Function.__call__ and prepared_call against CuPy's
RawKernel and cuda.core's launch, in one process on one device. Each method
queues `--launches` launches, then synchronizes once; the figure is the wall
time per launch, median of `--repeats` runs after a warm-up (the kernel does
almost nothing, so the host side is what is measured).

P2+: the same cudakit launches (a SourceModule call and a @cuda.jit launch)
against the raw C++ cuLaunchKernel of the same run (`cudakit bench launch`,
the CLI named by $CUDAKIT_CLI, run in between): the Python seam's own cost.

P3: the first call of a kernel whose compiled code is in the disk cache, in a
fresh Python process: from SourceModule(source) (or cupy.RawKernel) to the
first launch's completion, after the library is imported (import time is
shown apart). Each peer's cache is warmed by one earlier process.

Usage: python_launch.py [--launches N] [--repeats R] [--fresh F]
Prints a table and "RESULT name value" lines. Peers that do not import are
skipped. Runs on the CPU backend too (without peers), as a smoke test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import textwrap
import time
from typing import Callable

import numpy as np

SOURCE = r"""
extern "C" __global__ void touch(float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && data[i] == 12345.0f) data[i] = 0.0f;
}
"""
N = 1024


Launcher = tuple[Callable[[], None], Callable[[], None]]  # (launch once, synchronize)


def measure(methods: dict[str, Launcher], launches: int, repeats: int) -> dict[str, float]:
    """Median wall seconds per launch of each method, one method after the
    other, each after a warm-up of 5000 launches (the first method measured
    in a process otherwise pays for the GPU's clocks ramping up). Methods are
    measured in turn rather than interleaved: each library is set up just
    before it is measured, as an interleaved run would have every library's
    streams exist while cudakit's and CuPy's legacy-stream launches run."""
    times = {}
    for name, (launch, sync) in methods.items():
        for _ in range(5000):
            launch()
        sync()
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(launches):
                launch()
            sync()
            samples.append((time.perf_counter() - start) / launches)
        times[name] = statistics.median(samples)
    return times


def touch_jit_kernel():  # noqa: ANN201 (a cudakit.cuda Dispatcher)
    """SOURCE's kernel as a @cuda.jit kernel."""
    from cudakit import cuda

    @cuda.jit
    def touch(values, n):
        i = cuda.grid(1)
        if i < n and values[i] == 12345.0:
            values[i] = 0.0

    return touch


def cudakit_methods() -> dict[str, Launcher]:
    import cudakit.autoinit  # noqa: F401
    import cudakit.driver as drv
    from cudakit.compiler import SourceModule

    func = SourceModule(SOURCE, no_extern_c=True).get_function("touch")
    data = drv.mem_alloc(N * 4)
    drv.memset_d32(data, 0, N)
    n32 = np.int32(N)
    sync = drv.Context.synchronize
    func.prepare("Pi")  # declares the argument types; plain calls are unchanged by it
    grid, block = (4, 1), (256, 1, 1)
    from cudakit import cuda

    touch = touch_jit_kernel()
    values = cuda.to_device(np.zeros(N, np.float32))
    jit_launch = touch[4, 256]  # (refers to `touch` weakly: the lambda keeps it alive)
    return {
        "cudakit @cuda.jit k[4, 256](d, int)": (lambda: (jit_launch(values, N), touch), sync),
        "cudakit f(alloc, np.int32)":
            (lambda: func(data, n32, block=(256, 1, 1), grid=(4, 1)), sync),
        "cudakit f(alloc, int)": (lambda: func(data, N, block=(256, 1, 1), grid=(4, 1)), sync),
        "cudakit prepared_call": (lambda: func.prepared_call(grid, block, data, n32), sync),
    }


def cupy_methods() -> dict[str, Launcher]:
    import cupy

    kernel = cupy.RawKernel(SOURCE, "touch")
    data = cupy.zeros(N, dtype=cupy.float32)
    n32 = np.int32(N)
    sync = cupy.cuda.get_current_stream().synchronize
    return {"cupy RawKernel": (lambda: kernel((4,), (256,), (data, n32)), sync)}


def cuda_core_methods() -> dict[str, Launcher]:
    try:
        from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
    except ImportError:
        from cuda.core.experimental import (Device, LaunchConfig, Program, ProgramOptions,
                                            launch)
    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    arch = "".join(str(v) for v in dev.compute_capability)
    program = Program(SOURCE, code_type="c++", options=ProgramOptions(arch=f"sm_{arch}"))
    kernel = program.compile("cubin").get_kernel("touch")
    buffer = dev.allocate(N * 4, stream=stream)
    config = LaunchConfig(grid=4, block=256)
    n32 = np.int32(N)
    return {"cuda.core launch": (lambda: launch(stream, config, kernel, buffer, n32), stream.sync)}


FRESH = {
    "cudakit": """
        import time; t0 = time.perf_counter()
        import numpy as np, cudakit.autoinit, cudakit.driver as drv
        from cudakit.compiler import SourceModule
        t1 = time.perf_counter()
        f = SourceModule(SOURCE, no_extern_c=True).get_function("touch")
        d = drv.mem_alloc(4096); f(d, np.int32(1024), block=(256, 1, 1), grid=(4, 1))
        drv.Context.synchronize()
    """,
    "cupy": """
        import time; t0 = time.perf_counter()
        import numpy as np, cupy
        cupy.cuda.Device(0).use(); cupy.cuda.runtime.free(0)
        t1 = time.perf_counter()
        k = cupy.RawKernel(SOURCE, "touch")
        d = cupy.zeros(1024, dtype=cupy.float32); k((4,), (256,), (d, np.int32(1024)))
        cupy.cuda.get_current_stream().synchronize()
    """,
}


def raw_cpp_launch_us(launches: int) -> float | None:
    """The raw C++ cuLaunchKernel's us per launch, from `cudakit bench launch`
    (the CLI at $CUDAKIT_CLI) run now, on the same GPU; None without a CLI or GPU."""
    cli = os.environ.get("CUDAKIT_CLI")
    if not cli or not os.path.exists(cli):
        return None
    done = subprocess.run([cli, "bench", "launch", "--launches", str(launches)],
                          capture_output=True, text=True)
    match = re.search(r"raw cuLaunchKernel\s*\|?\s*([0-9.]+)", done.stdout)
    return float(match.group(1)) if match else None


def fresh_first_call(peer: str, runs: int) -> tuple[float, float] | None:
    """(median seconds from source to first result, median import seconds)."""
    body = textwrap.dedent(FRESH[peer])
    script = f"SOURCE = {SOURCE!r}\n{body}\nimport json, time\n" \
             "print(json.dumps([time.perf_counter() - t1, t1 - t0]))\n"
    results = []
    for _ in range(runs + 1):  # the first run warms the disk cache
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"  {peer}: fresh process failed: {done.stderr.strip().splitlines()[-1:]}")
            return None
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    first = [r[0] for r in results[1:]]
    imports = [r[1] for r in results[1:]]
    return statistics.median(first), statistics.median(imports)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--fresh", type=int, default=5)
    args = parser.parse_args()

    times: dict[str, float] = {}
    for name, setup in (("cudakit", cudakit_methods), ("cupy", cupy_methods),
                        ("cuda.core", cuda_core_methods)):
        try:
            times.update(measure(setup(), args.launches, args.repeats))
        except Exception as error:  # a peer that is missing or fails is reported, not fatal
            print(f"  {name}: skipped ({type(error).__name__}: {error})")

    print("\nP2: launch of a 2-argument kernel from Python (us per launch, lower is better)")
    print(f"{'method':32} {'us':>8} {'/cupy':>8} {'/cuda.core':>11}")
    cupy_t = times.get("cupy RawKernel")
    core_t = times.get("cuda.core launch")
    for name, seconds in times.items():
        ratio_cupy = f"{seconds / cupy_t:8.2f}" if cupy_t else f"{'-':>8}"
        ratio_core = f"{seconds / core_t:11.2f}" if core_t else f"{'-':>11}"
        print(f"{name:32} {seconds * 1e6:8.2f} {ratio_cupy} {ratio_core}")
        print(f"RESULT p2_{name.replace(' ', '_')}_us {seconds * 1e6:.3f}")
    if cupy_t:
        print("target: cudakit <= 0.75x CuPy RawKernel")
    if core_t:
        print("target: cudakit <= 1.0x cuda.core")

    raw = raw_cpp_launch_us(args.launches)
    if raw:
        print(f"\nP2+: cudakit's Python launches against the raw C++ cuLaunchKernel of this run "
              f"({raw:.3f} us)")
        for name in ("cudakit f(alloc, np.int32)", "cudakit @cuda.jit k[4, 256](d, int)"):
            if name in times:
                ratio = times[name] * 1e6 / raw
                print(f"{name:40} {times[name] * 1e6:8.3f} us  {ratio:6.3f}x (target <= 1.10x)")
                print(f"RESULT p2plus_{name.split()[1].strip('@').replace('.', '_')}_ratio "
                      f"{ratio:.3f}")

    print("\nP3: first call of a disk-cached kernel in a fresh process (ms, after import)")
    print(f"{'library':12} {'first call':>11} {'import':>9}")
    fresh: dict[str, tuple[float, float]] = {}
    for peer in ("cudakit", "cupy"):
        if peer == "cupy" and "cupy RawKernel" not in times:
            continue
        result = fresh_first_call(peer, args.fresh)
        if result:
            fresh[peer] = result
            print(f"{peer:12} {result[0] * 1e3:11.2f} {result[1] * 1e3:9.1f}")
            print(f"RESULT p3_{peer}_first_call_ms {result[0] * 1e3:.3f}")
    if "cudakit" in fresh and "cupy" in fresh:
        print(f"cudakit / cupy: {fresh['cudakit'][0] / fresh['cupy'][0]:.2f} (target <= 1.0)")


if __name__ == "__main__":
    main()
