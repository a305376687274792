"""Functions defined inside kernels and device functions (closures over the
enclosing function's read-only values), checked against the interpreter
running the same Python function on fresh random input."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda

RNG = np.random.default_rng()
N = 77  # not a multiple of the block
BLOCK = 32


@cuda.jit(device=True)
def affine_twice(x, scale):
    shift = 1.5

    def affine(v, extra=0.25):
        return v * scale + shift + extra

    first = affine(x)
    shift = -2.0  # read at the call, as Python's closures do
    return first + affine(x, extra=3.0) + affine(extra=1.0, v=2.0)


@cuda.jit(device=True)
def window_sum(a, i, width):
    n = a.shape[0]

    def at(j):
        return a[(i + j) % n]

    total = 0.0
    for j in range(width):
        total += at(j) - at(-j)
    return total


@cuda.jit(device=True)
def nested_twice(x, k):
    def outer_step(v):
        def inner_step(w):
            return w * k + 1

        return inner_step(v) - inner_step(k)

    square = lambda v: v * v  # noqa: E731
    half = 0.5

    def plus_half(v):
        return v + half

    def uses_sibling(v):
        return plus_half(v) * 2

    return outer_step(x) + square(x) + uses_sibling(x)


@cuda.jit(device=True)
def apply(func, x):
    return func(x) + func(x + 1)


@cuda.jit(device=True)
def passes_closure(x):
    offset = 7

    def add_offset(v):
        return v + offset

    return apply(add_offset, x)


@cuda.jit
def map_affine(out, xs, scale):
    i = cuda.grid(1)
    if i < xs.size:
        out[i] = affine_twice(xs[i], scale)


@cuda.jit
def map_window(out, a, width):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = window_sum(a, i, width)


@cuda.jit
def map_nested(out, xs, ks):
    i = cuda.grid(1)
    if i < xs.size:
        out[i] = nested_twice(xs[i], ks[i]) + passes_closure(ks[i])


@cuda.jit
def writes_through_closure(out, xs, factor):
    i = cuda.grid(1)
    limit = xs.size

    def store(j, v):
        if j < limit:
            out[j] = v * factor

    store(i, xs[i] if i < limit else 0.0)


@cuda.jit(device=True)
def combine(*values):
    if len(values) == 1:
        total = values[0]
    elif len(values) == 2:  # pruned when len(values) is 1, as Numba does
        total = values[0] * values[1]
    else:
        total = values[0] + values[1] + values[2]
    return total


@cuda.jit(device=True)
def spread_into(func, *args):
    return func(*args)


@cuda.jit(device=True)
def star_args_closures(x, y):
    bias = 3

    def weigh(*parts):
        return combine(*parts) + bias

    return weigh(x) + weigh(x, y) + spread_into(weigh, x, y, x) + combine(y)


@cuda.jit
def map_star_args(out, xs, ys):
    i = cuda.grid(1)
    if i < xs.size:
        out[i] = star_args_closures(xs[i], ys[i])


@cuda.jit(device=True)
def siblings_share_an_array(a, i):
    n = a.shape[0]

    def at(j):
        return a[j % n]

    def pair(j, a_of_its_own):
        return at(j) + at(j + 1) + a_of_its_own

    def shadows(a):  # its own `a`: at() still reads the enclosing one
        return at(i) * a

    return pair(i, 0.5) + shadows(2.0)


@cuda.jit
def map_siblings(out, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = siblings_share_an_array(a, i)


def launch(kernel, n, *args):
    kernel[(n + BLOCK - 1) // BLOCK, BLOCK](*args)
    cuda.synchronize()


def test_nested_def_with_defaults_keywords_and_late_binding():
    xs = RNG.standard_normal(N)
    out = np.zeros(N)
    launch(map_affine, N, out, xs, 1.75)
    expected = [affine_twice.py_func(x, 1.75) for x in xs.tolist()]
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_nested_def_reads_a_captured_array():
    a = RNG.standard_normal(N)
    width = int(RNG.integers(3, 9))
    out = np.zeros(N)
    launch(map_window, N, out, a, width)
    expected = [window_sum.py_func(a, i, width) for i in range(N)]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_closures_in_closures_lambdas_siblings_and_escape_to_device_function():
    xs = RNG.integers(-50, 50, N).astype(np.int64)
    ks = RNG.integers(-9, 9, N).astype(np.int64)
    out = np.zeros(N)
    launch(map_nested, N, out, xs, ks)
    expected = [nested_twice.py_func(x, k) + passes_closure.py_func(k)
                for x, k in zip(xs.tolist(), ks.tolist())]
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_nested_def_writes_into_a_captured_array():
    xs = RNG.standard_normal(N).astype(np.float32)
    out = np.zeros(N, np.float32)
    launch(writes_through_closure, N, out, xs, np.float32(2.5))
    np.testing.assert_allclose(out, xs * np.float32(2.5), rtol=1e-6)


def test_a_nested_function_calls_a_sibling_that_captures_an_array():
    a = RNG.standard_normal(N)
    out = np.zeros(N)
    launch(map_siblings, N, out, a)
    expected = [siblings_share_an_array.py_func(a, i) for i in range(N)]
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_star_args_in_device_and_nested_functions():
    xs = RNG.integers(-1000, 1000, N).astype(np.int64)
    ys = RNG.integers(-1000, 1000, N).astype(np.int64)
    out = np.zeros(N, np.int64)
    launch(map_star_args, N, out, xs, ys)
    expected = [star_args_closures.py_func(x, y) for x, y in zip(xs.tolist(), ys.tolist())]
    np.testing.assert_array_equal(out, expected)


def test_a_kernel_with_star_args_is_refused():
    @cuda.jit
    def kernel(out, *rest):
        out[0] = 1

    with pytest.raises(cuda.UnsupportedError, match=r"\*args is for device functions"):
        kernel[1, 1](np.zeros(1), 2)


def _returns_inner(x):
    def inner(v):
        return v + 1

    return inner


def _recursive(x):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    return fact(x)


def _nonlocal(x):
    total = 0

    def bump(v):
        nonlocal total
        total += v

    bump(x)
    return total


def _escapes_with_array(a, x):
    def inner(v):
        return v + a[0]

    return apply(inner, x)


def _defined_twice(x):
    if x > 0:
        def inner(v):
            return v + 1
    else:
        def inner(v):
            return v - 1
    return inner(x)


@pytest.mark.parametrize("function,error,message", [
    (_returns_inner, cuda.UnsupportedError, "returning the nested function 'inner'"),
    (_recursive, cuda.UnsupportedError, "'fact' calls itself: recursion is not supported"),
    (_nonlocal, cuda.UnsupportedError, "'nonlocal total' in the nested function 'bump'"),
    (_escapes_with_array, cuda.TypingError,
     "Cannot capture the non-constant value associated with 'a'"),
    (_defined_twice, cuda.TypingError, "'inner' is defined more than once"),
])
def test_unsupported_nested_functions_say_what_and_what_to_do(function, error, message):
    device = cuda.jit(device=True)(function)

    @cuda.jit
    def kernel(out):
        out[0] = device(3)

    @cuda.jit
    def kernel_with_array(out):
        out[0] = device(out, 3)

    with pytest.raises(error, match=message):
        if function is _escapes_with_array:
            kernel_with_array[1, 1](np.zeros(1))
        else:
            kernel[1, 1](np.zeros(1))
