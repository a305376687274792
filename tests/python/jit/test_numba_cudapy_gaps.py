"""Constructs and errors numba-cuda's cudapy tests use: arrays of records as
constant memory, records with a field off its alignment (a type, refused
when a kernel uses it), and the index checks of the cache-hinted loads."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import types
from cudakit.cuda.np.numpy_support import from_dtype
from cudakit.cuda.translate.errors import TypingError

from .interpreted import run_threads

RNG = np.random.default_rng(2020)
N = 37  # not a multiple of the block

RECORD = np.dtype([("x", np.float64), ("y", np.int64), ("b", np.uint8), ("h", np.float32, 3)],
                  align=True)
TABLE = np.zeros(N, dtype=RECORD)
TABLE["x"] = RNG.standard_normal(N)
TABLE["y"] = RNG.integers(-1000, 1000, N)
TABLE["b"] = RNG.integers(0, 255, N)
TABLE["h"] = RNG.standard_normal((N, 3)).astype(np.float32)


def test_array_of_records_as_constant_memory():
    @cuda.jit
    def read(xs, ys, bs, hs):
        table = cuda.const.array_like(TABLE)
        i = cuda.grid(1)
        if i < xs.shape[0]:
            xs[i] = table[i].x
            ys[i] = table[i]["y"]
            bs[i] = table[i].b
            hs[i] = table[i].h[0] + table[i].h[1] * table[i].h[2]

    xs, ys = np.zeros(N), np.zeros(N, np.int64)
    bs, hs = np.zeros(N, np.uint8), np.zeros(N, np.float32)
    read[3, 16](xs, ys, bs, hs)
    np.testing.assert_array_equal(xs, TABLE["x"])
    np.testing.assert_array_equal(ys, TABLE["y"])
    np.testing.assert_array_equal(bs, TABLE["b"])
    h = TABLE["h"]
    np.testing.assert_allclose(hs, h[:, 0] + h[:, 1] * h[:, 2], rtol=1e-6)


def test_store_into_a_constant_record_is_refused():
    @cuda.jit
    def write(xs):
        table = cuda.const.array_like(TABLE)
        table[cuda.grid(1)].x = xs[0]

    with pytest.raises(TypingError, match="constant arrays are read-only"):
        write[1, 1](np.ones(1))


MISALIGNED = np.dtype([("a", np.int32), ("b", np.float64)])  # b at offset 4


def test_misaligned_record_is_a_type_a_kernel_refuses():
    record = from_dtype(MISALIGNED)  # a type, as in Numba
    with pytest.raises(TypeError, match="type float64 is not aligned"):
        @cuda.jit((record[:],))
        def copy_field(a):
            i = cuda.grid(1)
            a[i].a = a[i].b
    with pytest.raises(TypeError, match="align=True"):  # nor device arrays of it
        cuda.device_array(3, MISALIGNED)


@pytest.mark.parametrize("body, signature, message", [
    (lambda x: cuda.ldcs(x, 1.0), (types.float32[::1],), "float64 is not a valid index"),
    (lambda x: cuda.ldcs(x, (1, 2)), (types.float32[::1],), "Expected 1 indices, got 2"),
    (lambda x: cuda.ldcs(x, 1), (types.float32[:, ::1],), "Expected 2 indices, got a scalar"),
    (lambda x: cuda.ldcs(x, (1,)), (types.float32[:, ::1],), "Expected 2 indices, got 1"),
    (lambda x: cuda.stcg(x, 0, 1), (types.complex64[::1],),
     "stcg requires array of integer or float type"),
])
def test_cache_hint_index_and_type_errors(body, signature, message):
    with pytest.raises(TypingError, match=message):
        cuda.compile_ptx(body, signature)


def test_constant_and_local_bytes_of_a_kernel():
    values = RNG.integers(-99, 99, 32)

    @cuda.jit("void(int64[::1])")
    def uses_both(x):
        table = cuda.const.array_like(values)
        scratch = cuda.local.array(100, dtype=np.float32)
        i = cuda.grid(1)
        for j in range(100):
            scratch[j] = j * table[i]
        # An index known only at run time keeps the array in local memory on
        # a GPU (the compiler cannot fold it away).
        x[i] = table[i] + np.int64(scratch[x[i] % 100])

    picks = RNG.integers(0, 100, 32)
    x = picks.copy()
    uses_both[1, 32](x)
    np.testing.assert_array_equal(x, values * (picks + 1))
    # The driver's measures on a GPU; on the CPU backend what the kernel holds.
    assert uses_both.get_const_mem_size() >= values.nbytes
    assert uses_both.get_local_mem_per_thread() >= 100 * 4


@pytest.mark.parametrize("alignment", [None, 16, 64, 256])
def test_local_and_shared_arrays_with_an_alignment(alignment):
    @cuda.jit
    def addresses(out, values):
        i = cuda.grid(1)
        scratch = cuda.local.array(5, dtype=np.uint8, alignment=alignment)
        tile = cuda.shared.array((2, 3), dtype=np.float64, alignment=alignment)
        if i == 0:
            out[0] = scratch.ctypes.data
            out[1] = tile.ctypes.data
            out[2] = values.ctypes.data
        scratch[0] = values[i]
        values[i] = scratch[0] + 1

    out, values = np.zeros(3, np.uint64), RNG.integers(0, 200, N).astype(np.uint8)
    d_values = cuda.to_device(values)
    addresses[3, 16](out, d_values)
    np.testing.assert_array_equal(d_values.copy_to_host(), values + 1)
    assert out[0] != 0 and out[1] != 0
    assert int(out[2]) == d_values.device_ctypes_pointer.value
    if alignment is not None:
        assert out[0] % alignment == 0 and out[1] % alignment == 0


@pytest.mark.parametrize("alignment, error, message", [
    (-1, ValueError, "Alignment must be positive"),
    (3, ValueError, "Alignment must be a power of 2"),
    (4, ValueError, "Alignment must be a multiple of 8"),
    (1.0, TypingError, "alignment must be a constant integer"),
    ("16", TypingError, "alignment must be a constant integer"),
])
def test_bad_alignments_are_refused(alignment, error, message):
    @cuda.jit
    def local_array(out):
        scratch = cuda.local.array(4, dtype=np.uint64, alignment=alignment)
        out[0] = scratch.ctypes.data

    with pytest.raises(error, match=message):
        local_array[1, 1](np.zeros(1, np.uint64))


def test_fastmath_float_division_by_zero_is_ieee_even_with_debug():
    def divide(r, x, y):
        r[cuda.grid(1)] = x / y

    sig = (types.float32[::1], types.float32, types.float32)
    fast = cuda.jit(sig, fastmath=True, debug=True, opt=False)(divide)
    precise = cuda.jit(sig, debug=True, opt=False)(divide)
    r = np.zeros(4, np.float32)
    fast[1, 4](r, np.float32(-3.0), np.float32(0.0))
    np.testing.assert_array_equal(r, np.full(4, -np.inf, np.float32))
    with pytest.raises(ZeroDivisionError):
        precise[1, 4](r, np.float32(1.0), np.float32(0.0))


def test_forall_refuses_a_negative_count_and_grid_a_variable_ndim():
    @cuda.jit
    def fill(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    with pytest.raises(ValueError, match="Can't create ForAll with negative task count"):
        fill.forall(-1)

    def variable_ndim(n):
        cuda.grid(n)

    with pytest.raises(TypingError, match="RequireLiteralValue"):
        cuda.jit("void(int32)")(variable_ndim)


@cuda.jit(device=True)
def _store_by_mode(out, i, mode):
    if mode == "twice":
        out[i] = 2.0 * i
    elif mode != "zero":
        out[i] = -1.0 * i
    else:
        out[i] = 0.0


@cuda.jit
def _modes(a, b, c):
    i = cuda.grid(1)
    if i < a.shape[0]:
        _store_by_mode(a, i, "twice")
        _store_by_mode(b, i, "zero")
        _store_by_mode(c, i, "other")


def test_string_constant_passed_to_a_device_function():
    args = [RNG.standard_normal(N) for _ in range(3)]
    expected = run_threads(_modes, N, *args)
    _modes[3, 16](*args)
    for got, want in zip(args, expected):
        np.testing.assert_array_equal(got, want)


def test_an_error_in_a_device_function_names_its_caller():
    @cuda.jit(device=True)
    def uses_undefined(x):
        return floor(x)  # noqa: F821 (not defined, on purpose)

    @cuda.jit
    def calls_it():
        uses_undefined(1.5)

    with pytest.raises(TypingError) as raised:
        calls_it[1, 1]()
    text = str(raised.value)
    assert "NameError: name 'floor' is not defined" in text
    assert "resolving callee type: type(CUDADispatcher" in text and "in calls_it" in text


def test_auto_device_refuses_a_strided_host_array_as_numba_does():
    from cudakit.cuda.cudadrv import devicearray
    x = RNG.standard_normal(11)
    with pytest.raises(ValueError, match="non-contiguous buffer"):
        devicearray.auto_device(x[:-1:2])
    device, copied = devicearray.auto_device(x)
    assert copied
    np.testing.assert_array_equal(device.copy_to_host(), x)
    # cuda.to_device copies a strided array (what the kernel sees is its items).
    np.testing.assert_array_equal(cuda.to_device(x[:-1:2]).copy_to_host(), x[:-1:2])


@cuda.jit
def _remainder_and_modf(x, y, r, frac, whole, r32):
    i = cuda.grid(1)
    if i < x.shape[0]:
        r[i] = math.remainder(x[i], y[i])
        frac[i], whole[i] = math.modf(x[i])
        r32[i] = math.remainder(np.float32(x[i]), np.float32(y[i]))


def test_math_remainder_and_modf():
    x = RNG.uniform(-20, 20, N)
    y = RNG.uniform(0.5, 3, N) * RNG.choice([-1, 1], N)
    args = [x, y, np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N, np.float32)]
    expected = run_threads(_remainder_and_modf, N, *args)
    _remainder_and_modf[3, 16](*args)
    for got, want in zip(args[2:], expected[2:]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_a_shape_known_only_at_run_time_is_refused_with_numbas_words():
    def variable_shape(a):
        tile = cuda.shared.array(shape=(1, a[0]), dtype=np.float32)
        a[0] = tile[0, 0]

    with pytest.raises(TypingError) as raised:
        cuda.jit((types.int32[::1],))(variable_shape)
    text = str(raised.value)
    assert "No implementation of function Function(<function shared.array" in text
    assert ">>> array(shape=Tuple(Literal[int](1), int32), dtype=class(float32))" in text


def test_print_of_more_than_32_items_emits_the_format_string(capfd):
    @cuda.jit
    def many():
        print(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
              21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32)

    with pytest.warns(UserWarning, match="cannot print more than 32 items"):
        many[1, 1]()
    cuda.synchronize()
    assert " ".join(["%lld"] * 33) in capfd.readouterr().out


def test_vectorize_warns_that_nopython_is_redundant():
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        add = cuda.vectorize(["float32(float32, float32)"], nopython=True)(lambda a, b: a + b)
    a, b = RNG.standard_normal(N).astype(np.float32), RNG.standard_normal(N).astype(np.float32)
    np.testing.assert_array_equal(add(a, b), a + b)


def test_debuginfo_default_and_opt_level_settings(monkeypatch):
    from cudakit.cuda import config
    monkeypatch.setattr(config, "CUDA_DEBUGINFO_DEFAULT", 1)
    monkeypatch.setattr(config, "OPT", config._OptLevel("max"))
    with pytest.warns(UserWarning, match="not supported by CUDA"):
        cuda.jit()
    monkeypatch.setattr(config, "OPT", config._OptLevel(0))

    @cuda.jit  # debug=True, opt=False by default now: Python's errors
    def divide(r, x, y):
        r[0] = x // y

    with pytest.raises(ZeroDivisionError):
        divide[1, 1](np.zeros(1, np.int64), 1, 0)
    assert config.OPT.is_opt_max is False and config._OptLevel("max") == 3
