"""GPUArray: creation, host transfers, properties, views, indexing, conversion."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as ga
from gpuarray_helpers import ALL_DTYPES, ODD_SIZES, assert_matches, random_array


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip_every_dtype(dtype) -> None:
    a = random_array((7, 13), dtype)
    g = ga.to_gpu(a)
    assert g.shape == (7, 13) and g.dtype == a.dtype and g.size == 91
    assert g.nbytes == a.nbytes and g.itemsize == a.itemsize and g.ndim == 2
    assert g.strides == a.strides
    assert len(g) == 7
    np.testing.assert_array_equal(g.get(), a)


@pytest.mark.parametrize("size", ODD_SIZES)
def test_creation_functions(size: int) -> None:
    assert_matches(ga.zeros(size, np.float32), np.zeros(size, np.float32))
    assert_matches(ga.ones((size, 2), np.int16), np.ones((size, 2), np.int16))
    e = ga.empty(size, np.complex64)
    assert e.shape == (size,) and e.dtype == np.complex64
    assert ga.empty(size).dtype == np.float64  # PyCUDA's and numpy's default


def test_like_functions_keep_shape_dtype_and_order() -> None:
    g = ga.to_gpu(random_array((3, 5), np.float32))
    for f, v in ((ga.zeros_like, 0), (ga.ones_like, 1)):
        r = f(g)
        assert r.shape == (3, 5) and r.dtype == np.float32
        np.testing.assert_array_equal(r.get(), v)
    assert ga.empty_like(g).shape == (3, 5)
    assert ga.zeros_like(g, dtype=np.int8).dtype == np.int8
    f_order = ga.empty((3, 5), np.float32, order="F")
    assert f_order.flags.f_contiguous and not f_order.flags.c_contiguous
    assert ga.empty_like(f_order).flags.f_contiguous


@pytest.mark.parametrize("args", [(10,), (2, 11), (0.5, 3.7, 0.25), (5, -5, -2)])
def test_arange_matches_numpy(args) -> None:
    assert_matches(ga.arange(*args), np.arange(*args))
    assert_matches(ga.arange(*args, dtype=np.float32), np.arange(*args, dtype=np.float32))


def test_get_into_given_array_and_async() -> None:
    a = random_array(1001, np.float64)
    g = ga.to_gpu(a)
    out = np.empty_like(a)
    assert g.get(out) is out
    np.testing.assert_array_equal(out, a)
    host = g.get_async()
    drv.Context.synchronize()  # an async copy is complete only after a synchronisation
    np.testing.assert_array_equal(host, a)
    g2 = ga.to_gpu_async(a)
    np.testing.assert_array_equal(g2.get(), a)
    strided = np.empty((1001, 2))[:, 0]
    g.get(strided)
    np.testing.assert_array_equal(strided, a)


def test_set_and_set_async() -> None:
    g = ga.empty((4, 5), np.int32)
    a = random_array((4, 5), np.int32)
    g.set(a)
    np.testing.assert_array_equal(g.get(), a)
    b = random_array((4, 5), np.int32)
    g.set_async(b)
    np.testing.assert_array_equal(g.get(), b)
    g.set(np.asfortranarray(a))
    np.testing.assert_array_equal(g.get(), a)


def test_set_with_wrong_size_or_dtype_is_refused() -> None:
    g = ga.zeros(10, np.float32)
    with pytest.raises(ValueError, match="size"):
        g.set(np.zeros(11, np.float32))
    with pytest.raises(TypeError, match="dtype"):
        g.set(np.zeros(10, np.float64))
    np.testing.assert_array_equal(g.get(), 0)  # nothing written


def test_fill_returns_self_and_converts() -> None:
    g = ga.empty(1001, np.float32)
    assert g.fill(2.5) is g
    np.testing.assert_array_equal(g.get(), np.full(1001, 2.5, np.float32))
    i = ga.empty(9, np.uint8).fill(200)
    np.testing.assert_array_equal(i.get(), 200)
    with pytest.raises(TypeError):
        g.fill("x")


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex64, np.bool_])
def test_astype(dtype) -> None:
    a = random_array(301, np.float64, low=0, high=100)
    assert_matches(ga.to_gpu(a).astype(dtype), a.astype(dtype))


def test_copy_is_new_memory() -> None:
    a = random_array(50, np.float32)
    g = ga.to_gpu(a)
    c = g.copy()
    c.fill(0)
    np.testing.assert_array_equal(g.get(), a)
    assert c.gpudata != g.gpudata


def test_reshape_ravel_view_transpose_squeeze() -> None:
    a = random_array((4, 6), np.float32)
    g = ga.to_gpu(a)
    assert_matches(g.reshape(3, 8), a.reshape(3, 8))
    assert_matches(g.reshape((2, -1)), a.reshape(2, -1))
    assert_matches(g.reshape(24, order="F"), a.reshape(24, order="F"))
    assert g.reshape(3, 8).gpudata == g.gpudata  # a view
    assert_matches(g.ravel(), a.ravel())
    assert_matches(g.T, a.T)
    assert_matches(g.transpose(), a.transpose())
    b = random_array((2, 3, 4), np.float32)
    assert_matches(ga.to_gpu(b).transpose(2, 0, 1), b.transpose(2, 0, 1))
    assert_matches(ga.to_gpu(b).transpose((1, 0, 2)), b.transpose((1, 0, 2)))
    assert_matches(g.view(np.int32), a.view(np.int32))
    c = random_array((1, 5, 1), np.int16)
    assert_matches(ga.to_gpu(c).squeeze(), c.squeeze())
    with pytest.raises(ValueError):
        g.reshape(5, 5)


def test_transposed_array_flags_and_strides() -> None:
    a = random_array((3, 5), np.float64)
    t = ga.to_gpu(a).T
    assert t.strides == a.T.strides
    assert t.flags.f_contiguous and not t.flags.c_contiguous and t.flags.forc


def test_real_imag_conj() -> None:
    a = random_array(333, np.complex128)
    g = ga.to_gpu(a)
    assert_matches(g.real, a.real)
    assert_matches(g.imag, a.imag)
    assert_matches(g.conj(), a.conj())
    f = random_array(10, np.float32)
    assert_matches(ga.to_gpu(f).real, f.real)
    assert_matches(ga.to_gpu(f).imag, f.imag)


KEYS = [3, -1, slice(2, 9), slice(None, None, -2), (slice(1, 4), 2), (Ellipsis, 1),
        (None, slice(0, 3)), (1, None, slice(None, None, 3)), (slice(5, 1, -1), slice(None))]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key) -> None:
    a = random_array((11, 7), np.float32)
    assert_matches(ga.to_gpu(a)[key], a[key])


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_setitem_matches_numpy(key) -> None:
    a = random_array((11, 7), np.float32)
    g = ga.to_gpu(a)
    value = random_array(np.shape(a[key]), np.float32)
    g[key] = ga.to_gpu(value) if np.ndim(value) else float(value)
    a[key] = value
    np.testing.assert_array_equal(g.get(), a)


def test_setitem_scalar_numpy_and_broadcast() -> None:
    a = random_array((6, 5), np.int32)
    g = ga.to_gpu(a)
    g[2] = 7
    a[2] = 7
    row = random_array(5, np.int32)
    g[3:5] = row  # numpy array value, broadcast over rows
    a[3:5] = row
    g[:, 0] = ga.to_gpu(np.arange(6, dtype=np.int32))
    a[:, 0] = np.arange(6)
    np.testing.assert_array_equal(g.get(), a)
    with pytest.raises(ValueError):
        g[0:2] = ga.to_gpu(np.ones(3, np.int32))


def test_index_errors() -> None:
    g = ga.to_gpu(np.arange(5.0))
    with pytest.raises(IndexError):
        g[5]
    with pytest.raises(IndexError):
        g[1, 2]
    with pytest.raises(IndexError):
        g["a"]
    with pytest.raises(TypeError):
        len(ga.to_gpu(np.float32(1.0)))


def test_integer_array_index_is_take() -> None:
    a = random_array(100, np.float64)
    idx = np.array([5, 0, 99, -1, 3])
    assert_matches(ga.to_gpu(a)[ga.to_gpu(idx)], a[idx])
    assert_matches(ga.to_gpu(a)[[1, 2, 3]], a[[1, 2, 3]])


def test_scalar_conversions_and_repr() -> None:
    s = ga.sum(ga.to_gpu(np.arange(4.0)))
    assert float(s) == 6.0 and int(s) == 6 and complex(s) == 6 and bool(s)
    with pytest.raises(ValueError):
        bool(ga.to_gpu(np.arange(3.0)))
    assert "array(" in repr(ga.to_gpu(np.arange(3.0)))


def test_gpudata_and_ptr_are_device_addresses() -> None:
    g = ga.to_gpu(np.arange(10, dtype=np.float32))
    assert isinstance(g.gpudata, int) and g.ptr == g.gpudata
    assert g[2:].gpudata == g.gpudata + 8


def test_constructor_pycuda_signature() -> None:
    g = ga.GPUArray((3, 4), np.float32)
    assert g.shape == (3, 4) and g.dtype == np.float32
    base = ga.to_gpu(np.arange(12, dtype=np.float32))
    v = ga.GPUArray((2, 3), np.float32, gpudata=base.gpudata, base=base)
    np.testing.assert_array_equal(v.get(), np.arange(6).reshape(2, 3))
    with pytest.raises(TypeError):
        ga.GPUArray((2,), "not-a-dtype")


def test_bad_dtype_is_type_error() -> None:
    with pytest.raises(TypeError):
        ga.zeros(3, np.dtype("U4"))
    with pytest.raises(TypeError):
        ga.to_gpu(np.array(["a", "b"]))


def test_reverse_and_mul_add() -> None:
    a = random_array(17, np.float32)
    b = random_array(17, np.float32)
    assert_matches(ga.to_gpu(a).reverse(), a[::-1].copy())
    assert_matches(ga.to_gpu(a).mul_add(2.0, ga.to_gpu(b), 3.0), 2 * a + 3 * b)


def test_texture_binding_needs_a_texture_reference() -> None:
    with pytest.raises(drv.ArgumentError, match="TextureReference"):
        ga.to_gpu(np.arange(3.0)).bind_to_texref(None)
    with pytest.raises(drv.ArgumentError, match="TextureReference"):
        ga.to_gpu(np.arange(3.0)).bind_to_texref_ext(None, allow_double_hack=True)


def test_view_to_another_itemsize_rescales_the_last_axis() -> None:
    a = random_array((8, 16), np.float32)
    g = ga.to_gpu(a)
    assert_matches(g.view(np.complex64), a.view(np.complex64))
    assert_matches(g.view(np.int16), a.view(np.int16))
    assert_matches(g[:, 2:6].view(np.float64), a[:, 2:6].view(np.float64))
    with pytest.raises(ValueError):
        ga.to_gpu(random_array((3, 5), np.float32)).view(np.float64)
    with pytest.raises(ValueError):
        g.T.view(np.float64)


def test_fortran_ordered_host_arrays_keep_their_layout() -> None:
    a = np.asfortranarray(random_array((22, 33), np.float64))
    g = ga.to_gpu(a)
    assert g.strides == a.strides and g.flags.f_contiguous
    np.testing.assert_array_equal(g.get(), a)


def test_transpose_axes_keyword() -> None:
    a = random_array((3, 4, 5), np.int32)
    assert_matches(ga.to_gpu(a).transpose(axes=(1, 0, 2)), a.transpose(1, 0, 2))


def test_shapes_given_as_numpy_arrays() -> None:
    assert ga.empty(np.array(3), np.float32).shape == (3,)
    assert ga.empty(np.array([2, 3]), np.float32).shape == (2, 3)
    assert ga.zeros(np.int64(4)).shape == (4,)


def test_conj_and_mul_add_with_out() -> None:
    z = random_array(50, np.complex64)
    out = ga.empty(50, np.complex64)
    assert ga.to_gpu(z).conj(out=out) is out
    assert_matches(out, z.conj())
    a, b = random_array(50, np.float32), random_array(50, np.float32)
    c = ga.empty(50, np.float32)
    assert ga.to_gpu(a).mul_add(2, ga.to_gpu(b), 3, out=c) is c
    np.testing.assert_allclose(c.get(), 2 * a + 3 * b, rtol=1e-6)


def test_copy_keeps_fortran_order_and_like_order_a() -> None:
    a = np.asfortranarray(random_array((22, 33), np.float64))
    g = ga.to_gpu(a)
    assert g.copy().strides == a.strides
    assert g.copy(order="C").strides == np.ascontiguousarray(a).strides
    np.testing.assert_array_equal(g.copy().get(), a)
    for f in (ga.empty_like, ga.zeros_like, ga.ones_like):
        assert f(g, order="A").flags.f_contiguous
        assert f(g, order="C").flags.c_contiguous
