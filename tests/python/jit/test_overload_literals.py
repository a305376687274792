"""@overload templates see Numba's literal types (types.IntegerLiteral,
BooleanLiteral) for arguments known when the kernel is compiled, when they
gave no implementation for the plain types; results checked against the
interpreter running the same kernel on fresh random input."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import types
from cudakit.cuda.extending import overload

from .interpreted import run_threads

RNG = np.random.default_rng(41)
N = 45  # not a multiple of the block


def scaled(x, n, negate):
    """The Python meaning (what the interpreter runs)."""
    return -x * n if negate else x * n


@overload(scaled)
def _scaled_for_literals(x, n, negate):
    if isinstance(n, types.IntegerLiteral) and isinstance(negate, types.BooleanLiteral):
        factor = -n.literal_value if negate.literal_value else n.literal_value

        def impl(x, n, negate):
            return x * factor
        return impl
    return None


def scale_by_literals(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = scaled(x[i], 3, True) + scaled(x[i], 2, False)


def scale_by_value(out, x, n):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = scaled(x[i], n, False)


def test_literal_arguments_reach_the_template_as_literal_types():
    assert isinstance(types.BooleanLiteral(True, types.boolean), types.IntegerLiteral)
    x = RNG.standard_normal(N)
    out = np.zeros(N)
    cuda.jit(scale_by_literals)[2, 32](out, x)
    expected = run_threads(scale_by_literals, N, np.zeros(N), x)[0]
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    np.testing.assert_allclose(out, -x, rtol=1e-12)


def test_a_runtime_value_gets_no_literal_implementation():
    x = RNG.standard_normal(N)
    with pytest.raises(cuda.TypingError, match="no @overload of scaled"):
        cuda.jit(scale_by_value)[2, 32](np.zeros(N), x, 4)
