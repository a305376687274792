"""bfloat16 in kernels (cuda.bf16 / numba.cuda.bf16): conversions with each
rounding mode, arithmetic rounded from float, comparisons, bit casts and
saturating integer conversions, on random values against ml_dtypes' bfloat16
(NumPy's reference for the type) and exact rounding done on the host."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import bf16

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(1729)
N = 53  # not a multiple of the block


def bits_of(values):
    return np.asarray(values, np.float32).astype(BF16).view(np.uint16)


def rounded(value, mode):
    """`value` (a float or int) rounded to bfloat16 bits in `mode`, exactly:
    its two bfloat16 neighbours, from the float nearest it."""
    if isinstance(value, float) and math.isnan(value):
        return None
    exact = float(value)  # (test values fit a double exactly)
    near = np.float32(exact).astype(BF16)
    candidates = sorted({float(near), float(np.nextafter(near, BF16(-np.inf))),
                         float(np.nextafter(near, BF16(np.inf)))})
    below = max(c for c in candidates if c <= exact)
    above = min(c for c in candidates if c >= exact)
    if mode == "rz":
        pick = below if exact >= 0 else above
    elif mode == "rd":
        pick = below
    elif mode == "ru":
        pick = above
    else:
        pick = float(np.float64(exact).astype(BF16))  # ml_dtypes: nearest, ties to even
    return int(np.float32(pick).astype(BF16).view(np.uint16))


@pytest.mark.parametrize("mode", ["rn", "rz", "rd", "ru"])
def test_float32_and_integer_conversions_round_in_each_mode(mode):
    from_float = getattr(bf16, f"float32_to_bfloat16_{mode}")
    from_int = getattr(bf16, f"int32_to_bfloat16_{mode}")
    from_int64 = getattr(bf16, f"int64_to_bfloat16_{mode}")

    @cuda.jit
    def convert(xs, ns, bigs, out):
        i = cuda.grid(1)
        if i < xs.shape[0]:
            out[i, 0] = bf16.bfloat16_as_uint16(from_float(xs[i]))
            out[i, 1] = bf16.bfloat16_as_uint16(from_int(ns[i]))
            out[i, 2] = bf16.bfloat16_as_uint16(from_int64(bigs[i]))

    xs = (RNG.standard_normal(N) * 10.0 ** RNG.integers(-3, 4, N)).astype(np.float32)
    ns = RNG.integers(-(2**31), 2**31, N).astype(np.int32)
    bigs = RNG.integers(-(2**62), 2**62, N).astype(np.int64)
    bigs[:3] = [2**60 - 1, -(2**63), 2**63 - 1]  # sticky bits far below the rounding bit
    out = cuda.device_array((N, 3), np.uint16)
    convert[2, 32](cuda.to_device(xs), cuda.to_device(ns), cuda.to_device(bigs), out)
    got = out.copy_to_host()
    for i in range(N):
        assert got[i, 0] == rounded(float(xs[i]), mode), (xs[i], mode)
        assert got[i, 1] == rounded(int(ns[i]), mode), (ns[i], mode)
        big = int(bigs[i])  # a double may not hold it: round its 64 bits by hand
        assert got[i, 2] == _round_big(big, mode), (big, mode)


def _round_big(value, mode):
    magnitude, negative = abs(value), value < 0
    shift = max(0, magnitude.bit_length() - 8)
    low, rest = magnitude >> shift, magnitude & ((1 << shift) - 1)
    if rest:
        half = 1 << (shift - 1)
        up = {"rz": False, "rd": negative, "ru": not negative,
              "rn": rest > half or (rest == half and low & 1)}[mode]
        low += up
    result = float(low << shift) * (-1 if negative else 1)
    return int(np.float32(result).astype(BF16).view(np.uint16))


def test_arithmetic_comparisons_and_nan_rules_match_ml_dtypes():
    @cuda.jit
    def arithmetic(a, b, out, flags):
        i = cuda.grid(1)
        if i < a.shape[0]:
            x, y = bf16.bfloat16(a[i]), bf16.bfloat16(b[i])
            out[i, 0] = bf16.bfloat16_to_float32(bf16.hadd(x, y))
            out[i, 1] = bf16.bfloat16_to_float32(bf16.hmul(x, y))
            out[i, 2] = bf16.bfloat16_to_float32(bf16.hsub_sat(x, y))
            out[i, 3] = bf16.bfloat16_to_float32(bf16.hmax_nan(x, y))
            out[i, 4] = bf16.bfloat16_to_float32(bf16.hmin(x, y))
            out[i, 5] = bf16.bfloat16_to_float32(bf16.hfma_relu(x, y, x))
            flags[i, 0] = bf16.hlt(x, y)
            flags[i, 1] = bf16.hne(x, y)
            flags[i, 2] = bf16.hisnan(x)

    a = RNG.uniform(-3, 3, N).astype(np.float32)
    b = RNG.uniform(-3, 3, N).astype(np.float32)
    a[:2], b[2] = np.nan, np.nan
    out, flags = cuda.device_array((N, 6), np.float32), cuda.device_array((N, 3), np.bool_)
    arithmetic[2, 32](cuda.to_device(a), cuda.to_device(b), out, flags)
    x, y = a.astype(BF16).astype(np.float32), b.astype(BF16).astype(np.float32)

    def to_bf16(values):
        return np.asarray(values, np.float32).astype(BF16).astype(np.float32)

    with np.errstate(invalid="ignore"):
        expected = np.stack([
            to_bf16(x + y), to_bf16(x * y), to_bf16(np.clip(np.nan_to_num(x - y, nan=0), 0, 1)),
            np.where(np.isnan(x) | np.isnan(y), np.nan, np.maximum(x, y)), np.fmin(x, y),
            to_bf16(np.where(np.isnan(x * y + x), np.nan, np.maximum(x * y + x, 0)))], axis=1)
        np.testing.assert_array_equal(out.copy_to_host(), expected)
        np.testing.assert_array_equal(flags.copy_to_host(),
                                      np.stack([x < y, (x < y) | (x > y), np.isnan(x)], axis=1))


def test_integer_conversions_saturate_and_give_zero_for_nan():
    @cuda.jit
    def to_integers(bits, out8, out32):
        i = cuda.grid(1)
        if i < bits.shape[0]:
            h = bf16.uint16_as_bfloat16(bits[i])
            out8[i] = bf16.bfloat16_to_int8_rz(h)
            out32[i, 0] = bf16.bfloat16_to_uint32_rn(h)
            out32[i, 1] = bf16.bfloat16_to_int32_rd(h)
            out32[i, 2] = bf16.bfloat16_to_int32_ru(h)

    values = np.concatenate([RNG.uniform(-300, 300, N - 4), [np.nan, np.inf, -np.inf, 3e9]])
    bits = bits_of(values)
    out8, out32 = cuda.device_array(N, np.int8), cuda.device_array((N, 3), np.int64)
    to_integers[2, 32](cuda.to_device(bits), out8, out32)
    v = bits.view(BF16).astype(np.float64)

    def saturated(r, lo, hi):
        return np.where(np.isnan(v), 0, np.clip(np.nan_to_num(r, nan=0, posinf=hi, neginf=lo),
                                                lo, hi)).astype(np.int64)

    np.testing.assert_array_equal(out8.copy_to_host(), saturated(np.trunc(v), -128, 127))
    got = out32.copy_to_host()
    np.testing.assert_array_equal(got[:, 0], saturated(np.rint(v), 0, 2**32 - 1))
    np.testing.assert_array_equal(got[:, 1], saturated(np.floor(v), -(2**31), 2**31 - 1))
    np.testing.assert_array_equal(got[:, 2], saturated(np.ceil(v), -(2**31), 2**31 - 1))


def test_intrinsics_outside_kernels_and_with_wrong_arguments_are_clear_errors():
    with pytest.raises(RuntimeError, match="only be called inside"):
        bf16.hadd(1.0, 2.0)

    @cuda.jit
    def too_few(out):
        out[0] = bf16.bfloat16_to_float32(bf16.hadd(bf16.bfloat16(1.0)))

    with pytest.raises(cuda.TypingError, match=r"hadd\(\) takes 2 numbers"):
        too_few[1, 1](cuda.device_array(1, np.float32))
    assert cuda.is_bfloat16_supported()
