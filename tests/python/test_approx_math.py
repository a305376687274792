"""__sinf, __cosf and __sincosf are the GPU's hardware approximations
(sin.approx.f32, cos.approx.f32) on both backends: the CPU backend computes
them from tables measured on an H200 (src/backend/cpu/prelude/
cudakit_cpu_approx_math.h, checked there on all 2^32 inputs). The inputs and
outputs pinned in tests/data/approx_math_h200.npz were read on an H200: random
angles, the angles cuRAND's Box-Muller makes, and floats of every exponent up
to 2^12. On a GPU (marker `gpu`) both backends run the same kernel on fresh
random inputs and must give the same bits."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import cudakit.driver as drv
from cudakit.compiler import SourceModule

PINNED = Path(__file__).resolve().parents[1] / "data" / "approx_math_h200.npz"

SOURCE = r"""
__global__ void approx(const float* x, float* sine, float* cosine, float* both, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sine[i] = __sinf(x[i]);
  cosine[i] = __cosf(x[i]);
  float s, c;
  __sincosf(x[i], &s, &c);
  both[2 * i] = s;
  both[2 * i + 1] = c;
}
"""


def run(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.ascontiguousarray(x, np.float32)
    sine, cosine, both = np.empty_like(x), np.empty_like(x), np.empty(2 * x.size, np.float32)
    SourceModule(SOURCE).get_function("approx")(
        drv.In(x), drv.Out(sine), drv.Out(cosine), drv.Out(both), np.int32(x.size),
        block=(256, 1, 1), grid=((x.size + 255) // 256, 1))
    return sine, cosine, both


def bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, np.float32).view(np.uint32)


def test_the_h200s_bits() -> None:
    with np.load(PINNED) as pinned:
        for name in ("sin", "cos"):
            x = pinned[f"{name}_in"].view(np.float32)
            sine, cosine, both = run(x)
            got = sine if name == "sin" else cosine
            differ = np.flatnonzero(bits(got) != pinned[f"{name}_out"])
            assert differ.size == 0, (
                f"__{name}f differs from the H200 at {differ.size} of {x.size} inputs, "
                f"first x={x[differ[0]]!r}: got {got[differ[0]]!r}, "
                f"H200 {pinned[f'{name}_out'][differ[:1]].view(np.float32)[0]!r}")
            assert (bits(both[0::2]) == bits(sine)).all() and (bits(both[1::2]) == bits(cosine)).all()


def test_special_inputs() -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e38, -3e38], np.float32)
    sine, cosine, _ = run(x)
    assert bits(sine[0]) == 0 and bits(sine[1]) == 0x80000000, "sin keeps the sign of zero"
    assert (cosine[:2] == 1.0).all()
    assert np.isnan(sine[2:5]).all() and np.isnan(cosine[2:5]).all(), "inf and NaN give NaN"
    assert (np.abs(sine[5:]) <= 1.0).all() and (np.abs(cosine[5:]) <= 1.0).all()


def test_accuracy_against_numpy() -> None:
    # The CUDA guide gives a maximum absolute error of 2^-21.41 in [-pi, pi];
    # against sin of the float input it reaches about 2^-21.24 near +-pi on an
    # H200 (the angle in turns is rounded toward zero to 2^-25 of a turn).
    x = np.random.default_rng().uniform(-np.pi, np.pi, 100_003).astype(np.float32)
    sine, cosine, _ = run(x)
    assert np.abs(sine - np.sin(x.astype(np.float64))).max() < 2.0**-21
    assert np.abs(cosine - np.cos(x.astype(np.float64))).max() < 2.0**-21


CPU_CHILD = """
import sys
import numpy as np
sys.path.insert(0, {directory!r})
import test_approx_math as t
x = np.load({inputs!r})
np.save({path!r}, np.stack(t.run(x)[:2]))
"""


@pytest.mark.gpu
def test_gpu_matches_cpu_backend(tmp_path: Path) -> None:
    from child_process import checked, run_code

    rng = np.random.default_rng()
    x = np.concatenate([rng.uniform(-40.0, 40.0, 1 << 20),
                        rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
                        .view(np.float32)]).astype(np.float32)
    sine, cosine, _ = run(x)
    np.save(tmp_path / "x.npy", x)
    checked(run_code(CPU_CHILD.format(directory=str(Path(__file__).parent),
                                      inputs=str(tmp_path / "x.npy"),
                                      path=str(tmp_path / "cpu.npy")), CUDAKIT_BACKEND="cpu"))
    cpu = np.load(tmp_path / "cpu.npy")
    for name, gpu, mine in (("__sinf", sine, cpu[0]), ("__cosf", cosine, cpu[1])):
        differ = np.flatnonzero(bits(gpu) != bits(mine))
        assert differ.size == 0, (f"{name}: {differ.size} of {x.size} differ, first "
                                  f"x={x[differ[0]]!r} gpu={gpu[differ[0]]!r} cpu={mine[differ[0]]!r}")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
