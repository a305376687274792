"""Records with array and complex fields, single records and nested or
named tuples (of arrays too) as kernel arguments, rows of 2-d arrays in
`for`, complex arrays' .real / .imag, printing tuples, and
numba.cuda.extending's @overload, each checked against the interpreter
running the same Python function."""

from __future__ import annotations

import cmath
from collections import namedtuple

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import types
from cudakit.cuda.extending import overload, overload_attribute, register_jitable
from cudakit.cuda.translate.errors import TypingError

from .interpreted import run_threads

RNG = np.random.default_rng(2026)
N = 37  # not a multiple of the block
# A complex64 at offset 12 (its parts' alignment), a 1-d and a 2-d array field.
SAMPLE = np.dtype([("a", np.float64), ("g", np.int32), ("c", np.complex64),
                   ("h", np.float32, 3), ("j", np.float64, (3, 2))], align=True)


def random_samples(n: int) -> np.ndarray:
    p = np.zeros(n, SAMPLE)
    p["a"] = RNG.standard_normal(n)
    p["g"] = RNG.integers(-9, 9, n)
    p["c"] = RNG.standard_normal(n) + 1j * RNG.standard_normal(n)
    p["h"] = RNG.standard_normal((n, 3))
    p["j"] = RNG.standard_normal((n, 3, 2))
    return p


