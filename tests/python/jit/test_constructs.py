"""One test per kernel construct: the translated kernel against the same
Python function run by the interpreter, on small random inputs whose sizes
are not multiples of the block."""

from __future__ import annotations


import numpy as np
import pytest

from cudakit import cuda

from . import kernels_for_tests as k

# A GPU contracts a*x + y into one fused multiply-add (one rounding instead of
# two): where the sum cancels, the relative error of a float32 result grows,
# so compare with a few float32 ulps of the operands as an absolute margin.
FMA_ATOL = 1e-5

RNG = np.random.default_rng(1234)
N = 77  # not a multiple of the block


def launch_1d(kernel, n, *args, block=32):
    kernel[(n + block - 1) // block, block](*args)
    cuda.synchronize()


def reference(function, xs, ys):
    return np.array([function.py_func(x, y) for x, y in zip(xs.tolist(), ys.tolist())])


@pytest.mark.parametrize("which,function", [(0, k.arithmetic), (1, k.branches), (2, k.loops)])
def test_integer_constructs_match_the_interpreter(which, function):
    xs = RNG.integers(-20, 20, N).astype(np.int64)
    ys = RNG.integers(1, 9, N).astype(np.int64) * RNG.choice([-1, 1], N)
    out = cuda.device_array(N, np.float64)
    launch_1d(k.elementwise_int, N, out, cuda.to_device(xs), cuda.to_device(ys), which)
    np.testing.assert_allclose(out.copy_to_host(), reference(function, xs, ys), rtol=1e-12)


@pytest.mark.parametrize("which,function",
                         [(0, k.arithmetic), (1, k.math_calls), (2, k.casts),
                          (3, k.nested_calls)])
def test_float_constructs_match_the_interpreter(which, function):
    xs = RNG.uniform(-3, 3, N)
    ys = RNG.uniform(0.5, 2, N) * RNG.choice([-1, 1], N)
    out = cuda.device_array(N, np.float64)
    launch_1d(k.elementwise_float, N, out, cuda.to_device(xs), cuda.to_device(ys), which)
    expected = reference(function, xs, ys)
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-5, atol=1e-6)


def test_two_dimensional_grid_shape_size_ndim_and_negative_index():
    a = RNG.standard_normal((13, 7)).astype(np.float32)
    out = cuda.device_array_like(a)
    k.indexing_2d[(2, 1), (8, 8)](cuda.to_device(a), out)
    expected = a * 2 + a[-1, 0] + a.size + np.arange(7)[None, :] + 1
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-6)


def test_three_dimensional_grid_stride_loop_on_a_transposed_view():
    a = RNG.standard_normal((5, 6, 7))
    view = cuda.to_device(np.ascontiguousarray(a.transpose(2, 0, 1))).transpose()
    host_view = a.transpose(2, 0, 1).T
    out = cuda.device_array(host_view.shape, np.float64)
    k.indexing_3d[3, 32](view, out)
    np.testing.assert_allclose(out.copy_to_host(), host_view + 1)


def test_fortran_ordered_input():
    a = np.asfortranarray(RNG.standard_normal((9, 5)).astype(np.float32))
    out = np.zeros_like(a)
    with pytest.warns(cuda.NumbaPerformanceWarning):
        k.indexing_2d[(2, 1), (8, 8)](a, out)
    np.testing.assert_allclose(out, a * 2 + a[-1, 0] + a.size + np.arange(5)[None, :] + 1,
                               rtol=1e-6)


def test_local_array_and_negative_step_range():
    out = cuda.device_array(N, np.int64)
    launch_1d(k.local_array_kernel, N, out)
    expected = [sum(i * kk * 10 ** kk for kk in range(4)) for i in range(N)]
    np.testing.assert_array_equal(out.copy_to_host(), expected)


