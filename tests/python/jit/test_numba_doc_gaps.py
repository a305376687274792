"""Constructs Numba's own documentation examples use that the hand-written
examples did not: folded global constants, `cudakit.cuda.types` as a
module, and kernels calling a CPU-jitted (@numba.jit) function."""

from __future__ import annotations

import numpy as np

from cudakit import cuda

RNG = np.random.default_rng(4321)
N = 77  # not a multiple of the block
TAX_RATE = 0.08
SCALE = 3


class CpuJitFunction:
    """Shaped like what @numba.jit returns: callable, with py_func."""

    def __init__(self, py_func):  # type: ignore[no-untyped-def]
        self.py_func = py_func

    def __call__(self, *args):  # type: ignore[no-untyped-def]
        return self.py_func(*args)


@CpuJitFunction
def business_logic(x, y):  # type: ignore[no-untyped-def]
    return 4 * y * (2 * x - y / 2 * 3.14159)


def test_constant_expression_of_globals_is_folded_into_a_literal():
    @cuda.jit
    def scale(values, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = values[i] * (1 + TAX_RATE) + (SCALE * 2 - 1) + 7 / 2

    values = RNG.random(N)
    out = cuda.device_array(N, np.float64)
    scale[(N + 31) // 32, 32](cuda.to_device(values), out)
    np.testing.assert_allclose(out.copy_to_host(), values * 1.08 + 5 + 3.5, rtol=1e-12)


def test_types_module_is_importable_with_void():
    from cudakit.cuda.types import float32, int32, void

    from cudakit.cuda import types

    assert types.int32 is int32 and cuda.types.float32 is float32
    sig = void(float32[:], int32)

    @cuda.jit(sig)
    def fill(out, value):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = value + i

    out = cuda.device_array(N, np.float32)
    fill[(N + 31) // 32, 32](out, 5)
    np.testing.assert_array_equal(out.copy_to_host(), 5 + np.arange(N, dtype=np.float32))


def test_kernel_calls_a_cpu_jitted_function_as_a_device_function():
    @cuda.jit
    def apply(out, xs, ys):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = business_logic(xs[i], ys[i])

    xs, ys = RNG.random(N), RNG.random(N) + 1
    out = cuda.device_array(N, np.float64)
    apply.forall(N)(out, cuda.to_device(xs), cuda.to_device(ys))
    expected = [business_logic(x, y) for x, y in zip(xs.tolist(), ys.tolist())]
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-12)


def test_cpointer_argument_is_indexed_through_the_address():
    from cudakit.cuda import types

    @cuda.jit(types.void(types.CPointer(types.float32), types.uint32))
    def add_one(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] += 1
            x[i] = x[i] * 2

    values = RNG.random(N).astype(np.float32)
    device_values = cuda.to_device(values)
    add_one[(N + 31) // 32, 32](device_values.__cuda_array_interface__["data"][0], N)
    np.testing.assert_allclose(device_values.copy_to_host(), (values + 1) * 2, rtol=1e-6)


def test_cpointer_bad_uses_are_clear_errors():
    import pytest

    from cudakit.cuda import TypingError, types

    with pytest.raises(TypeError, match="CPointer.. takes a scalar type"):
        types.CPointer(np.float32)

    def float_index(x):
        x[0.5] = 1

    with pytest.raises(TypingError, match="indexed by one integer"):
        # An explicit signature compiles at once.
        cuda.jit(types.void(types.CPointer(types.uint8)))(float_index)

    @cuda.jit(types.void(types.CPointer(types.uint8)))
    def takes_pointer(x):
        x[0] = 1

    with pytest.raises(TypeError, match="No matching definition"):
        takes_pointer[1, 1](1.5)


def test_grid_sync_is_a_clear_unsupported_error():
    import pytest

    from cudakit.cuda import UnsupportedError

    @cuda.jit
    def heat_step(buf):
        grid = cuda.cg.this_grid()
        buf[0] = 1
        grid.sync()

    with pytest.raises(UnsupportedError, match="grid-wide synchronization.*separate launches"):
        heat_step[1, 1](cuda.device_array(3, np.float64))
