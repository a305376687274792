"""multi_take / multi_put / multi_take_put against numpy, PyCUDA's dtype
registry (register_dtype, get_or_register_dtype), get_curand_version, and
reshape(order=...) layouts."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as ga
from cudakit import tools
from cudakit.curandom import get_curand_version
from gpuarray_helpers import random_array

_rng = np.random.default_rng()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.complex64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.uint32, np.int64])
def test_multi_take(dtype: type, index_dtype: type) -> None:
    arrays = [random_array(1001, dtype) for _ in range(3)]
    indices = _rng.integers(0, 1001, size=517).astype(index_dtype)
    out = ga.multi_take([ga.to_gpu(a) for a in arrays], ga.to_gpu(indices))
    assert len(out) == 3
    for o, a in zip(out, arrays):
        np.testing.assert_array_equal(o.get(), a[indices])


def test_multi_put_into_given_outputs() -> None:
    arrays = [random_array(37, np.float32) for _ in range(4)]
    dest = _rng.permutation(1001)[:37].astype(np.int32)
    targets = [random_array(1001, np.float32) for _ in range(4)]
    out = [ga.to_gpu(t) for t in targets]
    assert ga.multi_put([ga.to_gpu(a) for a in arrays], ga.to_gpu(dest), out=out) == out
    for o, t, a in zip(out, targets, arrays):
        expected = t.copy()
        expected[dest] = a
        np.testing.assert_array_equal(o.get(), expected)


@pytest.mark.parametrize("with_offsets", [False, True])
def test_multi_take_put(with_offsets: bool) -> None:
    n, field = 5, 8
    buf = random_array(n * field, np.float64)
    dest = _rng.permutation(96)[:field].astype(np.uint32)
    src = _rng.integers(0, field, size=field).astype(np.uint32)
    offsets = [k * field for k in range(n)] if with_offsets else None
    out = ga.multi_take_put([ga.to_gpu(buf)] * n, ga.to_gpu(dest), ga.to_gpu(src),
                            dest_shape=(96,), src_offsets=offsets)
    for k, o in enumerate(out):
        expected = np.zeros(96)
        expected[dest] = buf[src + (offsets[k] if offsets else 0)]
        np.testing.assert_array_equal(o.get(), expected)


def test_multi_take_put_on_a_stream() -> None:
    s = drv.Stream()
    a = random_array(1001, np.float32)
    idx = np.arange(1000, -1, -1, dtype=np.int64)
    (out,) = ga.multi_take([ga.to_gpu(a)], ga.to_gpu(idx), stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out.get(), a[::-1])


def test_multi_take_put_bad_input() -> None:
    a = ga.to_gpu(random_array(10, np.float32))
    idx = ga.to_gpu(np.array([0, 10], np.int32))
    with pytest.raises(IndexError, match="outside the array of 10"):
        ga.multi_take([a], idx)
    with pytest.raises(IndexError, match="offset 5"):
        ga.multi_take_put([a], ga.to_gpu(np.array([0, 1], np.int32)),
                          ga.to_gpu(np.array([0, 6], np.int32)), dest_shape=(4,),
                          src_offsets=[5])
    with pytest.raises(IndexError):
        ga.multi_put([a], ga.to_gpu(np.array([-1], np.int32)), dest_shape=(4,))
    with pytest.raises(TypeError, match="one dtype"):
        ga.multi_take([a, ga.zeros(10, np.float64)], ga.to_gpu(np.array([0], np.int32)))
    with pytest.raises(TypeError, match="same dtype"):
        ga.multi_take_put([a], ga.to_gpu(np.array([0], np.int32)),
                          ga.to_gpu(np.array([0], np.int64)), dest_shape=(4,))
    with pytest.raises(ValueError, match="same shape"):
        ga.multi_take_put([a], ga.to_gpu(np.array([0, 1], np.int32)),
                          ga.to_gpu(np.array([0], np.int32)), dest_shape=(4,))
    with pytest.raises(ValueError, match="1-D"):
        ga.multi_take([a], ga.to_gpu(np.zeros((2, 2), np.int32)))
    with pytest.raises(TypeError, match="integers"):
        ga.multi_take([a], ga.to_gpu(np.zeros(2, np.float32)))
    with pytest.raises(ValueError, match="dest_shape"):
        ga.multi_put([a], ga.to_gpu(np.array([0], np.int32)))
    with pytest.raises(ValueError, match="src_offsets"):
        ga.multi_take_put([a], ga.to_gpu(np.array([0], np.int32)),
                          ga.to_gpu(np.array([0], np.int32)), dest_shape=(4,),
                          src_offsets=[0, 1])
    with pytest.raises(ValueError, match="out has"):
        ga.multi_take([a], ga.to_gpu(np.array([0], np.int32)), out=[])
    assert ga.multi_take([], idx) == []


def test_register_dtype() -> None:
    # (The registry is process-wide: a dtype no other test registers.)
    pair = np.dtype([("registry_test_a", np.float32), ("registry_test_b", np.int32)])
    assert tools.get_or_register_dtype("cudakit_test_pair", pair) == pair
    assert tools.dtype_to_ctype(pair) == "cudakit_test_pair"
    assert tools.get_or_register_dtype("cudakit_test_pair") == pair
    # The same registration again is fine; another dtype under the name is not.
    tools.register_dtype(pair, "cudakit_test_pair")
    with pytest.raises(ValueError, match="already registered"):
        tools.get_or_register_dtype("cudakit_test_pair", np.dtype([("a", np.int8)]))
    with pytest.raises(ValueError, match="alias_ok"):
        tools.register_dtype(pair, "cudakit_test_other_name")
    tools.register_dtype(pair, "cudakit_test_other_name", alias_ok=True)
    assert tools.dtype_to_ctype(pair) == "cudakit_test_pair"
    with pytest.raises(KeyError):
        tools.get_or_register_dtype("cudakit_test_never_registered")
    assert tools.dtype_to_ctype(np.float32) == "float"
    with pytest.raises(drv.ArgumentError, match="get_or_register_dtype"):
        tools.dtype_to_ctype(np.dtype([("b", np.int64), ("c", np.int8)]))


def test_get_curand_version_passes_pycudas_feature_checks() -> None:
    # libcurand's version where it loads, else the device-API level the XORWOW
    # / MRG32k3a generators provide; PyCUDA's checks compare against 5.0.
    assert get_curand_version() >= (5, 0, 0)


@pytest.mark.parametrize("shape", [(4, 32), (8, 4, 4), (128,)])
def test_reshape_order_gives_that_layout_with_numpys_values(shape: tuple[int, ...]) -> None:
    a = random_array((8, 16), np.float32)
    for source in (ga.to_gpu(a), ga.to_gpu(np.asfortranarray(a))):
        host = source.get()
        for order in ("C", "F"):
            r = source.reshape(shape, order=order)
            assert r.flags.c_contiguous if order == "C" else r.flags.f_contiguous
            np.testing.assert_array_equal(r.get(), host.reshape(shape, order=order))
    # A view where the layout allows one: writes reach the source.
    flat = ga.to_gpu(random_array(128, np.float32))
    flat.reshape((4, 32), order="F")[0, 1] = 7
    assert flat.get()[4] == 7


def test_philox_refuses_a_seed_getter() -> None:
    from cudakit.curandom import PhiloxRandomNumberGenerator

    with pytest.raises(TypeError, match="seed_getter"):
        PhiloxRandomNumberGenerator(seed_getter=lambda count: None)
    g = PhiloxRandomNumberGenerator(seed=3, offset=8)
    assert g.offset == 8
