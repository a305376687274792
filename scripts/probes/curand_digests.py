"""Digests of tests/python/test_curand_kernel_cpu.py's pinned sequences on
whichever backend cudakit picks: the whole case (as PINNED_DIGESTS holds it)
and each integer row (curand, Poisson 5.5 / 300 / 10000, after skipahead, after
skipahead_sequence), to compare the CPU backend with a GPU row by row."""
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
import cudakit.driver as drv  # noqa: E402
import test_curand_kernel_cpu as t  # noqa: E402

print("backend", drv.backend())
for name in t.STATES:
    u32, f, d = t.run_fill(name)
    cases = [hashlib.sha256(u32[c].tobytes() + f[c, 0].tobytes() + d[c, 0].tobytes()).hexdigest()[:16]
             for c in range(len(t.CASES))]
    rows = [[hashlib.sha256(u32[c, r].tobytes()).hexdigest()[:8] for r in range(6)] for c in range(len(t.CASES))]
    print(name, cases)
    print(name, "rows", rows)