def test_shared_array_with_syncthreads_reverses_each_block():
    n, block = 100, 64
    a = RNG.standard_normal(n).astype(np.float32)
    out = cuda.to_device(np.zeros(n, np.float32))
    k.block_reverse[(n + block - 1) // block, block](cuda.to_device(a), out)
    expected = np.zeros(n, np.float32)
    expected[:64] = a[:64][::-1]
    got = out.copy_to_host()
    np.testing.assert_array_equal(got[:64], expected[:64])


def test_atomics_of_every_kind():
    n = 45
    ints = cuda.to_device(np.array([0, 0, -1, 1, 0, 0], np.int32))
    floats = cuda.to_device(np.array([0, -1, 1], np.float32))
    uints = cuda.to_device(np.array([0, 5, 0], np.uint32))
    longs = cuda.to_device(np.array([0, -1], np.int64))
    launch_1d(k.atomics_kernel, n, ints, floats, uints, longs, n)
    i = ints.copy_to_host()
    assert list(i[:4]) == [n, -2 * n, n - 1, -(n - 1)]
    assert 1 <= i[4] <= n and i[5] == 42
    np.testing.assert_allclose(floats.copy_to_host(), [0.5 * n, (n - 1) * 0.25,
                                                       -(n - 1) * 0.5])
    u = uints.copy_to_host()
    assert u[0] == n % 8 and u[1] == 7 & (5 | 2) and u[2] == n % 2
    assert list(longs.copy_to_host()) == [n * (n - 1) // 2, n - 1]


def test_atomic_add_on_a_two_dimensional_array():
    keys = RNG.integers(0, 3, (101, 2)).astype(np.int64)
    counts = cuda.to_device(np.zeros((3, 3), np.int32))
    launch_1d(k.atomic_2d, 101, counts, cuda.to_device(keys))
    expected = np.zeros((3, 3), np.int32)
    np.add.at(expected, (keys[:, 0], keys[:, 1]), 1)
    np.testing.assert_array_equal(counts.copy_to_host(), expected)


def test_warp_shuffle_reduction():
    values = RNG.standard_normal(70)
    out = cuda.device_array(3, np.float64)
    k.warp_sum[3, 32](cuda.to_device(values), out)
    padded = np.concatenate([values, np.zeros(26)])
    np.testing.assert_allclose(out.copy_to_host(), padded.reshape(3, 32).sum(axis=1))


def test_syncthreads_count():
    values = RNG.standard_normal(70)
    out = cuda.device_array(3, np.int32)
    k.count_positive[3, 32](cuda.to_device(values), out)
    padded = np.concatenate([values, np.zeros(26)])
    np.testing.assert_array_equal(out.copy_to_host(), (padded.reshape(3, 32) > 0).sum(axis=1))


def test_signature_string_compiles_eagerly_and_converts_scalars():
    assert len(k.axpy_signature.overloads) == 1
    x = RNG.standard_normal(N).astype(np.float32)
    out = cuda.to_device(np.ones(N, np.float32))
    launch_1d(k.axpy_signature, N, cuda.to_device(x), out, 2)
    np.testing.assert_allclose(out.copy_to_host(), 2 * x + 1, rtol=1e-6)


def test_host_arrays_are_copied_in_and_back_with_a_warning():
    out = np.zeros(N, np.int32)
    with pytest.warns(cuda.NumbaPerformanceWarning, match="copy overhead"):
        k.fill_host[3, 32](out)
    np.testing.assert_array_equal(out, np.arange(N) * 2)


def test_forall_and_specialize():
    out = cuda.device_array(N, np.int32)
    k.fill_host.forall(N)(out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(N) * 2)
    special = k.fill_host.specialize(out)
    special[3, 32](out)
    assert len(special.overloads) == 1


def test_specializations_are_cached_by_argument_types():
    before = len(k.fill_host.overloads)
    for dtype in (np.int32, np.int32, np.float64):
        k.fill_host[3, 32](cuda.device_array(N, dtype))
    assert len(k.fill_host.overloads) - before <= 1 + (before == 0)


def test_generated_source_is_readable_and_points_at_python_lines():
    k.fill_host[1, 32](cuda.device_array(5, np.int32))
    source = next(iter(k.fill_host.inspect_cuda_source().values()))
    assert '#line' in source and "kernels_for_tests.py" in source
    assert "ArrayView<int, 1> out" in source


def test_inspect_types_lists_locals(capsys):
    k.fill_host[1, 32](cuda.device_array(5, np.int32))
    k.fill_host.inspect_types()
    assert "i = int64" in capsys.readouterr().out


def test_print_formats_like_numba(capfd):
    k.print_values[1, 4](True, 2.5)
    cuda.synchronize()
    assert "flag True x 2.500000 %d literal" in capfd.readouterr().out


def test_device_function_called_on_the_host_runs_the_python():
    assert k.helper_twice(21) == 42


def test_device_array_api():
    a = RNG.standard_normal((6, 4)).astype(np.float32)
    d = cuda.to_device(a)
    assert d.shape == (6, 4) and d.dtype == np.float32 and d.size == 24 and d.ndim == 2
    assert d.strides == a.strides and d.is_c_contiguous() and not d.is_f_contiguous()
    np.testing.assert_array_equal(d[1:5:2].copy_to_host(), a[1:5:2])
    np.testing.assert_array_equal(d.T.copy_to_host(), a.T)
    np.testing.assert_array_equal(d.reshape(4, 6).copy_to_host(), a.reshape(4, 6))
    np.testing.assert_array_equal(d.ravel().copy_to_host(), a.ravel())
    assert d[2, 3] == a[2, 3]
    d.copy_to_device(a * 2)
    np.testing.assert_array_equal(d.copy_to_host(), a * 2)
    interface = d.__cuda_array_interface__
    assert interface["shape"] == (6, 4) and interface["typestr"] == "<f4"
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(a)


def test_device_function_returning_a_tuple():
    xs = RNG.integers(-50, 50, N).astype(np.int64)
    q, r = cuda.device_array(N, np.int64), cuda.device_array(N, np.int64)
    launch_1d(k.tuple_returns, N, cuda.to_device(xs), q, r)
    expected = [k.divmod_pair.py_func(x, 7) for x in xs.tolist()]
    np.testing.assert_array_equal(q.copy_to_host(), [e[0] for e in expected])
    np.testing.assert_array_equal(r.copy_to_host(), [e[1] for e in expected])


def test_views_by_partial_indexing_and_slices():
    a = RNG.standard_normal((11, 9))
    sums, tails, evens = (cuda.device_array(11, np.float64) for _ in range(3))
    launch_1d(k.views_in_kernel, 11, cuda.to_device(a), sums, tails, evens, block=8)
    np.testing.assert_allclose(sums.copy_to_host(), a.sum(axis=1))
    np.testing.assert_allclose(tails.copy_to_host(), a[:, -3] + 3)
    np.testing.assert_allclose(evens.copy_to_host(), a[:, ::2].sum(axis=1) + a[:, -1])


def test_jit_options_compile_on_every_backend():
    options = cuda.jit(fastmath=True, lineinfo=True, max_registers=32, cache=True)
    kernel = options(k.fill_host.py_func)
    out = cuda.device_array(N, np.int32)
    kernel[3, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(N) * 2)


def test_inspect_asm_gives_ptx_where_nvrtc_exists():
    k.fill_host[1, 32](cuda.device_array(5, np.int32))
    asm = next(iter(k.fill_host.inspect_asm().values()))
    assert ".entry fill_host" in asm or "#line" in asm


def test_for_over_a_one_dimensional_array():
    rows = RNG.standard_normal((13, 6))
    out = cuda.device_array(13, np.float64)
    launch_1d(k.sum_by_iteration, 13, cuda.to_device(rows), out, block=8)
    np.testing.assert_allclose(out.copy_to_host(), rows.sum(axis=1))


CAPTURED = cuda.to_device(np.arange(10, dtype=np.float32))


def test_global_device_array_is_captured_by_pointer():
    @cuda.jit
    def read_captured(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = CAPTURED[i] * 2

    out = cuda.device_array(10, np.float32)
    read_captured[1, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(10) * 2)

    scalar = cuda.to_device(np.array(21.5, np.float32))  # a 0-d one

    @cuda.jit
    def read_captured_0d(out):
        out[()] = scalar[()] * 2

    out_0d = cuda.device_array((), np.float32)
    read_captured_0d[1, 1](out_0d)
    assert out_0d.copy_to_host() == 43.0


def test_numpy_ufunc_on_arrays_inside_a_kernel():
    x = RNG.standard_normal(23).astype(np.float32)
    out = cuda.device_array(23, np.float32)
    k.ufunc_in_kernel[1, 32](cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), np.sin(x), rtol=1e-6)


def test_tuple_of_numbers_as_a_kernel_argument():
    out = cuda.device_array(N, np.float64)
    launch_1d(k.tuple_argument, N, (2.5, 3, True), out)
    np.testing.assert_allclose(out.copy_to_host(), np.arange(N) * 2.5 + 3 + 1)
    launch_1d(k.tuple_argument, N, (np.float32(0.5), np.int8(-2), 7), out)
    np.testing.assert_allclose(out.copy_to_host(), np.arange(N) * 0.5 - 2 + 7)


def test_launch_on_a_stream():
    stream = cuda.stream()
    out = cuda.device_array(N, np.int32)
    k.fill_host[3, 32, stream](out)
    stream.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(N) * 2)
    with stream.auto_synchronize():
        k.fill_host[3, 32, stream, 0](out)


def test_numpy_scalar_arguments_keep_their_type():
    x = RNG.standard_normal(N).astype(np.float32)
    out = cuda.to_device(np.zeros(N, np.float32))

    @cuda.jit
    def scale(x, out, alpha, shift):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * alpha + shift

    for _ in range(2):  # the second call takes the C++ path
        scale[3, 32](cuda.to_device(x), out, np.float32(1.5), np.int16(-3))
    np.testing.assert_allclose(out.copy_to_host(), x * np.float32(1.5) - 3, rtol=1e-6, atol=FMA_ATOL)
    (types,) = scale.overloads
    assert [str(ty) for ty in types[2:]] == ["float32", "int16"]


def test_a_local_assigned_one_number_is_that_number_where_read():
    @cuda.jit
    def staged(x, out):
        size = 48  # assigned once: a constant, as a shared array's shape needs
        tile = cuda.shared.array(size, np.float64)
        i = cuda.threadIdx.x
        if i < size:
            tile[i] = x[i]
        cuda.syncthreads()
        if i < size:
            out[i] = tile[size - 1 - i]

    x = RNG.standard_normal(48)
    out = np.zeros(48)
    staged[1, 64](x, out)
    np.testing.assert_array_equal(out, x[::-1])
