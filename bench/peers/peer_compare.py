#!/usr/bin/env python3
"""cudakit's arrays against PyTorch and CuPy on the same device memory, in one process.

All three libraries use the device's primary context, so cudakit (through
libcudakit_peers.so, a C ABI over its array layer) works directly on tensors
that PyTorch allocated. Every operation is checked against PyTorch first,
then timed with CUDA events around each call (median of many repeats after
warm-up) on the legacy default stream that all three use by default.

Usage: peer_compare.py path/to/libcudakit_peers.so [--quick]
(cudakit_peers_nb, the nanobind module built next to it, is used when present.)
Prints a table and "RESULT name value" lines.
"""
import ctypes
import os
import statistics
import sys

import numpy

if not hasattr(numpy, "row_stack"):  # numba on numpy 2.5
    numpy.row_stack = numpy.vstack

import torch

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is optional
    cupy = None

lib = ctypes.CDLL(sys.argv[1])
# The nanobind module next to it, when it was built: a Python binding's call
# cost. Without it every cudakit call goes through ctypes (~1-2 us more).
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))
try:
    import cudakit_peers_nb as nb
except ImportError:
    nb = None
quick = "--quick" in sys.argv
u64, i64 = ctypes.c_uint64, ctypes.c_int64
dbl_p = ctypes.POINTER(ctypes.c_double)
lib.ck_last_error.restype = ctypes.c_char_p
lib.ck_add.argtypes = [u64, u64, u64, i64]
lib.ck_mul_add.argtypes = [u64, u64, u64, u64, u64, i64]
lib.ck_sum.argtypes = [u64, i64, dbl_p]
lib.ck_dot.argtypes = [u64, u64, i64, dbl_p]
lib.ck_matmul.argtypes = [u64, u64, u64, i64]
lib.ck_array_launches.restype = i64


def ck(rc):
    if rc != 0:
        raise RuntimeError(lib.ck_last_error().decode())


