"""cuda.guvectorize: generalized GPU ufuncs as Numba's, each call one
generated grid-stride kernel over the loop dimensions. Results are checked
against NumPy / the same Python function run by the interpreter, on fresh
random input."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit
from cudakit import cuda
from hostile_cases import Case, case_id, check_refused

RNG = np.random.default_rng(20)


def fresh(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    return RNG.integers(-100, 100, size=shape).astype(dtype)


@cuda.guvectorize(["void(float32[:], float32[:], float32[:])",
                   "void(float64[:], float64[:], float64[:])",
                   "void(int32[:], int32[:], int32[:])",
                   "void(int64[:], int64[:], int64[:])"], "(n),(n)->(n)")
def vadd(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]


@cuda.guvectorize(["void(float64[:, :], float64[:], float64[:])",
                   "void(float32[:, :], float32[:], float32[:])"], "(m,n),(n)->(m)")
def matvec(A, x, y):
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        y[i] = acc


@cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def row_sum(a, out):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i]
    out[0] = acc


@cuda.guvectorize(["void(float32, float32[:], float32[:], float32[:])"], "(),(t),(t)->(t)")
def saxpy(a, x, y, out):
    for i in range(out.shape[0]):
        out[i] = a * x[i] + y[i]


@cuda.jit(device=True)
def square(v):
    return v * v


@cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def sum_of_squares(a, out):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += square(a[i])
    out[0] = acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_elementwise_layout(dtype):
    a, b = fresh((13, 37), dtype), fresh((13, 37), dtype)
    got = vadd(a, b)
    assert got.dtype == dtype and got.shape == (13, 37)
    np.testing.assert_allclose(got, a + b, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_vector_layout(dtype):
    A, x = fresh((5, 7, 9), dtype), fresh((9,), dtype)
    got = matvec(A, x)
    assert got.shape == (5, 7)
    np.testing.assert_allclose(got, A @ x, rtol=1e-5, atol=1e-5)


def test_scalar_output():
    a = fresh((4, 51, 33), np.float64)
    np.testing.assert_allclose(row_sum(a), a.sum(-1), rtol=1e-12)


def test_device_function_in_the_body():
    a = fresh((301, 7), np.float64)
    np.testing.assert_allclose(sum_of_squares(a), (a * a).sum(-1), rtol=1e-12)


def test_scalar_input_pinned_and_per_row():
    x, y = fresh((11, 6), np.float32), fresh((11, 6), np.float32)
    np.testing.assert_allclose(saxpy(np.float32(2.5), x, y), 2.5 * x + y, rtol=1e-6)
    a = fresh(11, np.float32)
    np.testing.assert_allclose(saxpy(a, x, y), a[:, None] * x + y, rtol=1e-6, atol=1e-6)


def test_numbers_are_cast_as_numba_does():
    x, y = fresh(6, np.float32), fresh(6, np.float32)
    np.testing.assert_allclose(saxpy(2.0, x, y), np.float32(2.0) * x + y, rtol=1e-6)


def test_device_arrays_in_and_out_on_a_stream():
    stream = cuda.stream()
    A, x = fresh((257, 3, 4), np.float32), fresh((4,), np.float32)
    dA = cuda.to_device(A, stream)
    dy = cuda.device_array((257, 3), np.float32, stream=stream)
    got = matvec(dA, x, out=dy, stream=stream)
    assert got is dy
    stream.synchronize()
    np.testing.assert_allclose(dy.copy_to_host(), A @ x, rtol=1e-5, atol=1e-5)
    result = matvec(dA, cuda.to_device(x))
    assert isinstance(result, cuda.DeviceNDArray)


def test_out_positional_and_host():
    a, b = fresh((3, 77), np.int32), fresh((3, 77), np.int32)
    out = np.zeros((3, 77), np.int32)
    assert vadd(a, b, out) is out
    np.testing.assert_array_equal(out, a + b)


def test_lazy_with_outputs_given():
    @cuda.guvectorize("(n),(n)->(n)")
    def mul(a, b, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * b[i]
    a, b = fresh((9, 40), np.float64), fresh(40, np.float64)
    out = np.empty((9, 40))
    mul(a, b, out=out)
    np.testing.assert_allclose(out, a * b)


def test_toplevel_spelling_with_target():
    @cudakit.guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cuda")
    def biggest(a, out):
        m = a[0]
        for i in range(1, a.shape[0]):
            m = max(m, a[i])
        out[0] = m
    a = fresh((19, 23), np.float64)
    np.testing.assert_array_equal(biggest(a), a.max(-1))


def test_one_kernel_launch_per_call(monkeypatch):
    launches = []
    original = cuda.Dispatcher.__getitem__

    def counting(self, config):
        launches.append(self.__name__)
        return original(self, config)

    monkeypatch.setattr(cuda.Dispatcher, "__getitem__", counting)
    matvec(fresh((6, 2, 3), np.float64), fresh(3, np.float64))
    assert launches == ["gufunc_matvec"]


def copy(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i]


F8 = np.ones((2, 3))
CASES = [
    Case("core dimension mismatch", lambda: vadd(F8, np.ones((2, 4))), ValueError,
         r"dimension 'n' .* is 3 in argument 0 \(axis 1\) but 4 in argument 1 \(axis 1\)"),
    Case("too few dimensions", lambda: matvec(np.ones(3), np.ones(3)), ValueError,
         r"argument 0 has shape \(3,\).*at least 2"),
    Case("loop dimensions differ", lambda: vadd(np.ones((2, 3)), np.ones((4, 3))), ValueError,
         r"argument 0 has loop dimensions \(2,\); they must be \(4,\)"),
    Case("no signature for complex", lambda: vadd(F8.astype(np.complex128), F8), TypeError,
         r"no signature for inputs of dtypes \(complex128, float64\); .*\(float32, float32\) -> \(float32\); \(float64, "
         r"float64\) -> \(float64\)"),
    Case("device array needing a cast", lambda: vadd(cuda.to_device(F8.astype(np.int64)),
                                                     F8.astype(np.int32)), TypeError,
         r"does not support .astype\(\)"),
    Case("out of the wrong shape", lambda: vadd(F8, F8, out=np.empty((3, 2))), ValueError,
         r"output 0 has shape \(3, 2\).*gives \(2, 3\)"),
    Case("out of the wrong dtype", lambda: vadd(F8, F8, out=np.empty((2, 3), np.float32)),
         TypeError, r"output 0 has dtype float32.*writes float64"),
    Case("out twice", lambda: vadd(F8, F8, F8, out=F8), ValueError,
         r"cannot specify argument 'out' as both positional and keyword"),
    Case("wrong argument count", lambda: vadd(F8), TypeError,
         r"accepts 2 positional arguments .* or 3 positional arguments .* Got 1 positional "
         r"argument\."),
    Case("layout without arrow", lambda: cuda.guvectorize(["void(f8[:], f8[:])"], "(n)(n)"),
         ValueError, r"bad layout '\(n\)\(n\)': it needs one '->'"),
    Case("layout with a bad group", lambda: cuda.guvectorize(["void(f8[:], f8[:])"],
                                                             "(n],(n)->(n)"),
         ValueError, r"bad layout .*stuck at"),
    Case("layout output symbol unknown", lambda: cuda.guvectorize(["void(f8[:], f8[:])"],
                                                                  "(n)->(m)"),
         NameError, r"undefined output symbols: m"),
    Case("layout not a string", lambda: cuda.guvectorize(["void(f8[:], f8[:])"], 3),
         TypeError, r"layout is a string"),
    Case("signature returns a value", lambda: cuda.guvectorize(["int32(int32[:], int32[:])"],
                                                               "(n)->(n)")(copy),
         TypeError, r"cannot return values: .*specifies int32 return type"),
    Case("signature dims disagree", lambda: cuda.guvectorize(["void(f8[:, :], f8[:])"],
                                                             "(n)->(n)")(copy),
         TypeError, r"argument 0 .* is 2-d; the layout gives it 1 core"),
    Case("lazy without outputs", lambda: cuda.guvectorize("(n)->(n)")(copy)(F8), TypeError,
         r"needs its output arrays"),
    Case("nopython=False", lambda: cuda.guvectorize(["void(f8[:], f8[:])"], "(n)->(n)",
                                                    nopython=False), TypeError,
         r"nopython flag must be True"),
    Case("cpu target", lambda: cudakit.guvectorize("(n)->(n)", target="parallel"),
         ValueError, r"target='parallel' is not supported"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case):
    check_refused(case)
