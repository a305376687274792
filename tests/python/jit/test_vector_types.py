"""numba-cuda's vector types in kernels (cuda.float32x4, cuda.int2, ...):
made from numbers and other vectors, read by .x/.y/.z/.w, kept in locals,
passed to and returned from device functions, looped over in tuples;
checked against the interpreter on random input."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import vector_types as vt
from cudakit.cuda.translate.errors import TypingError

from .interpreted import run_threads

RNG = np.random.default_rng(4)


@cuda.jit(device=True)
def swizzled(v):
    return cuda.float32x4(v.w, v.z, v.y, v.x)


@cuda.jit(device=True)
def dot3(a, b):
    return a.x * b.x + a.y * b.y + a.z * b.z


@cuda.jit
def mix(out, values, ints):
    i = cuda.grid(1)
    if i < out.shape[0]:
        pair = cuda.float2(values[i, 0], values[i, 1])
        single = cuda.float32x1(values[i, 2])
        v = cuda.float4(pair, single, values[i, 3])   # 2 + 1 + 1 components
        s = swizzled(v)
        t = cuda.float32x3(s.x, pair)
        out[i, 0] = s.x
        out[i, 1] = s.y
        out[i, 2] = s.z
        out[i, 3] = s.w
        out[i, 4] = dot3(t, cuda.float3(v.x, v.y, v.z))
        n = cuda.int2(ints[i], ints[i] * 3)  # int64 -> int32 components
        total = 0
        for w in (n, cuda.int32x2(n.y, n.x), cuda.int2(7, n.x)):
            total += w.x - w.y
        out[i, 5] = total
        u = cuda.uchar2(ints[i], 300)  # wraps as C's conversion does
        out[i, 6] = float(u.x) + float(u.y)


def test_vectors_match_the_interpreter():
    n = 77  # not a multiple of the block
    values = RNG.standard_normal((n, 4)).astype(np.float32)
    ints = RNG.integers(-50, 50, n).astype(np.int64)
    out = np.zeros((n, 7), np.float32)
    expected = run_threads(mix, n, out, values, ints)[0]
    mix[(n + 31) // 32, 32](out, values, ints)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)


def test_names_aliases_and_types_are_numba_cudas():
    assert len(vt.vector_types) == 40
    assert cuda.float4 is cuda.float32x4 and cuda.double2 is cuda.float64x2
    assert cuda.int2 is cuda.int32x2 and cuda.ulonglong3 is cuda.uint64x3
    assert cuda.char1 is cuda.int8x1 and cuda.uchar4 is cuda.uint8x4
    vector = vt.vector_types["int16x3"]
    assert (vector.name, vector.num_elements, vector.attr_names) == ("int16x3", 3, ("x", "y", "z"))
    assert vector.base_type == cuda.types.int16 and vector.user_facing_object is cuda.short3
    assert vector.ctype == "short3" and vt.vector_types["int64x2"].ctype == "longlong2"
    assert "short3" in cuda.int16x3.aliases


def test_host_vectors_flatten_and_convert():
    v = cuda.float32x4(cuda.float2(1, 2), 3, cuda.float32x1(4.5))
    assert (v.x, v.y, v.z, v.w) == (1, 2, 3, 4.5) and isinstance(v.w, np.float32)
    with pytest.raises(TypeError, match="needs 3 components"):
        cuda.int3(1, 2)
    with pytest.raises(AttributeError, match="read-only"):
        v.x = 2


def test_bad_construction_and_attributes_are_clear_errors():
    def wrong_count(out):
        out[0] = cuda.float3(1.0, 2.0).x

    def wrong_attribute(out):
        out[0] = cuda.float2(1.0, 2.0).z

    def wrong_base(out):
        out[0] = cuda.float2(cuda.int32x1(1), 2.0).x

    for function, message in [(wrong_count, "needs 3 components in all, got 2"),
                              (wrong_attribute, "has no attribute 'z'"),
                              (wrong_base, "takes float32 vectors")]:
        with pytest.raises(TypingError, match=message):
            cuda.jit(function)[1, 1](np.zeros(1, np.float32))


@cuda.jit
def tuple_loops(out, values):
    i = cuda.grid(1)
    if i < out.shape[0]:
        total = 0.0
        for x in (values[i, 0], values[i, 1] * 2.0, values[i, 2]):  # numbers of one type
            total += x
            if total > 1.5:
                break
        out[i] = total


def test_loops_over_a_tuple_of_one_type_match_the_interpreter():
    n = 45
    values = RNG.standard_normal((n, 3))
    out = np.zeros(n)
    expected = run_threads(tuple_loops, n, out, values)[0]
    tuple_loops[2, 32](out, values)
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    assert 0 < (expected != values.sum(axis=1) + values[:, 1]).sum() < n  # both exits taken
