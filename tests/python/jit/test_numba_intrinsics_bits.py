"""numba.cuda's bit and arithmetic intrinsics in kernels: cuda.popc, brev,
clz, ffs (and int.bit_count), cuda.fma, cbrt, selp, nanosleep, each on the
types numba.cuda's typing takes, with its result types, checked against a
Python reference on fresh random inputs with the edge values (0, -1, the
smallest and largest integers, NaN and infinities)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from cudakit import cuda

RNG = np.random.default_rng()
N = 77  # not a multiple of the block
INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                  np.uint64]


def launch(kernel, *arrays):  # type: ignore[no-untyped-def]
    device = [cuda.to_device(a) for a in arrays]
    kernel[(len(arrays[0]) + 31) // 32, 32](*device)
    return [d.copy_to_host() for d in device]


def local_type(kernel, name, dtype, arg=0):  # type: ignore[no-untyped-def]
    """The type the translator gave local `name` in the specialization whose
    argument `arg` is an array of `dtype`."""
    (spec,) = [s for key, s in kernel.overloads.items()
               if str(key[arg].dtype) == np.dtype(dtype).name]
    return spec.translation.local_types[name]


def integers(dtype) -> np.ndarray:  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    edges = [0, 1, info.max, info.min, info.max - 1, info.min + 1]
    if info.min < 0:
        edges += [-1, -2]
    values = RNG.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    values[:len(edges)] = np.array(edges, dtype=object).astype(dtype)
    return values


def bits_of(value: int, width: int) -> int:
    return int(value) & ((1 << width) - 1)


def ref_popc(value: int, width: int) -> int:
    return bin(bits_of(value, width)).count("1")


def ref_clz(value: int, width: int) -> int:
    return width - bits_of(value, width).bit_length()


def ref_ffs(value: int, width: int) -> int:
    word = bits_of(value, width)
    return 0 if word == 0 else (word & -word).bit_length()


def ref_brev(value: int, width: int) -> int:
    return int(format(bits_of(value, width), f"0{width}b")[::-1], 2)


@cuda.jit
def popc_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        r = cuda.popc(x[i])
        out[i] = r


@cuda.jit
def clz_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        r = cuda.clz(x[i])
        out[i] = r


@cuda.jit
def ffs_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        r = cuda.ffs(x[i])
        out[i] = r


@cuda.jit
def bit_count_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        r = x[i].bit_count()
        out[i] = r


@cuda.jit
def brev_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        r = cuda.brev(x[i])
        out[i] = r


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name,kernel,reference,result", [
    ("popc", popc_kernel, ref_popc, "same"),
    ("clz", clz_kernel, ref_clz, "same"),
    ("ffs", ffs_kernel, ref_ffs, "uint32"),
    ("bit_count", bit_count_kernel, ref_popc, "same"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_counting_bits(name, kernel, reference, result, dtype):  # type: ignore[no-untyped-def]
    x = integers(dtype)
    (_, out) = launch(kernel, x, np.zeros(N, np.int64))
    width = np.dtype(dtype).itemsize * 8
    expected = [reference(v, width) for v in x.tolist()]
    assert out.tolist() == expected
    want = np.dtype(dtype).name if result == "same" else result
    assert str(local_type(kernel, "r", dtype)) == want  # numba.cuda's result type


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_brev_reverses_the_bits_of_unsigned_words(dtype):  # type: ignore[no-untyped-def]
    x = integers(dtype)
    (_, out) = launch(brev_kernel, x, np.zeros(N, dtype))
    width = np.dtype(dtype).itemsize * 8
    assert out.tolist() == [ref_brev(v, width) for v in x.tolist()]
    assert str(local_type(brev_kernel, "r", dtype)) == np.dtype(dtype).name


def floats(dtype) -> np.ndarray:  # type: ignore[no-untyped-def]
    values = (RNG.standard_normal(N) * 100).astype(dtype)
    values[:7] = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan], dtype)
    return values


@cuda.jit
def fma_kernel(a, b, c, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < a.size:
        r = cuda.fma(a[i], b[i], c[i])
        out[i] = r


@cuda.jit
def cbrt_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        r = cuda.cbrt(x[i])
        out[i] = r


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_fma_rounds_once(dtype):  # type: ignore[no-untyped-def]
    a, b, c = floats(dtype), floats(dtype)[::-1].copy(), floats(dtype)
    (_, _, _, out) = launch(fma_kernel, a, b, c, np.zeros(N, dtype))
    # The exact a*b + c, rounded once (fractions are exact).
    expected = np.array([_fma_reference(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(),
                                                                   c.tolist())]).astype(dtype)
    np.testing.assert_array_equal(out, expected)
    assert str(local_type(fma_kernel, "r", dtype)) == np.dtype(dtype).name


def _fma_reference(x: float, y: float, z: float) -> float:
    if all(math.isfinite(v) for v in (x, y, z)):
        return float(Fraction(x) * Fraction(y) + Fraction(z))
    with np.errstate(invalid="ignore"):
        return float(np.float64(x) * y + z)  # inf and NaN: no rounding to worry about


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_cbrt(dtype):  # type: ignore[no-untyped-def]
    x = floats(dtype)
    (_, out) = launch(cbrt_kernel, x, np.zeros(N, dtype))
    np.testing.assert_allclose(out, np.cbrt(x), rtol=4 * np.finfo(dtype).eps)
    assert str(local_type(cbrt_kernel, "r", dtype)) == np.dtype(dtype).name


@cuda.jit
def selp_kernel(test, a, b, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < a.size:
        r = cuda.selp(test[i] > 0, a[i], b[i])
        out[i] = r


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.uint16, np.int32,
                                   np.uint32, np.int64, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_selp_selects_by_the_test(dtype):  # type: ignore[no-untyped-def]
    test = RNG.integers(-3, 3, N)
    if np.dtype(dtype).kind == "f":
        a, b = floats(dtype), floats(dtype)[::-1].copy()
    else:
        a, b = integers(dtype), integers(dtype)
    (_, _, _, out) = launch(selp_kernel, test, a, b, np.zeros(N, dtype))
    np.testing.assert_array_equal(out, np.where(test > 0, a, b))
    assert str(local_type(selp_kernel, "r", dtype, -1)) == np.dtype(dtype).name


@cuda.jit
def nanosleep_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        cuda.nanosleep(x[i])
        out[i] = x[i] + 1


def test_nanosleep_returns_and_the_kernel_goes_on():
    x = RNG.integers(0, 200, N).astype(np.uint32)
    (_, out) = launch(nanosleep_kernel, x, np.zeros(N, np.uint32))
    np.testing.assert_array_equal(out, x + 1)
