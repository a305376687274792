"""numpy's functions and ufuncs on GPUArrays (__array_function__ and
__array_ufunc__): each result is a GPUArray computed on the device, equal to
numpy's on the host copy of the same fresh random input (odd shapes); host
arrays among the operands, functions without a device implementation and
np.asarray(gpuarray) are refused with a TypeError that says what to do."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from child_process import checked, run_code
from cudakit import gpuarray
from gpuarray_helpers import random_array, tolerance

SHAPES = [(37,), (37, 41), (5, 7, 3)]
FLOATS = [np.float32, np.float64]


def check(result, expected) -> None:
    """A GPUArray equal to numpy's result in shape, dtype and value."""
    assert isinstance(result, gpuarray.GPUArray), type(result)
    expected = np.asarray(expected)
    host = result.get()
    assert host.shape == expected.shape, (host.shape, expected.shape)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    np.testing.assert_allclose(host, expected, equal_nan=True, **tolerance(expected.dtype))


def abs_sum(terms, axis=None, keepdims=False):
    return np.sum(np.abs(terms).astype(np.float64), axis=axis, keepdims=keepdims)


def check_sum(result, expected, scale) -> None:
    """A float sum within a bound that scales with ``scale``, the sum of the
    terms' sizes (the terms may cancel: the result's relative error means
    nothing)."""
    assert isinstance(result, gpuarray.GPUArray), type(result)
    host = result.get()
    expected = np.asarray(expected)
    assert host.shape == expected.shape and host.dtype == expected.dtype
    eps = np.finfo(expected.dtype).eps
    assert np.all(np.abs(host.astype(np.float64) - expected) <= 8 * eps * scale + 1e-30), \
        (host, expected)


@pytest.fixture(params=[(s, d) for s in SHAPES for d in FLOATS],
                ids=lambda p: f"{'x'.join(map(str, p[0]))}-{np.dtype(p[1]).name}")
def pair(request):
    host = random_array(request.param[0], request.param[1])
    return host, gpuarray.to_gpu(host)


# ---- reductions ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sums_along_every_axis(pair, name, keepdims) -> None:
    host, device = pair
    if name == "prod":
        host = random_array(host.shape, host.dtype, low=0.9, high=1.1)
        device = gpuarray.to_gpu(host)
    function = getattr(np, name)
    for axis in [None, *range(host.ndim)]:
        result = function(device, axis=axis, keepdims=keepdims)
        expected = function(host, axis=axis, keepdims=keepdims)
        if name == "prod":
            check(result, expected)
            continue
        count = host.size if axis is None else host.shape[axis]
        check_sum(result * count if name == "mean" else result,
                  expected * count if name == "mean" else expected,
                  abs_sum(host, axis, keepdims))


def test_sum_with_dtype_and_out(pair) -> None:
    host, device = pair
    check_sum(np.sum(device, axis=0, dtype=np.float64), np.sum(host, axis=0, dtype=np.float64),
              abs_sum(host, 0))
    out = gpuarray.empty(host.shape[1:], host.dtype)
    assert np.sum(device, axis=0, out=out) is out
    check_sum(out, np.sum(host, axis=0), abs_sum(host, 0))
    ints = random_array((37, 5), np.int32)
    check(np.sum(gpuarray.to_gpu(ints), axis=1), np.sum(ints, axis=1))
    check(np.mean(gpuarray.to_gpu(ints)), np.mean(ints))


@pytest.mark.parametrize("name", ["min", "max", "amin", "amax", "std", "var"])
def test_extremes_and_spreads(pair, name) -> None:
    host, device = pair
    function = getattr(np, name)
    for axis in [None, *range(host.ndim)]:
        check(function(device, axis=axis), function(host, axis=axis))
    check(function(device, axis=-1, keepdims=True), function(host, axis=-1, keepdims=True))
    if name in ("std", "var"):
        check(function(device, axis=0, ddof=1), function(host, axis=0, ddof=1))


def test_all_any_and_nan_tests() -> None:
    host = random_array((37, 41), np.float32)
    host[3, 4], host[5, :] = np.nan, np.inf
    device = gpuarray.to_gpu(host)
    for function in (np.isnan, np.isfinite, np.isinf):
        check(function(device), function(host))
    for function in (np.all, np.any):
        mask = host > 0
        for axis in (None, 0, 1):
            check(function(gpuarray.to_gpu(mask), axis=axis), function(mask, axis=axis))
    check(np.all(np.isfinite(device)), np.all(np.isfinite(host)))


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanmax", "nanmin", "nanprod"])
def test_nan_reductions(name) -> None:
    host = random_array((37, 41), np.float32, low=0.9, high=1.1)
    host[3, 4], host[7, :] = np.nan, np.nan
    function = getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy: an all-NaN slice
        for axis in (None, 0, 1):
            check(function(gpuarray.to_gpu(host), axis=axis), function(host, axis=axis))


