"""Device functions that call themselves or each other: with a signature,
without one (the return type from the return statements that do not
recurse, wherever they are), in a cycle of two functions; against the
interpreter on fresh random inputs. A function that recurses on every path
is refused with a TypingError."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda.translate.errors import TypingError

from .interpreted import run_threads

RNG = np.random.default_rng()
N = 45  # threads, not a multiple of the block
BLOCK = 32


@cuda.jit("i8(i8)", device=True)
def fib_signed(n):  # type: ignore[no-untyped-def]
    if n < 2:
        return n
    return fib_signed(n - 1) + fib_signed(n - 2)


@cuda.jit(device=True)
def fib_late_base(n):  # type: ignore[no-untyped-def]
    if n >= 2:  # the recursive return comes before the one that types it
        return fib_late_base(n - 1) + fib_late_base(n - 2)
    return n


@cuda.jit(device=True)
def is_even(n):  # type: ignore[no-untyped-def]
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):  # type: ignore[no-untyped-def]
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit(device=True)
def scaled_sum(x, n):  # type: ignore[no-untyped-def]
    if n == 0:
        return x
    return x * 0.5 + scaled_sum(x + 1.0, n - 1)


@cuda.jit
def recursive_kernel(k, x, ints, floats, flags):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < k.size:
        ints[i, 0] = fib_signed(k[i])
        ints[i, 1] = fib_late_base(k[i])
        flags[i] = is_even(k[i])
        floats[i] = scaled_sum(x[i], k[i] % 6)


def test_recursive_device_functions_match_the_interpreter():
    k = RNG.integers(0, 16, N)
    k[:2] = [0, 1]
    x = RNG.standard_normal(N)
    args = (k, x, np.zeros((N, 2), np.int64), np.zeros(N), np.zeros(N, np.bool_))
    device = [cuda.to_device(a) for a in args]
    recursive_kernel[(N + BLOCK - 1) // BLOCK, BLOCK](*device)
    expected = run_threads(recursive_kernel, N, *args)
    for got, want in zip(device[2:], expected[2:]):
        np.testing.assert_array_equal(got.copy_to_host(), want)


@cuda.jit(device=True)
def runaway(x):  # type: ignore[no-untyped-def]
    return runaway(x)


def test_recursion_on_every_path_is_a_typing_error():
    with pytest.raises(TypingError, match="runaway recursion.*base case"):
        @cuda.jit("void()")
        def kernel():  # type: ignore[no-untyped-def]
            runaway(1)
