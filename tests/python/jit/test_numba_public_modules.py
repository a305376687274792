"""numba-cuda's public modules on cudakit: np.numpy_support, compiler
(compile_ptx), typing, args (cuda.In / Out / InOut), kernel extensions,
kernels.transpose, cudadrv, and the device array's flags / gpu_data; each
result checked against NumPy or the interpreter on fresh random input."""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

from cudakit import _core, cuda
from cudakit.cuda import types
from cudakit.cuda.args import In, InOut, Out, wrap_arg
from cudakit.cuda.compiler import compile, compile_ptx, compile_ptx_for_current_device
from cudakit.cuda.cudadrv import devicearray, driver, runtime
from cudakit.cuda.kernels.transpose import transpose
from cudakit.cuda.np import numpy_support
from cudakit.cuda.typing import signature, typeof
from hostile_cases import Case, case_id, check_refused

from .conftest import needs_nvrtc

RNG = np.random.default_rng(2024)
N = 37  # not a multiple of the block
RECORD = np.dtype([("a", np.int32), ("b", np.float64)], align=True)




# ---- numpy_support --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64, np.float16,
                                   np.float32, np.float64, np.complex64, np.complex128,
                                   np.bool_, RECORD, "M8[D]", "m8[s]"])
def test_from_dtype_and_as_dtype_round_trip(dtype):
    kernel_type = numpy_support.from_dtype(np.dtype(dtype))
    assert numpy_support.as_dtype(kernel_type) == np.dtype(dtype)


def test_from_dtype_gives_the_types_signatures_use():
    assert numpy_support.from_dtype(np.float32) is types.float32
    assert numpy_support.from_dtype(np.dtype("int64"))[::1] == types.int64[::1]



REFUSED = [
    Case("from_dtype of a string dtype", lambda: numpy_support.from_dtype("U8"),
         TypeError, "string"),
    Case("from_dtype of a non-dtype", lambda: numpy_support.from_dtype(object()), TypeError,
         "not a NumPy dtype"),
    Case("as_dtype of an array type", lambda: numpy_support.as_dtype(types.float32[:]),
         NotImplementedError, "cannot be represented as a NumPy dtype"),
    Case("carray of a non-pointer", lambda: numpy_support.carray(5, (2,)), TypeError,
         "expected a ctypes pointer"),
    Case("carray of void* without a dtype",
         lambda: numpy_support.carray(ctypes.c_void_p(16), (2,)), TypeError, "dtype"),
    Case("compile to a cubin", lambda: compile(lambda x: x, (types.int32,), output="cubin"),
         NotImplementedError, "Unsupported output type: cubin"),
    Case("compile a kernel with the C ABI",
         lambda: compile(lambda x: None, (types.int32,), device=False, abi="c"),
         NotImplementedError, "The C ABI is not supported for kernels"),
    Case("signature with a non-type argument", lambda: signature(types.int32, 5), TypeError,
         "argument 0 must be a type"),
    Case("typeof of an object", lambda: typeof(object()), ValueError,
         "cannot determine the kernel type"),
    Case("transpose of a 1-d array", lambda: transpose(np.zeros(3)), ValueError, "2-d"),
    Case("transpose into a wrong shape",
         lambda: transpose(cuda.to_device(np.zeros((2, 3))), cuda.device_array((2, 3))),
         ValueError, r"shape \(3, 2\)"),
    Case("Out of a read-only array", lambda: _launch_set_first(Out(_read_only())), ValueError,
         "read-only"),
]