def test_ufunc_reduce_and_accumulate(pair) -> None:
    host, device = pair
    check_sum(np.add.reduce(device), np.add.reduce(host), abs_sum(host, 0))
    check_sum(np.add.reduce(device, axis=-1, keepdims=True),
              np.add.reduce(host, axis=-1, keepdims=True), abs_sum(host, -1, True))
    check(np.maximum.reduce(device, axis=None), np.maximum.reduce(host, axis=None))
    check(np.minimum.reduce(device), np.minimum.reduce(host))
    check_sum(np.add.accumulate(device), np.add.accumulate(host), np.cumsum(np.abs(host), 0))
    check_sum(np.cumsum(device, axis=-1), np.cumsum(host, axis=-1),
              np.cumsum(np.abs(host), -1))


# ---- ufuncs --------------------------------------------------------------------------

UNARY = ["sqrt", "exp", "log", "sin", "cos", "tanh", "arctan", "floor", "ceil", "rint",
         "absolute", "negative", "sign", "square", "reciprocal", "log1p", "expm1", "cbrt"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs(pair, name) -> None:
    host, device = pair
    if name in ("sqrt", "log", "log1p", "reciprocal"):
        host = random_array(host.shape, host.dtype, low=0.5, high=50)
        device = gpuarray.to_gpu(host)
    elif name in ("exp", "expm1"):
        host = random_array(host.shape, host.dtype, low=-5, high=5)
        device = gpuarray.to_gpu(host)
    check(getattr(np, name)(device), getattr(np, name)(host))


BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "arctan2",
          "hypot", "fmod", "copysign", "fmax", "fmin"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs_with_arrays_scalars_and_broadcasting(name) -> None:
    function = getattr(np, name)
    low = 0.5 if name == "power" else -50
    a = random_array((37, 41), np.float32, low=low, high=3 if name == "power" else 50,
                     nonzero=True)
    b = random_array((41,), np.float32, low=low, high=3 if name == "power" else 50,
                     nonzero=True)
    da, db = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    check(function(da, db), function(a, b))
    check(function(db, da), function(b, a))
    for scalar in (np.float32(1.5), 2.0, np.array(1.25, np.float32)):
        check(function(da, scalar), function(a, scalar))
        check(function(scalar, da), function(scalar, a))


@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal", "equal",
                                  "not_equal"])
def test_comparisons(name) -> None:
    a = random_array((37, 41), np.int32, low=-3, high=3)
    b = random_array((37, 41), np.int32, low=-3, high=3)
    function = getattr(np, name)
    check(function(gpuarray.to_gpu(a), gpuarray.to_gpu(b)), function(a, b))
    check(function(gpuarray.to_gpu(a), 1), function(a, 1))
    check(function(np.int32(1), gpuarray.to_gpu(a)), function(np.int32(1), a))


def test_numpy_scalar_operators_stay_on_the_device() -> None:
    a = random_array((37,), np.float32)
    device = gpuarray.to_gpu(a)
    for result, expected in ((np.float32(2) * device, np.float32(2) * a),
                             (np.float64(2) - device, np.float64(2) - a),
                             (np.float32(1) < device, np.float32(1) < a)):
        check(result, expected)


def test_ufunc_out_and_dtype(pair) -> None:
    host, device = pair
    out = gpuarray.empty_like(device)
    assert np.multiply(device, 3, out=out) is out
    check(out, host * 3)
    assert np.exp(device / 50, out=(out,)) is out
    check(out, np.exp(host / 50))
    check(np.add(device, device, dtype=np.float64), np.add(host, host, dtype=np.float64))
    np.add(device, 1, out=device)  # in place
    check(device, host + 1)
    scalar_out = gpuarray.empty((), np.float64)
    check(np.add(1.5, 2.0, out=scalar_out), np.float64(3.5))


