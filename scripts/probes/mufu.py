"""Probe the GPU's approximate functions (MUFU) for the CPU backend's emulation:
__sinf/__cosf (as curand's Box-Muller calls __sincosf), ex2.approx, lg2.approx,
and the SASS the compiler makes for them. Output bits of every float in a few
binades, delta-encoded (consecutive outputs differ by a few units), compressed."""
import os, subprocess, sys, zlib
import numpy as np
import cudakit.driver as drv
from cudakit.compiler import SourceModule

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
SRC = r"""
extern "C" __global__ void mufu(unsigned first, unsigned* out, int n, int op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = __uint_as_float(first + (unsigned)i), y = 0.0f;
#ifndef __CUDAKIT_CPU__
  if (op == 0) y = __sinf(x);
  else if (op == 1) y = __cosf(x);
  else if (op == 2) asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  else if (op == 3) asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  else if (op == 4) y = __expf(x);
  else if (op == 5) y = expf(x);
#else
  if (op == 0) y = sinf(x);
  else if (op == 1) y = cosf(x);
  else if (op == 2) y = exp2f(x);
  else if (op == 3) y = log2f(x);
  else y = expf(x);
#endif
  out[i] = __float_as_uint(y);
}
"""
mufu = SourceModule(SRC).get_function("mufu")
if drv.backend() == "cuda":  # the SASS of the same source
    with open("/tmp/mufu.cu", "w") as f:
        f.write(SRC)
    for cmd in (["nvcc", "-arch=sm_90", "-cubin", "-O3", "-o", "/tmp/mufu.cubin", "/tmp/mufu.cu"],
                ["cuobjdump", "-sass", "/tmp/mufu.cubin"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        with open(os.path.join(OUT, "mufu_sass.txt"), "a") as f:
            f.write("$ " + " ".join(cmd) + "\n" + r.stdout + r.stderr)


def binade(lo):
    first = int(np.float32(lo).view(np.uint32))
    return first, 1 << 23


def run(op, first, n):
    out = np.zeros(n, np.uint32)
    mufu(np.uint32(first), drv.Out(out), np.int32(n), np.int32(op), block=(256, 1, 1),
         grid=((n + 255) // 256, 1))
    return out


plan = {  # op: (name, binade starts)
    0: ("sinf", [2.0 ** -4, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0]),
    1: ("cosf", [2.0 ** -4, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0]),
    2: ("ex2", [0.125, 0.25, 0.5, -0.5, -1.0]),
    3: ("lg2", [1.0, 0.5]),
    4: ("expf_fast", [0.5, 1.0, -1.0]),
    5: ("expf", [0.5, 1.0, -1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]),
}
for op, (name, starts) in plan.items():
    arrays = {}
    for lo in starts:
        first, n = binade(lo)
        bits = run(op, first, n).astype(np.int64)
        arrays["%g" % lo] = np.frombuffer(zlib.compress(np.diff(bits, prepend=0).astype(np.int32).tobytes(), 9), np.uint8)
    np.savez(os.path.join(OUT, "mufu_%s_%s.npz" % (name, drv.backend())), **arrays)
    print(name, {k: v.size for k, v in arrays.items()}, flush=True)
print("done", drv.backend())
