"""Python builtins numba.cuda supports in kernels (enumerate, zip, range of
any integer type, int.bit_count, round(x, ndigits) with a run-time ndigits,
a homogeneous tuple indexed at run time, len, min/max of several arguments,
abs, pow), numba.cuda's type aliases, cuda.fp16's half operations,
mapped/pinned_array_like and a constant expression as a shared array's
shape. Each kernel's results are compared with the same function run by the
Python interpreter (one call per thread) on fresh random inputs with the edge
values."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda

from .interpreted import run_threads

RNG = np.random.default_rng()
N = 45  # threads, not a multiple of the block
BLOCK = 32


def check_against_interpreter(kernel, *args, exact=True):  # type: ignore[no-untyped-def]
    host = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    device = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in host]
    kernel[(N + BLOCK - 1) // BLOCK, BLOCK](*device)
    got = [d.copy_to_host() for d in device if not isinstance(d, (int, float))]
    expected = [a for a in run_threads(kernel, N, *args) if isinstance(a, np.ndarray)]
    for g, e in zip(got, expected):
        if exact:
            np.testing.assert_array_equal(g, e)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-12, equal_nan=True)


def int_values(dtype=np.int64, n=N) -> np.ndarray:  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    values = RNG.integers(-50 if info.min < 0 else 0, 50, n).astype(dtype)
    edges = [0, -1, info.min, info.max] if info.min < 0 else [0, info.max]
    values[:len(edges)] = np.array(edges, dtype=object).astype(dtype)
    return values


@cuda.jit
def enumerate_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        total = 0
        for k, v in enumerate(x):
            total += (k + 1) * v * (i % 3)
        for k, v in enumerate(x[:i % 7], 10):
            total -= k * v
        for k, j in enumerate(range(i, 3 * i, 2), start=i):
            total += k ^ j
        out[i] = total


def test_enumerate():
    x = RNG.integers(-100, 100, 11)
    check_against_interpreter(enumerate_kernel, x, np.zeros(N, np.int64))


@cuda.jit
def zip_kernel(a, b, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        total = 0.0
        for p, q in zip(a, b[i % 5:]):
            total += p * q
        for k, (p, q) in enumerate(zip(a, range(i, 0, -1))):
            total += k * p - q
        for p, q, r in zip(a, b, (1.5, 2.5, -3.0)):
            total += p + q * r
        out[i] = total


def test_zip_stops_at_the_shortest():
    a, b = RNG.standard_normal(9), RNG.standard_normal(13)
    check_against_interpreter(zip_kernel, a, b, np.zeros(N), exact=False)


@cuda.jit
def typed_range_kernel(n8, nu16, n32, nu64, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        total = 0
        for k in range(n8[i]):
            total += k
        for k in range(nu16[i], np.uint16(0), np.int8(-3)):
            total += 2 * k
        for k in range(n32[i] - 20, n32[i], 7):
            total -= k
        for k in range(nu64[i]):
            total += 1
        out[i] = total


def test_range_of_every_integer_type():
    n8 = RNG.integers(-10, 60, N).astype(np.int8)
    nu16 = RNG.integers(0, 90, N).astype(np.uint16)
    n32 = RNG.integers(-2**31 + 30, 2**31 - 1, N).astype(np.int32)
    nu64 = RNG.integers(0, 50, N).astype(np.uint64)
    check_against_interpreter(typed_range_kernel, n8, nu16, n32, nu64, np.zeros(N, np.int64))


@cuda.jit
def bit_count_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i].bit_count()


def test_int_bit_count_counts_the_magnitude_as_python_for_non_negative():
    # Python's int.bit_count() counts |x|'s ones; Numba's (cuda.popc) the
    # two's complement word: they agree on non-negative values, compared here.
    x = np.abs(int_values()).astype(np.uint64)
    check_against_interpreter(bit_count_kernel, x, np.zeros(N, np.int64))


@cuda.jit
def round_kernel(x, digits, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = round(x[i], digits[i])


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: np.dtype(d).name)
def test_round_with_run_time_ndigits(dtype):  # type: ignore[no-untyped-def]
    x = (RNG.standard_normal(N) * 10.0 ** RNG.integers(-3, 6, N)).astype(dtype)
    x[:6] = [0.0, np.nan, np.inf, -np.inf, 2.5, -0.125]
    digits = RNG.integers(-3, 8, N).astype(np.int32)
    digits[4:6] = [0, 2]
    out = np.zeros(N, dtype)
    d_out = cuda.to_device(out)
    round_kernel[(N + BLOCK - 1) // BLOCK, BLOCK](cuda.to_device(x), cuda.to_device(digits),
                                                   d_out)
    expected = np.array([round(float(v), int(d)) for v, d in zip(x, digits)]).astype(dtype)
    np.testing.assert_allclose(d_out.copy_to_host(), expected, rtol=1e-15, equal_nan=True)


@cuda.jit
def tuple_index_kernel(x, which, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        items = (x[0], x[1] * 2, x[2] - x[3], -x[4])
        out[i] = items[which[i]] + len(items)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the interpreter's
def test_homogeneous_tuple_indexed_at_run_time_with_negative_indices():
    x = int_values()[:5]
    which = RNG.integers(-4, 4, N)
    check_against_interpreter(tuple_index_kernel, x, which, np.zeros(N, np.int64))


def test_tuple_index_out_of_range_stops_the_kernel_with_index_error():
    # In a child process: on a GPU the kernel traps (the message is printed,
    # the launch fails and the CUDA context is lost for the rest of the
    # process); the CPU backend raises the message itself.
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from child_process import run_code

    result = run_code("""
        import numpy as np
        from cudakit import cuda

        @cuda.jit
        def tuple_index_kernel(x, which, out):
            i = cuda.grid(1)
            if i < out.size:
                items = (x[0], x[1] * 2, x[2] - x[3], -x[4])
                out[i] = items[which[i]] + len(items)

        try:
            tuple_index_kernel[1, 1](cuda.to_device(np.arange(5)),
                                     cuda.to_device(np.full(45, 4)),
                                     cuda.to_device(np.zeros(45, np.int64)))
            cuda.synchronize()
        except Exception as error:
            print("raised", type(error).__name__, error)
        """)
    out = result.stdout + result.stderr
    assert "raised" in out, out
    assert "IndexError: tuple index out of range in tuple_index_kernel" in out, out


@cuda.jit
def numbers_kernel(a, b, c, out_i, out_f):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out_i.size:
        out_i[i] = max(a[i], b[i], c[i]) - min(a[i], b[i], -c[i], 3) + abs(a[i])
        out_f[i] = (pow(float(b[i] % 5), 3) + pow(2.0, float(a[i] % 7))
                    + max(0.5 * a[i], b[i]) + abs(-1.5 * c[i]) + pow(c[i] % 4, 2))


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the interpreter's
def test_len_min_max_abs_pow():
    a, b, c = int_values(), int_values(), int_values()
    c[:4] = [5, 6, 7, 8]  # -INT_MIN wraps around in int64: kept out of min()
    check_against_interpreter(numbers_kernel, a, b, c, np.zeros(N, np.int64), np.zeros(N),
                              exact=False)


ALIASES = {"double": "float64", "int_": "int64", "uint": "uint64", "intc": "int32",
           "uintc": "uint32", "short": "int16", "ushort": "uint16", "char": "int8",
           "uchar": "uint8", "byte": "uint8", "longlong": "int64", "ulonglong": "uint64",
           "long_": "int64", "ulong": "uint64", "bool_": "boolean", "size_t": "uint64",
           "ssize_t": "int64", "uintp": "uint64"}


@pytest.mark.parametrize("alias", ALIASES)
def test_type_aliases_are_numba_cudas(alias):  # type: ignore[no-untyped-def]
    from cudakit.cuda import types
    assert getattr(cuda, alias) is getattr(cuda, ALIASES[alias])
    assert getattr(types, alias) is getattr(cuda, ALIASES[alias])


def test_float_alias_is_absent_with_numpy_2_as_in_numba_cuda():
    assert hasattr(cuda, "float_") == (int(np.__version__.split(".")[0]) < 2)


SHARED_SIZE = 1 << 6


@cuda.jit
def aliases_kernel(x, out):  # type: ignore[no-untyped-def]
    s = cuda.shared.array(1 << 6, dtype=cuda.double)
    t = cuda.shared.array(SHARED_SIZE * 2 - 64, cuda.int_)
    local = cuda.local.array((2 + 1,), cuda.short)
    i = cuda.grid(1)
    tid = cuda.threadIdx.x
    s[tid] = cuda.double(x[i % x.size]) * 0.5
    t[tid] = cuda.int_(x[i % x.size]) * 3
    local[0] = cuda.short(tid)
    cuda.syncthreads()
    if i < out.size:
        out[i] = s[(tid + 1) % 32] + t[31 - tid] + local[0] + cuda.uchar(300 + tid)


def test_aliases_as_dtypes_and_casts_and_a_constant_expression_shape():
    x = int_values(np.int32, 64)
    x[:4] = [0, 1, 2, 3]
    out = cuda.to_device(np.zeros(N))
    aliases_kernel[(N + BLOCK - 1) // BLOCK, BLOCK](cuda.to_device(x), out)
    expected = np.zeros(N)
    for i in range(N):
        tid, block = i % 32, i - i % 32
        expected[i] = (float(x[(block + (tid + 1) % 32) % 64]) * 0.5
                       + int(x[(block + 31 - tid) % 64]) * 3 + tid + (300 + tid) % 256)
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-12)


@pytest.mark.parametrize("make", ["mapped_array_like", "pinned_array_like"])
def test_array_like_host_arrays(make):  # type: ignore[no-untyped-def]
    for like in (np.zeros((3, 5), np.float32), np.asfortranarray(np.zeros((4, 2), np.int16))):
        made = getattr(cuda, make)(like)
        assert made.shape == like.shape and made.dtype == like.dtype
        assert made.flags.f_contiguous == (like.flags.f_contiguous
                                           and not like.flags.c_contiguous)


@cuda.jit
def half_kernel(a, b, c, out, compare):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < a.size:
        x, y, z = a[i], b[i], c[i]
        out[i, 0] = cuda.fp16.hadd(x, y)
        out[i, 1] = cuda.fp16.hsub(x, y)
        out[i, 2] = cuda.fp16.hmul(x, y)
        out[i, 3] = cuda.fp16.hdiv(x, y)
        out[i, 4] = cuda.fp16.hfma(x, y, z)
        out[i, 5] = cuda.fp16.hneg(x)
        out[i, 6] = cuda.fp16.habs(x)
        out[i, 7] = cuda.fp16.hmax(x, y)
        out[i, 8] = cuda.fp16.hmin(x, y)
        out[i, 9] = cuda.fp16.hsqrt(cuda.fp16.habs(x))
        out[i, 10] = cuda.fp16.hexp(z)
        out[i, 11] = cuda.fp16.hfloor(x)
        out[i, 12] = cuda.fp16.htanh(x)
        compare[i, 0] = cuda.fp16.heq(x, y)
        compare[i, 1] = cuda.fp16.hne(x, y)
        compare[i, 2] = cuda.fp16.hlt(x, y)
        compare[i, 3] = cuda.fp16.hle(x, y)
        compare[i, 4] = cuda.fp16.hgt(x, y)
        compare[i, 5] = cuda.fp16.hge(x, y)


def test_fp16_half_operations():
    a = (RNG.standard_normal(N) * 4).astype(np.float16)
    b = (RNG.standard_normal(N) * 4).astype(np.float16)
    c = (RNG.standard_normal(N)).astype(np.float16)
    a[:4], b[:4] = [0, -1, np.nan, 2], [0, 3, 1, 2]
    d_out, d_cmp = cuda.to_device(np.zeros((N, 13), np.float16)), cuda.to_device(
        np.zeros((N, 6), np.bool_))
    half_kernel[(N + BLOCK - 1) // BLOCK, BLOCK](cuda.to_device(a), cuda.to_device(b),
                                                  cuda.to_device(c), d_out, d_cmp)
    out, compare = d_out.copy_to_host(), d_cmp.copy_to_host()
    with np.errstate(all="ignore"):
        f = np.float32
        exact = [a + b, a - b, a * b, a / b,
                 (a.astype(np.float64) * b + c).astype(np.float16), -a, np.abs(a),
                 np.fmax(a, b), np.fmin(a, b)]
        approx = [np.sqrt(np.abs(a).astype(f)), np.exp(c.astype(f)), np.floor(a),
                  np.tanh(a.astype(f))]
    for k, e in enumerate(exact):
        np.testing.assert_array_equal(out[:, k], e.astype(np.float16), err_msg=str(k))
    for k, e in enumerate(approx, len(exact)):
        np.testing.assert_allclose(out[:, k].astype(f), e.astype(np.float16).astype(f),
                                   rtol=2e-3, atol=1e-4, equal_nan=True, err_msg=str(k))
    expected = [a == b, (a < b) | (a > b), a < b, a <= b, a > b, a >= b]  # hne: ordered
    for k, e in enumerate(expected):
        np.testing.assert_array_equal(compare[:, k], e, err_msg=f"comparison {k}")


@cuda.jit(device=True)
def transpose_in_shared(out, shape, dtype, scale, xor):  # type: ignore[no-untyped-def]
    # `shape` and `dtype` are compile-time arguments (the shared array's);
    # `scale` is a run-time tuple; `xor` a name C++ reserves.
    shared = cuda.shared.array(shape, dtype)
    x, y = cuda.threadIdx.x, cuda.threadIdx.y
    shared[x, y] = x * scale[0] + y * scale[1] + (x ^ xor)
    cuda.syncthreads()
    out[x, y] = shared[shape[0] - 1 - x, y]


@cuda.jit
def tuple_arguments_kernel(out, a, xor):  # type: ignore[no-untyped-def]
    transpose_in_shared(out, (4, 8), cuda.double, (a, 2.5), xor)


def test_tuples_and_dtypes_passed_to_a_device_function():
    a, xor = float(RNG.standard_normal()), int(RNG.integers(0, 8))
    out = cuda.to_device(np.zeros((4, 8)))
    tuple_arguments_kernel[1, (4, 8)](out, a, xor)
    x, y = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    np.testing.assert_allclose(out.copy_to_host(), (3 - x) * a + y * 2.5 + ((3 - x) ^ xor),
                               rtol=1e-14)
