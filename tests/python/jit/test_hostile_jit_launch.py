"""Hostile input to @cuda.jit launches: the first call (which compiles) and
the warm call both read arguments through the one converter, so each case
is checked twice; every refusal names the argument or the launch setting."""

from __future__ import annotations

import numpy as np
import pytest
from hostile_cases import Case

from cudakit import cuda


@cuda.jit
def add_to(out, value):
    i = cuda.grid(1)
    if i < out.size:
        out[i] += value


@cuda.jit
def sum_pair(out, pair):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = pair[0] + pair[1]


N = 301


class StridedInterface:
    """A __cuda_array_interface__ whose stride is not a multiple of the item."""

    def __init__(self, base):
        self.base = base
        self.__cuda_array_interface__ = {
            "shape": (10,), "strides": (12,), "typestr": "<f8",
            "data": (base.device_ctypes_pointer.value, False), "version": 3}


CASES = [
    Case("int wider than 64 bits", lambda d: add_to[3, 128](d, 2**70),
         Exception, r"argument 1 .*does not fit"),
    Case("negative sharedmem", lambda d: add_to[3, 128, 0, -1](d, 1.0),
         ValueError, r"sharedmem=-1 is not a number of bytes"),
    Case("float sharedmem", lambda d: add_to[3, 128, 0, 1.5](d, 1.0),
         TypeError, r"sharedmem must be an int"),
    Case("negative stream handle", lambda d: add_to[3, 128, -1](d, 1.0),
         ValueError, r"stream handle -1 is not a stream"),
    Case("grid past 32 bits", lambda d: add_to[2**40, 128](d, 1.0),
         ValueError, r"griddim .* past 2\*\*32 - 1"),
    Case("zero block", lambda d: add_to[3, 0](d, 1.0),
         ValueError, r"blockdim must be positive"),
    Case("too few arguments", lambda d: add_to[3, 128](d),
         TypeError, r"takes 2 arguments, 1 given"),
    Case("a string for a number", lambda d: add_to[3, 128](d, "1"),
         Exception, r"argument 1|cannot pass str"),
    Case("stride not a multiple of the item", lambda d: add_to[1, 16](StridedInterface(d), 1.0),
         Exception, r"stride 12 bytes on axis 0 is not a multiple of the 8-byte element"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refused_and_nothing_written(case: Case) -> None:
    host = np.random.default_rng(11).standard_normal(N)
    d = cuda.to_device(host)
    add_to[3, 128](d, 0.5)  # warm: this signature is compiled
    host = host + 0.5
    for _ in range(2):  # the same refusal twice
        with pytest.raises(case.error, match=case.message):
            case.run(d)
    np.testing.assert_allclose(d.copy_to_host(), host)


def test_numbers_convert_to_the_signature_on_first_and_warm_calls() -> None:
    host = np.random.default_rng(12).standard_normal(N).astype(np.float32)
    for call in range(2):
        d = cuda.to_device(host)
        add_to[3, 128](d, np.float32(1.25))
        add_to[3, 128](d, 2)  # an int64 specialization
        add_to[3, 128](d, True)
        np.testing.assert_allclose(d.copy_to_host(), host + np.float32(1.25) + 2 + 1, rtol=1e-6)


def test_tuples_pack_with_c_struct_padding() -> None:
    out = cuda.device_array(N, np.float64)
    for pair in [(np.int8(-3), 2.5), (np.int32(7), np.float32(0.25)), (1, np.uint16(9))]:
        sum_pair[3, 128](out, pair)
        np.testing.assert_allclose(out.copy_to_host(), np.full(N, float(pair[0]) + float(pair[1])))


def test_foreign_array_interface_is_viewed_in_place() -> None:
    host = np.random.default_rng(13).standard_normal((7, 43))
    d = cuda.to_device(host)

    class Foreign:
        __cuda_array_interface__ = d.__cuda_array_interface__

    @cuda.jit
    def double(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] *= 2

    double[(1, 3), (8, 16)](Foreign())
    np.testing.assert_allclose(d.copy_to_host(), host * 2)