@pytest.mark.parametrize("case", REFUSED, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


def test_carray_and_farray_on_the_host_view_the_memory():
    data = RNG.random(6)
    pointer = data.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    np.testing.assert_array_equal(numpy_support.carray(pointer, (2, 3)), data.reshape(2, 3))
    np.testing.assert_array_equal(numpy_support.farray(pointer, (2, 3)),
                                  data.reshape(2, 3, order="F"))


# ---- typing ---------------------------------------------------------------------------

def test_typeof_and_signature():
    assert typeof(RNG.random((3, 4)).astype(np.float32)) == types.float32[:, ::1]
    assert typeof(cuda.to_device(RNG.random(5))) == types.float64[::1]
    assert typeof(np.asfortranarray(RNG.random((3, 4)))) == types.Array(types.float64, 2, "F")
    assert typeof(3) == types.int64 and typeof(2.5) == types.float64
    assert typeof((1, 2.0)) == types.Tuple((types.int64, types.float64))
    sig = signature(types.float32, types.int32, types.float32[:])
    assert sig.return_type == types.float32 and sig.args == (types.int32, types.float32[:])
    assert signature(types.void, types.int32).return_type == types.none
    assert isinstance(types.UniTuple(types.int8, 3), types.UniTuple)
    assert not isinstance(types.Tuple((types.int8, types.int16)), types.UniTuple)


# ---- compile_ptx ----------------------------------------------------------------------

def scaled_tanh(r, x):
    r[0] = math.tanh(x) * 2


def axpy(a, x, y):
    return a * x + y


@needs_nvrtc
def test_compile_ptx_of_a_kernel_follows_fastmath():
    fast, fast_type = compile_ptx(scaled_tanh, (types.float32[::1], types.float32),
                                  fastmath=True)
    precise, _ = compile_ptx(scaled_tanh, (types.float32[::1], types.float32))
    assert ".entry scaled_tanh" in fast and fast_type == types.none
    assert "tanh.approx.f32" in fast and "tanh.approx.f32" not in precise


@needs_nvrtc
def test_compile_of_a_device_function_exports_it():
    ptx, return_type = compile_ptx(axpy, (types.float32, types.float32, types.float32),
                                   device=True)
    assert return_type == types.float32 and ".visible .func" in ptx and "axpy" in ptx
    ptx, return_type = compile(axpy, "float64(float32, float32, float32)",
                               abi_info={"abi_name": "my_axpy"})
    assert return_type == types.float64 and "my_axpy" in ptx
    ptx, _ = compile_ptx_for_current_device(axpy, (types.int32,) * 3, device=True)
    assert ".target sm_" in ptx


@needs_nvrtc
def test_inspect_asm_follows_fastmath_for_kernels_and_device_functions():
    sig = (types.float32[::1], types.float32)
    fast = cuda.jit(sig, fastmath=True)(scaled_tanh).inspect_asm(sig)
    precise = cuda.jit(sig)(scaled_tanh).inspect_asm(sig)
    assert "tanh.approx.f32" in fast and "tanh.approx.f32" not in precise
    device = cuda.jit("float32(float32, float32, float32)", device=True, fastmath=True)(axpy)
    assert "axpy" in device.inspect_asm((types.float32,) * 3)


# ---- cuda.In / Out / InOut and kernel extensions ---------------------------------------

def add_one(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] + 1
        x[i] = -1.0


def _read_only():
    array = np.zeros(3)
    array.flags.writeable = False
    return array


def set_first(a):
    a[0] = 1


def _launch_set_first(arg):
    cuda.jit(set_first)[1, 1](arg)


def test_in_out_inout_copy_as_their_direction_says():
    kernel = cuda.jit(add_one)
    x = RNG.random(N)
    out = RNG.random(N)
    x_before = x.copy()
    kernel[2, 32](Out(out), In(x))
    np.testing.assert_array_equal(out, x_before + 1)
    np.testing.assert_array_equal(x, x_before)  # In: not copied back
    kernel[2, 32](Out(out), InOut(x))
    np.testing.assert_array_equal(x, -np.ones(N))
    assert isinstance(wrap_arg(x), InOut) and wrap_arg(In(x)).value is x


def test_extensions_prepare_the_arguments():
    class ReadOnlyByDefault:
        def prepare_args(self, ty, val, stream=0, retr=None):
            return ty, wrap_arg(val, default=In)

    kernel = cuda.jit(add_one)
    kernel.extensions.append(ReadOnlyByDefault())
    x = RNG.random(N)
    out = np.zeros(N)
    kernel[2, 32](out, x)
    assert not out.any()  # In by default: nothing comes back
    kernel[2, 32](InOut(out), x)
    np.testing.assert_array_equal(out, x + 1)


# ---- transpose, cudadrv, device array attributes ----------------------------------------

@pytest.mark.parametrize("shape", [(33, 70), (1, 5), (64, 31)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128])
def test_transpose_matches_numpy(shape, dtype):
    x = (RNG.random(shape) * 100).astype(dtype)
    np.testing.assert_array_equal(transpose(cuda.to_device(x)).copy_to_host(), x.T)
    into = cuda.device_array(shape[::-1], dtype)
    assert transpose(x, into) is into
    np.testing.assert_array_equal(into.copy_to_host(), x.T)


def test_transpose_of_records():
    records = np.zeros((3, 37), RECORD)
    records["a"] = RNG.integers(-50, 50, records.shape)
    records["b"] = RNG.random(records.shape)
    out = cuda.device_array_like(records.T)
    transpose(cuda.to_device(records), out)
    np.testing.assert_array_equal(out.copy_to_host(), records.T)


def test_cudadrv_names():
    error = driver.CudaAPIError(999, "Transfer not allowed")
    assert error.code == 999 and "Transfer not allowed" in str(error)
    assert not driver._have_nvjitlink()
    major, minor = runtime.get_version()
    assert major >= 11 and minor >= 0
    assert driver.Stream is cuda.Stream
    like = devicearray.from_array_like(np.zeros((4, 3), np.float32, order="F"))
    assert like.shape == (4, 3) and like.flags["F_CONTIGUOUS"]
    device, copied = devicearray.auto_device(2.5)
    assert copied and device.copy_to_host() == 2.5


def test_flags_and_gpu_data():
    device = cuda.to_device(RNG.random((4, 6)))
    assert device.flags["C_CONTIGUOUS"] and device.flags.c_contiguous
    assert not device.flags["F_CONTIGUOUS"]
    assert device.T.flags.f_contiguous
    assert device.gpu_data.device_pointer == device.__cuda_array_interface__["data"][0]
    assert device.gpu_data.size == device.nbytes


def test_debug_with_opt_warns_as_numba_does():
    import warnings

    from cudakit.cuda.core.errors import NumbaInvalidConfigWarning
    with pytest.warns(NumbaInvalidConfigWarning, match="not supported by CUDA"):
        cuda.jit(debug=True)(set_first)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumbaInvalidConfigWarning)
        cuda.jit(debug=True, opt=False)(set_first)