def update_samples(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        r = p[i]
        for k in range(r.h.shape[0]):
            r.h[k] = r.h[k] * 2 + r.g
        r["j"][2, 1] = r.j[0, 0] - r.j[1, 1]
        r.c = r.c * 1j + r.a
        out[i] = r.h[1] + r["j"][2, 1] + r.j.size + r.c.imag


def test_array_and_complex_fields_as_the_interpreter_gives():
    p = random_samples(N)
    expected_p, expected_out = run_threads(update_samples, N, p.view(np.recarray), np.zeros(N))
    d_p, out = cuda.to_device(p), cuda.device_array(N)
    cuda.jit(update_samples)[2, 32](d_p, out)
    got = d_p.copy_to_host()
    # (float32 fields: the kernel may round an intermediate the interpreter
    # keeps in float64, a few float32 ulps)
    for name in SAMPLE.names:
        np.testing.assert_allclose(got[name], expected_p[name], rtol=5e-6, err_msg=name)
    np.testing.assert_allclose(out.copy_to_host(), expected_out, rtol=5e-6)


def fill_fields(p, rows, value):
    i = cuda.grid(1)
    if i < p.shape[0]:
        p[i]["j"] = rows  # an array of the field's shape, copied
        p[i].h = value  # a number, everywhere


def test_array_fields_assigned_from_arrays_and_numbers():
    p = random_samples(N)
    rows = RNG.standard_normal((3, 2))
    expected = run_threads(fill_fields, N, p.view(np.recarray), rows, 1.5)[0]
    d_p = cuda.to_device(p)
    cuda.jit(fill_fields)[2, 32](d_p, cuda.to_device(rows), 1.5)
    got = d_p.copy_to_host()
    np.testing.assert_array_equal(got["j"], expected["j"])
    np.testing.assert_array_equal(got["h"], expected["h"])
    np.testing.assert_array_equal(got["a"], p["a"])  # the other fields untouched


def test_an_array_of_another_shape_for_a_field_is_an_error():
    kernel = cuda.jit(fill_fields)
    with pytest.raises(Exception, match=r"shape \(3, 2\) of the record field 'j'"):
        kernel[1, 1](cuda.to_device(random_samples(2)),
                     cuda.to_device(RNG.standard_normal((2, 2))), 1.0)
        cuda.synchronize()


def scale_record(r, factor, out):
    r.a = r.a * factor
    r.h[0] = r.g + factor
    out[0] = r.j[1, 1] + r.c.real


def test_a_single_record_argument_is_written_back_as_numba_does():
    p = random_samples(3)
    expected_p = p.copy().view(np.recarray)
    expected_out = np.zeros(1)
    scale_record(expected_p[1], 3.0, expected_out)
    out = np.zeros(1)
    record = p[1]  # a view into p
    cuda.jit(scale_record)[1, 1](record, 3.0, out)
    for name in SAMPLE.names:
        np.testing.assert_allclose(p[name], expected_p[name], rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(out, expected_out, rtol=1e-6)


def test_nested_record_fields_are_refused_with_a_reason():
    inner = np.dtype([("x", np.float32)], align=True)
    nested = np.dtype([("r", inner), ("y", np.float32)], align=True)
    with pytest.raises(TypeError, match="not nested records"):
        cuda.jit(fill_fields)[1, 1](np.zeros(2, nested), np.zeros((3, 2)), 1.0)


def complex_parts(z, out):
    i = cuda.grid(1)
    if i < z.shape[0]:
        re = z.real
        im = z.imag
        out[i] = re[i] * 10 + im[i]
        z.imag[i] = -im[i]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_and_imag_of_complex_arrays_are_views(dtype):
    z = (RNG.standard_normal(N) + 1j * RNG.standard_normal(N)).astype(dtype)
    expected_z, expected_out = run_threads(complex_parts, N, z, np.zeros(N))
    d_z, out = cuda.to_device(z), cuda.device_array(N)
    cuda.jit(complex_parts)[2, 32](d_z, out)
    np.testing.assert_allclose(out.copy_to_host(), expected_out, rtol=1e-6)
    np.testing.assert_array_equal(d_z.copy_to_host(), expected_z)


def clamp(x, limit):
    return min(x, limit)


@overload(clamp)
def clamp_overload(x, limit):
    if isinstance(x, types.Integer):
        return lambda x, limit: x if x < limit else limit
    if isinstance(x, types.Float):
        def impl(x, limit):
            return x if x < limit else limit - 0.5
        return impl
    return None


@register_jitable
def twice(x):
    return 2 * x


def use_overloads(xs, ns, out_x, out_n):
    i = cuda.grid(1)
    if i < xs.shape[0]:
        out_x[i] = twice(clamp(xs[i], 0.25))
        out_n[i] = clamp(ns[i], 3)


def test_overload_gives_the_implementation_for_the_argument_types():
    xs = RNG.standard_normal(N)
    ns = RNG.integers(-10, 10, N)
    kernel = cuda.jit(use_overloads)
    out_x, out_n = np.zeros(N), np.zeros(N, np.int64)
    kernel[2, 32](xs, ns, out_x, out_n)
    np.testing.assert_array_equal(out_x, 2 * np.where(xs < 0.25, xs, 0.25 - 0.5))
    np.testing.assert_array_equal(out_n, np.minimum(ns, 3))

    @cuda.jit
    def no_template_fits(z, out):
        out[0] = clamp(z[0], 1)

    with pytest.raises(TypingError, match="no @overload of clamp takes"):
        no_template_fits[1, 1](np.ones(1, np.complex128), np.zeros(1))


def print_tuples(t):
    print(t, (1.5, True), cuda.threadIdx)


def test_print_writes_tuples_as_python_does(capfd):
    cuda.jit(print_tuples)[1, 2]((7,))
    cuda.synchronize()
    out = capfd.readouterr().out
    assert "(7,) (1.500000, True) (0, 0, 0)" in out
    assert "(7,) (1.500000, True) (1, 0, 0)" in out


Point = namedtuple("Point", ["x", "y"])


def tuple_arguments(pairs, point, arrays, empty, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        first, (second, third) = pairs
        out[i] = first + second * third + point.x * point[1] + len(empty)
        out[i] += arrays[0][i] * arrays[1][1][i] + len(arrays[1])


def test_nested_named_and_array_tuples_as_kernel_arguments():
    a, b = RNG.standard_normal(N), RNG.standard_normal(N)
    pairs, point = (1.5, (2, np.float32(0.25))), Point(3, -1.25)
    arrays = (a, (np.zeros(1), b))
    expected = run_threads(tuple_arguments, N, pairs, point, arrays, (), np.zeros(N))[4]
    out = cuda.device_array(N)
    d_arrays = (cuda.to_device(a), (cuda.to_device(np.zeros(1)), cuda.to_device(b)))
    cuda.jit(tuple_arguments)[2, 32](pairs, point, d_arrays, (), out)
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-12)


def row_sums(m, weights, out):
    if cuda.grid(1) == 0:
        k = 0
        for row in m:
            total = 0.0
            for x in row:
                total += x
            out[k] = total
            k += 1
        for i, (row, w) in enumerate(zip(m, weights)):
            out[i] += row[row.shape[0] - 1] * w


def test_for_over_a_2d_array_gives_its_rows():
    m = RNG.standard_normal((7, 5))
    weights = RNG.standard_normal(7)
    expected = run_threads(row_sums, 1, m, weights, np.zeros(7))[2]
    for matrix in (m, np.asfortranarray(m), m[:, ::2]):
        out = np.zeros(7)
        cuda.jit(row_sums)[1, 1](cuda.to_device(matrix), weights, out)
        want = expected if matrix.shape == m.shape else run_threads(
            row_sums, 1, matrix, weights, np.zeros(7))[2]
        np.testing.assert_allclose(out, want, rtol=1e-12)


def scaled(x, factor=2, offset=0.5):
    return x * factor + offset


@overload(scaled, target="generic")
def scaled_generic(x, factor=2, offset=0.5):
    return lambda x, factor=2, offset=0.5: -1.0  # the CUDA overload comes first


@overload(scaled)
def scaled_cuda(x, factor=2, offset=0.5):
    def impl(x, factor=2, offset=0.5):
        return x * factor + offset
    return impl


@overload_attribute(types.Array, "double_size")
def array_double_size(a):
    return lambda a: a.size * 2


def keyword_calls(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i, 0] = scaled(x[i])
        out[i, 1] = scaled(x[i], offset=-1.0)
        out[i, 2] = scaled(x[i], 3, offset=x[0])
        out[i, 3] = x.double_size


def test_overloads_take_keywords_and_defaults_and_prefer_the_cuda_target():
    x = RNG.standard_normal(N)
    out = np.zeros((N, 4))
    cuda.jit(keyword_calls)[2, 32](x, out)
    expected = np.stack([x * 2 + 0.5, x * 2 - 1.0, x * 3 + x[0], np.full(N, 2.0 * N)], axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def spread_calls(z, out):
    i = cuda.grid(1)
    if i < z.shape[0]:
        polar = cmath.polar(z[i])
        out[i] = complex(*polar) + max(*polar, 0.25)


def test_a_tuple_spread_into_a_call():
    z = RNG.standard_normal(N) + 1j * RNG.standard_normal(N)
    expected = run_threads(spread_calls, N, z, np.zeros(N, np.complex128))[1]
    out = np.zeros(N, np.complex128)
    cuda.jit(spread_calls)[2, 32](z, out)
    np.testing.assert_allclose(out, expected, rtol=1e-12)


@cuda.jit(device=True)
def last_of_dynamic_shared():
    values = cuda.shared.array(0, dtype=np.float64)
    return values[values.shape[0] - 1]


def reverse_through_dynamic_shared(x, out, extent):
    values = cuda.shared.array(0, dtype=np.float64)
    i = cuda.threadIdx.x
    if i < values.shape[0]:
        values[i] = x[i]
    cuda.syncthreads()
    backwards = values[-1::-2]  # Python's slice of the launch's extent
    if i < backwards.shape[0]:
        out[i] = backwards[i] + last_of_dynamic_shared()
    if i == 0:
        extent[0] = values.shape[0]


@pytest.mark.parametrize("count", [11, 32])
def test_dynamic_shared_arrays_have_the_launchs_extent(count):
    x = RNG.standard_normal(32)
    out, extent = np.zeros(32), np.zeros(1, np.int64)
    cuda.jit(reverse_through_dynamic_shared)[1, 32, 0, count * 8](x, out, extent)
    assert extent[0] == count
    half = (count + 1) // 2
    np.testing.assert_array_equal(out[:half], x[:count][::-1][::2] + x[count - 1])
    np.testing.assert_array_equal(out[half:], 0)


def reinterpret(raw, matrix, words, bits, wide):
    i = cuda.grid(1)
    if i < words.shape[0]:
        words[i] = raw[4 * i:4 * i + 4].view(np.int32)[0]
    if i < matrix.shape[0]:
        row = matrix.view(np.uint8)[i]  # each row's bytes
        total = 0
        for b in row:
            total += int(b)  # (NumPy 2 would keep uint8 in the interpreter)
        bits[i] = total + matrix.view(np.int32)[i, 1]
        wide[i] = matrix.view(np.float64)[i, 0]


def test_view_reads_the_same_bytes_as_another_type():
    raw = RNG.integers(0, 256, 4 * N).astype(np.uint8)
    matrix = RNG.standard_normal((N, 6)).astype(np.float32)
    outs = (np.zeros(N, np.int32), np.zeros(N, np.int64), np.zeros(N))
    expected = run_threads(reinterpret, N, raw, matrix, *outs)[2:]
    cuda.jit(reinterpret)[2, 32](raw, matrix, *outs)
    for got, want in zip(outs, expected):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(Exception, match="the last axis must be contiguous"):
        cuda.jit(reinterpret)[2, 32](raw, matrix[:, ::2], *outs)
        cuda.synchronize()


def reshape_rows(a, shape, out):
    if cuda.grid(1) == 0:
        m = a.reshape(shape)
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                out[i, j] = m[i, j] * (i + 1)
        flat = m.reshape(-1)
        out[0, 0] += flat[flat.shape[0] - 1]


@pytest.mark.parametrize("shape", [(5, 7), (-1, 7), (5, -1)])
def test_reshape_of_a_contiguous_array_is_a_view(shape):
    a = RNG.standard_normal(35)
    expected = run_threads(reshape_rows, 1, a, shape, np.zeros((5, 7)))[2]
    out = np.zeros((5, 7))
    cuda.jit(reshape_rows)[1, 1](a, shape, out)
    np.testing.assert_array_equal(out, expected)
    with pytest.raises(Exception, match="cannot reshape the array"):
        cuda.jit(reshape_rows)[1, 1](a, (6, 6), out)
        cuda.synchronize()
