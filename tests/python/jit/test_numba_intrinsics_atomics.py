"""cuda.atomic.* on every element type numba.cuda takes: each thread applies
the operation to an element shared with other threads and keeps the old
value it got. The final element is checked against the operation applied in
every order-independent way (a Python fold), and the old values against the
set of intermediate results; NaN and the integer limits are among the
inputs."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cudakit import cuda

RNG = np.random.default_rng()
N = 77  # threads, not a multiple of the block
BINS = 5  # elements the threads share

INTS = [np.int32, np.uint32, np.int64, np.uint64]
FLOATS = [np.float32, np.float64]


def values(dtype, low=None, high=None) -> np.ndarray:  # type: ignore[no-untyped-def]
    if np.dtype(dtype).kind == "f":
        return (RNG.standard_normal(N) * 50).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min if low is None else low, info.max if high is None else high,
                        N, dtype=dtype, endpoint=True)


def run(op: str, initial: np.ndarray, operand: np.ndarray, bins: np.ndarray):  # type: ignore
    kernel = KERNELS[op]
    d_array, d_old = cuda.to_device(initial), cuda.to_device(np.zeros_like(operand))
    kernel[(N + 31) // 32, 32](d_array, cuda.to_device(bins), cuda.to_device(operand), d_old)
    return d_array.copy_to_host(), d_old.copy_to_host()


def _make(op: str):  # type: ignore[no-untyped-def]
    source = (f"def kernel(array, bins, operand, old):\n"
              f"    i = cuda.grid(1)\n"
              f"    if i < operand.size:\n"
              f"        old[i] = cuda.atomic.{op}(array, bins[i], operand[i])\n")
    namespace = {"cuda": cuda}
    import linecache
    filename = f"<atomic {op}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return cuda.jit(namespace["kernel"])


KERNELS = {op: _make(op) for op in ("add", "sub", "max", "min", "nanmax", "nanmin", "and_",
                                    "or_", "xor", "exch", "inc", "dec")}


def wrap(dtype, value: int):  # type: ignore[no-untyped-def]
    bits = np.dtype(dtype).itemsize * 8
    value &= (1 << bits) - 1
    if np.dtype(dtype).kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def py_max(a, b):  # type: ignore[no-untyped-def]
    return b if a < b else a  # a NaN on either side keeps a, as Numba's atomic.max


def py_min(a, b):  # type: ignore[no-untyped-def]
    return b if b < a else a


def py_nanmax(a, b):  # type: ignore[no-untyped-def]
    return b if (a < b or a != a) else a


def py_nanmin(a, b):  # type: ignore[no-untyped-def]
    return b if (b < a or a != a) else a


COMMUTATIVE = {"max": py_max, "min": py_min, "nanmax": py_nanmax, "nanmin": py_nanmin,
               "and_": lambda a, b: a & b, "or_": lambda a, b: a | b,
               "xor": lambda a, b: a ^ b}


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_add_and_sub(op, dtype):  # type: ignore[no-untyped-def]
    initial, operand = values(dtype)[:BINS].copy(), values(dtype)
    bins = RNG.integers(0, BINS, N)
    final, _ = run(op, initial, operand, bins)
    for b in range(BINS):
        mine = operand[bins == b]
        if np.dtype(dtype).kind == "f":
            total = initial[b].astype(np.float64) + (1 if op == "add" else -1) * mine.sum(
                dtype=np.float64)
            np.testing.assert_allclose(final[b], total, rtol=1e-5 if dtype == np.float32
                                       else 1e-12, atol=1e-3)
        else:
            total = int(initial[b]) + (1 if op == "add" else -1) * sum(int(v) for v in mine)
            assert int(final[b]) == wrap(dtype, total)


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["max", "min", "nanmax", "nanmin"])
def test_extrema_with_nan_and_limits(op, dtype):  # type: ignore[no-untyped-def]
    initial, operand = values(dtype)[:BINS].copy(), values(dtype)
    if np.dtype(dtype).kind == "f":
        operand[::9] = np.nan
        initial[1] = np.nan  # NaN in the array: max/min keep it, nanmax/nanmin replace it
    else:
        info = np.iinfo(dtype)
        operand[:2] = [info.min, info.max]
    bins = RNG.integers(0, BINS, N)
    final, old = run(op, initial, operand, bins)
    fold = COMMUTATIVE[op]
    for b in range(BINS):
        mine = operand[bins == b].tolist()
        expected = functools.reduce(fold, mine, initial[b].item())
        np.testing.assert_array_equal(final[b], np.array(expected, dtype))
    # Each old value is what the element held before that thread's update:
    # for max it never exceeds the final value, for min never falls below it.
    if np.dtype(dtype).kind != "f":
        final_of_thread = final[bins]
        assert (old <= final_of_thread).all() if "max" in op else (old >= final_of_thread).all()


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["and_", "or_", "xor"])
def test_bitwise(op, dtype):  # type: ignore[no-untyped-def]
    initial, operand = values(dtype)[:BINS].copy(), values(dtype)
    bins = RNG.integers(0, BINS, N)
    final, _ = run(op, initial, operand, bins)
    fold = COMMUTATIVE[op]
    for b in range(BINS):
        expected = functools.reduce(fold, (int(v) for v in operand[bins == b]), int(initial[b]))
        assert int(final[b]) == wrap(dtype, expected)


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_exch_gives_every_old_value_once(dtype):  # type: ignore[no-untyped-def]
    # One element: the old values and the final one are a permutation of the
    # initial value and the operands.
    initial, operand = values(dtype)[:1].copy(), values(dtype)
    final, old = run("exch", initial, operand, np.zeros(N, np.int64))
    assert sorted(old.tolist() + final.tolist()) == sorted(initial.tolist() +
                                                           operand.tolist())


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["inc", "dec"])
def test_inc_and_dec_wrap_at_the_limit(op, dtype):  # type: ignore[no-untyped-def]
    # The same limit for every thread: the result does not depend on the order.
    limit = int(RNG.integers(3, 20))
    initial = np.array([RNG.integers(0, limit + 1), 0, limit, limit + 5, 1], dtype)
    operand = np.full(N, limit, dtype)
    bins = RNG.integers(0, BINS, N)
    final, _ = run(op, initial, operand, bins)
    for b in range(BINS):
        value = int(initial[b])
        for _ in range(int((bins == b).sum())):
            if op == "inc":
                value = 0 if value >= limit else value + 1
            else:
                value = limit if value == 0 or value > limit else value - 1
        assert int(final[b]) == value


@cuda.jit
def cas_kernel(array, expected, new, old):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < array.size:
        old[i] = cuda.atomic.cas(array, i, expected[i], new[i])


@cuda.jit
def compare_and_swap_kernel(array, expected, new, old):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < array.size:
        old[i] = cuda.atomic.compare_and_swap(array[i:], expected[i], new[i])


@pytest.mark.parametrize("kernel", [cas_kernel, compare_and_swap_kernel],
                         ids=["cas", "compare_and_swap"])
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_compare_and_swap(kernel, dtype):  # type: ignore[no-untyped-def]
    array, new = values(dtype), values(dtype)
    expected = np.where(RNG.random(N) < 0.5, array, values(dtype)).astype(dtype)
    d_array, d_old = cuda.to_device(array), cuda.to_device(np.zeros(N, dtype))
    kernel[(N + 31) // 32, 32](d_array, cuda.to_device(expected), cuda.to_device(new), d_old)
    np.testing.assert_array_equal(d_old.copy_to_host(), array)
    np.testing.assert_array_equal(d_array.copy_to_host(), np.where(array == expected, new,
                                                                   array))


@cuda.jit(device=True)
def apply_in_shared(ary, bins, operand, dtype, size, operation, cast):  # type: ignore
    # The operation, the dtype, the cast and the shared array's size are
    # compile-time arguments: the device function is specialized for them.
    tid = cuda.threadIdx.x
    shared = cuda.shared.array(size, dtype)
    if tid < size:
        shared[tid] = ary[tid]
    cuda.syncthreads()
    operation(shared, cast(bins[tid] % size), operand[tid])
    cuda.syncthreads()
    if tid < size:
        ary[tid] = shared[tid]


@cuda.jit
def shared_add_kernel(ary, bins, operand):  # type: ignore[no-untyped-def]
    apply_in_shared(ary, bins, operand, np.uint64, 16, cuda.atomic.add, np.int32)


@cuda.jit
def shared_max_kernel(ary, bins, operand):  # type: ignore[no-untyped-def]
    apply_in_shared(ary, bins, operand, cuda.double, 16, cuda.atomic.max, int)


def test_intrinsic_dtype_and_size_passed_to_a_device_function():
    bins = RNG.integers(0, 1000, 64)
    for kernel, dtype, fold in ((shared_add_kernel, np.uint64, np.add),
                                (shared_max_kernel, np.float64, np.maximum)):
        initial, operand = values(dtype)[:16].copy(), values(dtype)[:64].copy()
        d_ary = cuda.to_device(initial)
        kernel[1, 64](d_ary, cuda.to_device(bins), cuda.to_device(operand))
        expected = initial.copy()
        fold.at(expected, bins % 16, operand)
        np.testing.assert_array_equal(d_ary.copy_to_host(), expected)


@cuda.jit
def cas_2d_kernel(array, old, new, expected):  # type: ignore[no-untyped-def]
    gid = cuda.grid(2)
    if gid[0] < array.shape[0] and gid[1] < array.shape[1]:
        old[gid] = cuda.atomic.cas(array, gid, expected, new[gid])  # a tuple variable as index


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_cas_on_a_2d_array_indexed_by_the_grid_tuple(dtype):  # type: ignore[no-untyped-def]
    shape = (13, 9)
    array = np.where(RNG.random(shape) < 0.5, 7, values(dtype)[:9]).astype(dtype)
    new = RNG.integers(0, 100, shape).astype(dtype)
    d_array, d_old = cuda.to_device(array), cuda.to_device(np.zeros(shape, dtype))
    cas_2d_kernel[(4, 3), (4, 4)](d_array, d_old, cuda.to_device(new), dtype(7))
    np.testing.assert_array_equal(d_old.copy_to_host(), array)
    np.testing.assert_array_equal(d_array.copy_to_host(), np.where(array == 7, new, array))


@cuda.jit(device=True)
def as_uint64(value):  # type: ignore[no-untyped-def]
    return np.uint64(value)


@cuda.jit(device=True)
def add_at_thread(ary, operand, operation, cast, wrap):  # type: ignore[no-untyped-def]
    where = (cuda.threadIdx.x, cast(cuda.threadIdx.y))
    if wrap:  # a literal False: the branch (uint64 % int64 is float64) is pruned, as in Numba
        where = (where[0] % ary.shape[0], where[1] % ary.shape[1])
    operation(ary, where, operand)


@cuda.jit
def add_at_thread_kernel(ary):  # type: ignore[no-untyped-def]
    add_at_thread(ary, 1, cuda.atomic.add, as_uint64, False)


def test_literal_flag_prunes_a_branch_in_a_device_function():
    ary = RNG.integers(0, 32, (4, 8)).astype(np.float64)
    d_ary = cuda.to_device(ary)
    add_at_thread_kernel[1, (4, 8)](d_ary)
    np.testing.assert_array_equal(d_ary.copy_to_host(), ary + 1)


GLOBAL_FLAG = False


@cuda.jit
def pruned_kernel(out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        if GLOBAL_FLAG:
            out[i] = undefined_name  # noqa: F821 (never typed: the branch is pruned)
        else:
            out[i] = i


def test_constant_condition_prunes_the_branch_not_taken():
    out = cuda.to_device(np.zeros(N, np.int64))
    pruned_kernel[(N + 31) // 32, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(N))