def test_matmul_and_dot() -> None:
    a = random_array((37, 41), np.float32)
    b = random_array((41, 13), np.float32)
    v = random_array((41,), np.float32)
    da, db, dv = (gpuarray.to_gpu(x) for x in (a, b, v))
    for result, expected, terms in (
            (np.matmul(da, db), a @ b, np.abs(a) @ np.abs(b)),
            (da @ db, a @ b, np.abs(a) @ np.abs(b)),
            (np.dot(da, db), a @ b, np.abs(a) @ np.abs(b)),
            (np.dot(da, dv), a @ v, np.abs(a) @ np.abs(v)),
            (np.dot(dv, dv), np.dot(v, v), np.dot(v, v)),
            (np.dot(db.T, da.T), b.T @ a.T, np.abs(b.T) @ np.abs(a.T)),
            (np.tensordot(da, db, axes=1), np.tensordot(a, b, axes=1), np.abs(a) @ np.abs(b))):
        host = result.get()
        assert host.shape == expected.shape and host.dtype == expected.dtype
        assert np.all(np.abs(host - expected) <= 64 * np.finfo(np.float32).eps * terms)
    stacks = random_array((2, 3, 5, 7), np.float64), random_array((2, 3, 7, 4), np.float64)
    check(np.matmul(*(gpuarray.to_gpu(s) for s in stacks)), np.matmul(*stacks))
    t = random_array((5, 7, 3), np.float64)
    check(np.tensordot(gpuarray.to_gpu(t), gpuarray.to_gpu(t), axes=([0, 1], [0, 1])),
          np.tensordot(t, t, axes=([0, 1], [0, 1])))
    check(np.dot(gpuarray.to_gpu(t), gpuarray.to_gpu(t[0].T)), np.dot(t, t[0].T))
    check(np.dot(gpuarray.to_gpu(t), gpuarray.to_gpu(t[0, 0])), np.dot(t, t[0, 0]))


# ---- joining, selection, shapes, creation --------------------------------------------

def test_concatenate_and_stack(pair) -> None:
    host, device = pair
    other = random_array(host.shape, host.dtype)
    for axis in range(host.ndim):
        check(np.concatenate([device, gpuarray.to_gpu(other)], axis=axis),
              np.concatenate([host, other], axis=axis))
    check(np.concatenate([device, device], axis=None), np.concatenate([host, host], axis=None))
    check(np.stack([device, gpuarray.to_gpu(other)], axis=-1), np.stack([host, other], axis=-1))
    check(np.concatenate([device, device], dtype=np.float64),
          np.concatenate([host, host], dtype=np.float64))


def test_where_clip_round_take(pair) -> None:
    host, device = pair
    # A Python number is weak (NEP 50): NumPy 2's where keeps the array's
    # dtype; NumPy 1.x's where ignores its weak mode, so the references take
    # the number in the array's dtype, which both give the same answer for.
    zero, one = host.dtype.type(0), host.dtype.type(1.0)
    check(np.where(device > 0, device, 0), np.where(host > 0, host, zero))
    check(np.where(device > 0, 1.0, device), np.where(host > 0, one, host))
    check(np.clip(device, -10, 10), np.clip(host, -10, 10))
    check(np.clip(device, None, 5), np.clip(host, None, 5))
    check(np.round(device), np.round(host))
    check(np.round(device, 2), np.round(host, 2))
    indices = np.array([0, 3, 1, 3])
    check(np.take(device, indices, axis=0), np.take(host, indices, axis=0))


def test_shapes_and_layouts(pair) -> None:
    host, device = pair
    check(np.reshape(device, (-1,)), np.reshape(host, (-1,)))
    check(np.transpose(device), np.transpose(host))
    check(np.ravel(device), np.ravel(host))
    check(np.expand_dims(device, 0), np.expand_dims(host, 0))
    check(np.squeeze(np.expand_dims(device, 1)), host)
    check(np.moveaxis(device, 0, -1), np.moveaxis(host, 0, -1))
    check(np.swapaxes(device, 0, -1), np.swapaxes(host, 0, -1))
    check(np.broadcast_to(device, (2,) + host.shape), np.broadcast_to(host, (2,) + host.shape))
    assert np.shape(device) == host.shape and np.ndim(device) == host.ndim
    assert np.size(device) == host.size
    assert np.result_type(device, np.float64) == np.result_type(host, np.float64)
    if host.ndim == 2:
        check(np.transpose(device, (1, 0)), host.T)


def test_copies_and_new_arrays(pair) -> None:
    host, device = pair
    copy = np.copy(device)
    check(copy, host)
    copy.fill(0)
    check(device, host)  # a copy, not a view
    if hasattr(np, "astype"):  # NumPy 2.1's
        check(np.astype(device, np.int32), np.astype(host, np.int32))
    check(np.zeros_like(device), np.zeros_like(host))
    check(np.ones_like(device, dtype=np.int16), np.ones_like(host, dtype=np.int16))
    check(np.full_like(device, 7.5), np.full_like(host, 7.5))
    check(np.zeros_like(device, shape=(3, 2)), np.zeros_like(host, shape=(3, 2)))
    empty = np.empty_like(device)
    assert isinstance(empty, gpuarray.GPUArray)
    assert empty.shape == host.shape and empty.dtype == host.dtype
    check(np.asarray(host, like=device), host)
    check(np.full((3, 4), 2.5, like=device), np.full((3, 4), 2.5))
    check(np.arange(7, like=device), np.arange(7))


