"""Hostile input to SourceModule launches and prepared calls: every case goes
through the one converter (python/src/arg_convert.cpp) and the core's
checked launch, and gives an error naming the argument or keyword and what is
accepted, with nothing written. One line per case."""

from __future__ import annotations

import numpy as np
import pytest
from hostile_cases import Case

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit.compiler import SourceModule

SOURCE = """
__global__ void scale(float *x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
__global__ void count(int *out, long long n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}
struct pair { float re, im; };
__global__ void put_pair(pair *out, pair value) { out[0] = value; }
"""

N = 301  # not a multiple of the block


@pytest.fixture(scope="module")
def mod() -> SourceModule:
    return SourceModule(SOURCE)


def scale(m, x, *args, **kw):
    kw.setdefault("block", (128, 1, 1))
    kw.setdefault("grid", (3, 1))
    return m.get_function("scale")(*args, **kw)


def prepared(m):
    return m.get_function("scale").prepare("Pfi")


CASES = [
    Case("shared=-1", lambda m, x: scale(m, x, x, np.float32(2), np.int32(N), shared=-1),
         drv.ArgumentError, r"shared=-1 is not a number of bytes"),
    Case("shared=2**40", lambda m, x: scale(m, x, x, np.float32(2), np.int32(N), shared=2**40),
         drv.ArgumentError, r"shared=1099511627776 is not a number of bytes"),
    Case("shared='4'", lambda m, x: scale(m, x, x, np.float32(2), np.int32(N), shared="4"),
         drv.ArgumentError, r"shared must be an int"),
    Case("prepared shared_size=-5",
         lambda m, x: prepared(m).prepared_call((3, 1), (128, 1, 1), x.gpudata, np.float32(2),
                                               np.int32(N), shared_size=-5),
         drv.ArgumentError, r"shared_size=-5"),
    Case("block of a float", lambda m, x: scale(m, x, x, np.float32(2), np.int32(N),
                                                block=(128.0, 1, 1)),
         TypeError, r"(?s)block entries must be ints, got float 128\.0.*int\(x\)"),
    Case("grid past 32 bits", lambda m, x: scale(m, x, x, np.float32(2), np.int32(N),
                                                 grid=(2**40, 1)),
         drv.ArgumentError, r"grid extent 1099511627776 is not a positive 32-bit number"),
    Case("block of 0", lambda m, x: scale(m, x, x, np.float32(2), np.int32(N), block=(0, 1, 1)),
         drv.ArgumentError, r"block extent 0"),
    Case("int wider than 64 bits", lambda m, x: scale(m, x, x, np.float32(2), 2**70),
         drv.ArgumentError, r"argument 2 .*1180591620717411303424 does not fit"),
    Case("int too large for int", lambda m, x: scale(m, x, x, np.float32(2), 2**40),
         drv.ArgumentError, r"parameter 2 'n' \(int\).*1099511627776"),
    Case("float for int", lambda m, x: scale(m, x, x, np.float32(2), 3.5),
         drv.ArgumentError, r"parameter 2 'n'.*float 3\.5"),
    Case("Python int for a pointer", lambda m, x: scale(m, x, 12345, np.float32(2), N),
         drv.ArgumentError, r"passed a Python int 12345 for a pointer parameter"),
    Case("Python float for a pointer", lambda m, x: scale(m, x, 1.5, np.float32(2), N),
         drv.ArgumentError, r"passed a Python float 1\.5 for a pointer parameter"),
    Case("float64 GPUArray for float*",
         lambda m, x: scale(m, x, gpuarray.to_gpu(np.ones(N)), np.float32(2), N),
         drv.ArgumentError, r"(?s)float64 elements; the kernel reads float32.*astype"),
    Case("In(float64) for float*",
         lambda m, x: scale(m, x, drv.In(np.ones(N)), np.float32(2), N),
         drv.ArgumentError, r"In of float64 elements; the kernel reads float32"),
    Case("numpy host array", lambda m, x: scale(m, x, np.ones(N, np.float32), np.float32(2), N),
         drv.ArgumentError, r"a numpy array is host memory"),
    Case("None", lambda m, x: scale(m, x, None, np.float32(2), N),
         drv.ArgumentError, r"argument 0 \(NoneType\): cannot be passed"),
    Case("numpy longdouble for int", lambda m, x: scale(m, x, x, np.float32(2), np.longdouble(3)),
         drv.ArgumentError, r"parameter 2 'n' \(int\): passed a 16-byte struct"),
    Case("a string", lambda m, x: scale(m, x, x, "2", N),
         drv.ArgumentError, r"argument 1 \(str\)"),
    Case("one argument too many", lambda m, x: scale(m, x, x, np.float32(2), N, N),
         drv.ArgumentError, r"expected 3 arguments, got 4"),
    Case("unknown keyword", lambda m, x: scale(m, x, x, np.float32(2), N, blocks=(1, 1, 1)),
         drv.ArgumentError, r"unknown keyword\(s\): blocks"),
    Case("prepared: negative int for a pointer",
         lambda m, x: prepared(m).prepared_call((3, 1), (128, 1, 1), -8, np.float32(2),
                                               np.int32(N)),
         drv.ArgumentError, r"passed a Python int -8 for a pointer parameter"),
    Case("prepared: wrong count",
         lambda m, x: prepared(m).prepared_call((3, 1), (128, 1, 1), x.gpudata),
         drv.ArgumentError, r"prepare\(\) declared 3 arguments"),
    Case("struct of the wrong size",
         lambda m, x: m.get_function("put_pair")(x, np.float64(1), block=(1, 1, 1)),
         drv.ArgumentError, r"parameter 1 'value'"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refused_and_nothing_written(mod, case: Case) -> None:
    host = np.random.default_rng(3).standard_normal(N).astype(np.float32)
    x = gpuarray.to_gpu(host)
    with pytest.raises(case.error, match=case.message) as info:
        case.run(mod, x)
    assert getattr(info.value, "hint", "x"), "every refusal says what to do"
    np.testing.assert_array_equal(x.get(), host)
    # The same call again behaves the same (no state left behind).
    with pytest.raises(case.error, match=case.message):
        case.run(mod, x)


def test_numpy_integers_for_grid_block_and_shared(mod) -> None:
    host = np.random.default_rng(4).standard_normal(N).astype(np.float32)
    x = gpuarray.to_gpu(host)
    scale(mod, x, x, np.float32(3), np.int32(N), block=(np.int64(128), np.int32(1), 1),
          grid=(np.uint8(3), 1), shared=np.int64(0))
    np.testing.assert_allclose(x.get(), host * 3, rtol=1e-6)


def test_intp_address_reinterprets_on_purpose(mod) -> None:
    # numpy.intp(a.gpudata): PyCUDA's way to pass a bare address; no element check.
    values = np.arange(N, dtype=np.int32)
    a = gpuarray.to_gpu(values.view(np.float32))
    mod.get_function("count")(np.intp(int(a.gpudata)), np.int64(N), block=(128, 1, 1),
                              grid=(3, 1))
    np.testing.assert_array_equal(a.get().view(np.int32), values)


def test_int_subclass_pointer_and_prepared_address(mod) -> None:
    host = np.random.default_rng(5).standard_normal(N).astype(np.float32)
    x = gpuarray.to_gpu(host)
    prepared(mod).prepared_call((3, 1), (128, 1, 1), int(x.gpudata), np.float32(2), np.int32(N))
    np.testing.assert_allclose(x.get(), host * 2, rtol=1e-6)
    scale(mod, x, x.gpudata, np.float32(0.5), N)  # gpudata: a device pointer object
    np.testing.assert_allclose(x.get(), host, rtol=1e-6)


def test_numpy_record_by_value(mod) -> None:
    pair = np.dtype([("re", np.float32), ("im", np.float32)])
    value = np.array((1.5, -2.25), dtype=pair)[()]
    out = gpuarray.zeros(2, np.float32)
    mod.get_function("put_pair")(out, value, block=(1, 1, 1))
    np.testing.assert_array_equal(out.get(), [1.5, -2.25])
    out.fill(0)
    mod.get_function("put_pair")(out, np.complex64(1.5 - 2.25j), block=(1, 1, 1))
    np.testing.assert_array_equal(out.get(), [1.5, -2.25])