SCALE_C_ABI = cuda.CUSource("""
extern "C" __device__ int scale_by(int a, int b) { return a * b; }
extern "C" __device__ void store_sum(int *where, int a, int b) { *where = a + b; }
""")
scale_by = cuda.declare_device("scale_by", "int32(int32, int32)", link=SCALE_C_ABI, abi="c")
store_sum = cuda.declare_device("store_sum", "void(CPointer(int32), int32, int32)",
                                link=SCALE_C_ABI, abi="c")


def call_c_abi(out, sums, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = scale_by(x[i], 3) + 1


def test_declare_device_with_the_c_abi_and_a_cusource():
    x = RNG.integers(-1000, 1000, N).astype(np.int32)
    out = np.zeros(N, np.int32)
    cuda.jit(call_c_abi)[2, 32](out, np.zeros(1, np.int32), x)
    np.testing.assert_array_equal(out, x * 3 + 1)
    assert "CUSource" in str(SCALE_C_ABI) and "scale_by" in SCALE_C_ABI.data
    with pytest.raises(ValueError, match="abi must be 'numba' or 'c'"):
        cuda.declare_device("f", "int32(int32)", link=SCALE_C_ABI, abi="fortran")
    with pytest.raises(TypeError, match="the return type must be a number"):
        cuda.declare_device("f", (cuda.int32,), link=SCALE_C_ABI)  # no return type