def timed(fn, repeats=30, warmup=5, calls=1):
    """Median milliseconds of one call of `fn`, timed with CUDA events around
    each call; with calls > 1, around that many calls queued back to back
    (divided by the count): the device time of one call once the host keeps
    ahead of the device."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / calls)
    return statistics.median(times)


def ptr(t):
    return t.data_ptr()


rows = []


def report(name, peer, peer_ms, ours_ms, useful_bytes=None, flops=None, target=None):
    if useful_bytes:
        unit, ours_v, peer_v = "GB/s", useful_bytes / ours_ms / 1e6, useful_bytes / peer_ms / 1e6
    else:
        unit, ours_v, peer_v = "TFLOP/s", flops / ours_ms / 1e9, flops / peer_ms / 1e9
    ratio = ours_v / peer_v
    rows.append((name, peer, f"{peer_v:8.1f}", f"{ours_v:8.1f}", unit, f"{ratio:5.2f}x", target or ""))
    print(f"RESULT {name} cudakit={ours_v:.1f} {peer}={peer_v:.1f} {unit} ratio={ratio:.3f}", flush=True)


def main():
    ck(lib.ck_init())
    torch.manual_seed(1234)
    dev = torch.device("cuda")
    sizes = [10_000_000, 1 << 28] if not quick else [10_000_000, 1 << 24]
    for n in sizes:
        a, b = torch.rand(n, device=dev), torch.rand(n, device=dev)
        out = torch.empty_like(a)
        ck(lib.ck_add(ptr(a), ptr(b), ptr(out), n))
        torch.cuda.synchronize()
        assert torch.equal(out, a + b), "cudakit a + b differs from torch"
        # Addresses taken once, as torch's tensors are: a binding's array
        # object holds its address.
        pa, pb, pout = ptr(a), ptr(b), ptr(out)
        t_ck_ctypes = timed(lambda: ck(lib.ck_add(pa, pb, pout, n)))
        t_ck = timed(lambda: nb.add(pa, pb, pout, n)) if nb else t_ck_ctypes
        t_torch = timed(lambda: torch.add(a, b, out=out))
        label = "2^28" if n == 1 << 28 else f"{n // 1_000_000}M" if n % 1_000_000 == 0 else str(n)
        report(f"add_{label}" + ("" if nb else "_ctypes"), "torch", t_torch, t_ck,
               useful_bytes=12 * n, target=">= 0.97x (2^28), >= 1.0x (10M)")
        if nb:
            report(f"add_{label}_ctypes", "torch", t_torch, t_ck_ctypes, useful_bytes=12 * n)
        # The same calls queued back to back: the host work of a call hides
        # behind the previous kernel, so this compares the kernels.
        add = nb.add if nb else lib.ck_add
        t_ck_b2b = timed(lambda: add(pa, pb, pout, n), repeats=15, calls=20)
        t_torch_b2b = timed(lambda: torch.add(a, b, out=out), repeats=15, calls=20)
        report(f"add_{label}_back_to_back", "torch", t_torch_b2b, t_ck_b2b, useful_bytes=12 * n)
        if cupy is not None:
            ca, cb, cout = cupy.asarray(a), cupy.asarray(b), cupy.asarray(out)
            t_cp = timed(lambda: cupy.add(ca, cb, out=cout))
            report(f"add_{label}_vs_cupy", "cupy", t_cp, t_ck, useful_bytes=12 * n)
        del a, b, out

    n = 1 << 28 if not quick else 1 << 24
    a, b, x, y = (torch.rand(n, device=dev) for _ in range(4))
    out = torch.empty_like(a)
    before = lib.ck_array_launches()
    ck(lib.ck_mul_add(ptr(a), ptr(b), ptr(x), ptr(y), ptr(out), n))
    torch.cuda.synchronize()
    launches = lib.ck_array_launches() - before
    assert torch.allclose(out, a * b + x * y, rtol=1e-6, atol=1e-6), "a*b+x*y differs"
    print(f"a*b + x*y ran as {launches} kernel launch(es)")
    pa, pb, px, py, pout = ptr(a), ptr(b), ptr(x), ptr(y), ptr(out)
    if nb:
        t_ck = timed(lambda: nb.mul_add(pa, pb, px, py, pout, n))
    else:
        t_ck = timed(lambda: ck(lib.ck_mul_add(pa, pb, px, py, pout, n)))
    if cupy is not None:
        ca, cb, cx, cy, co = (cupy.asarray(t) for t in (a, b, x, y, out))

        @cupy.fuse()
        def fused(p, q, r, s):
            return p * q + r * s

        t_fuse = timed(lambda: fused(ca, cb, cx, cy))
        t_plain = timed(lambda: cupy.add(ca * cb, cx * cy, out=co))
        report("mul_add_2^28", "cupy.fuse", t_fuse, t_ck, useful_bytes=20 * n, target=">= 1.0x")
        report("mul_add_2^28_vs_unfused", "cupy", t_plain, t_ck, useful_bytes=20 * n, target="~3x")

    result = ctypes.c_double()
    ck(lib.ck_sum(ptr(a), n, ctypes.byref(result)))
    ref = a.double().sum().item()
    assert abs(result.value - ref) <= 1e-5 * abs(ref), f"sum {result.value} vs {ref}"
    t_ck = timed(lambda: ck(lib.ck_sum(ptr(a), n, None)))
    t_torch = timed(lambda: torch.sum(a))
    report("sum_2^28", "torch", t_torch, t_ck, useful_bytes=4 * n)
    if cupy is not None:
        t_cp = timed(lambda: cupy.sum(ca))
        report("sum_2^28_vs_cupy", "cupy", t_cp, t_ck, useful_bytes=4 * n, target=">= 0.99x")
    ck(lib.ck_dot(ptr(a), ptr(b), n, ctypes.byref(result)))
    ref = torch.dot(a.double(), b.double()).item()
    assert abs(result.value - ref) <= 1e-5 * abs(ref), f"dot {result.value} vs {ref}"
    t_ck = timed(lambda: ck(lib.ck_dot(ptr(a), ptr(b), n, None)))
    t_torch = timed(lambda: torch.dot(a, b))
    report("dot_2^28", "torch", t_torch, t_ck, useful_bytes=8 * n)
    if cupy is not None:
        t_cp = timed(lambda: cupy.dot(ca, cb))
        report("dot_2^28_vs_cupy", "cupy", t_cp, t_ck, useful_bytes=8 * n, target=">= 2.8x")
    del a, b, x, y, out

    m = 4096
    torch.backends.cuda.matmul.allow_tf32 = False
    A, B = torch.rand(m, m, device=dev), torch.rand(m, m, device=dev)
    C = torch.empty_like(A)
    ck(lib.ck_matmul(ptr(A), ptr(B), ptr(C), m))
    torch.cuda.synchronize()
    ref = (A.double() @ B.double())
    err = ((C.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-4, f"matmul relative error {err}"
    t_ck = timed(lambda: ck(lib.ck_matmul(ptr(A), ptr(B), ptr(C), m)), repeats=20)
    t_torch = timed(lambda: torch.matmul(A, B, out=C), repeats=20)
    report("matmul_4096_f32", "torch", t_torch, t_ck, flops=2 * m**3)
    if cupy is not None:
        cA, cB = cupy.asarray(A), cupy.asarray(B)
        t_cp = timed(lambda: cupy.matmul(cA, cB), repeats=20)
        report("matmul_4096_f32_vs_cupy", "cupy", t_cp, t_ck, flops=2 * m**3, target=">= 0.98x")

    print()
    print(f"{'benchmark':28} {'peer':10} {'peer':>8} {'cudakit':>8} {'unit':7} {'ratio':>6}  target")
    for r in rows:
        print(f"{r[0]:28} {r[1]:10} {r[2]} {r[3]} {r[4]:7} {r[5]:>6}  {r[6]}")


if __name__ == "__main__":
    main()