# ---- refusals ------------------------------------------------------------------------

def test_host_arrays_in_ufuncs_are_refused() -> None:
    host = random_array((37,), np.float32)
    device = gpuarray.to_gpu(host)
    for call in (lambda: device + host, lambda: host + device, lambda: np.add(device, host),
                 lambda: np.maximum(host, device), lambda: np.exp(device, out=host)):
        with pytest.raises(TypeError, match=r"numpy\.ndarray \(host memory") as info:
            call()
        assert "to_gpu" in str(info.value) or "call .get()" in str(info.value)


def test_host_arrays_in_functions_are_refused() -> None:
    host = random_array((37,), np.float32)
    device = gpuarray.to_gpu(host)
    with pytest.raises(TypeError, match=r"numpy\.concatenate: an operand is a numpy\.ndarray "
                                        r"\(host memory, shape \(37,\)"):
        np.concatenate([device, host])
    with pytest.raises(TypeError, match=r"numpy\.where: an operand is a numpy\.ndarray"):
        np.where(device > 0, host, device)


@pytest.mark.parametrize("call, name", [
    (lambda a: np.median(a), "numpy.median"),
    (lambda a: np.sort(a), "numpy.sort"),
    (lambda a: np.linalg.norm(a), "numpy.linalg.norm"),
    (lambda a: np.unique(a), "numpy.unique"),
    (lambda a: np.where(a > 0), "numpy.where with only a condition"),
    (lambda a: np.add.outer(a, a), "numpy.add.outer"),
    (lambda a: np.frexp(a), "numpy.frexp"),
])
def test_functions_without_a_device_version_are_refused(call, name) -> None:
    device = gpuarray.to_gpu(random_array((37,), np.float32))
    try:
        call(device)
    except TypeError as error:  # (the traceback, holding `device`, is dropped here)
        message = str(error)
    else:
        pytest.fail(f"{name} gave no TypeError")
    assert message.startswith(name), message
    assert "call .get() on the GPUArrays first" in message, message


def test_ufunc_methods_without_a_device_version_are_refused() -> None:
    # In a child process: numpy 2.2 keeps a reference to the operand of a
    # ufunc.reduce whose __array_ufunc__ raised (it would outlive this process's
    # tests and be reported as leaked at exit).
    out = checked(run_code("""
        import numpy as np
        from cudakit import gpuarray
        a = gpuarray.to_gpu(np.arange(5.0))
        for call in (lambda: np.subtract.reduce(a), lambda: np.multiply.accumulate(a)):
            try:
                call()
            except TypeError as error:
                print(error)
    """))
    lines = out.splitlines()
    assert lines[0].startswith("numpy.subtract.reduce has no cudakit device implementation")
    assert lines[1].startswith("numpy.multiply.accumulate has no cudakit device implementation")
    assert all("call .get() on the GPUArrays first" in line for line in lines), out


def test_implicit_conversion_to_numpy_is_refused() -> None:
    device = gpuarray.to_gpu(random_array((37,), np.float32))
    for call in (lambda: np.asarray(device), lambda: np.array(device),
                 lambda: np.testing.assert_allclose(device, 0)):
        with pytest.raises(TypeError, match=r"implicit conversion of a GPUArray to a numpy "
                                            r"array is not allowed.*call \.get\(\)"):
            call()


def test_unsupported_options_are_refused() -> None:
    device = gpuarray.to_gpu(random_array((37,), np.float32))
    check(np.add(device, 1, order="K", subok=True, where=True, casting="same_kind"),
          device.get() + 1)  # numpy's defaults, given explicitly
    with pytest.raises(TypeError, match=r"numpy\.add: where= is not supported"):
        np.add(device, 1, where=device > 0)
    with pytest.raises(TypeError, match=r"numpy\.sum: where= is not supported"):
        np.sum(device, where=device > 0)
    with pytest.raises(TypeError, match=r"numpy\.sum: initial= is not supported"):
        np.sum(device, initial=1)
    with pytest.raises(TypeError, match=r"numpy\.exp: out= must be a GPUArray, got list"):
        np.exp(device, out=[1])
