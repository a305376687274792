"""Vector and struct types by value as kernel arguments, as PyCUDA passes
them: numpy records (gpuarray.vec.make_float3(...), numpy.void scalars of a
structured dtype) for SourceModule kernels (called, prepared_call,
prepared_async_call), ElementwiseKernel and ReductionKernel parameters
declared with a struct type. Each result is checked against numpy on fresh
random input; records whose layout cannot be the declared type are refused
naming the parameter, the declared type and what was given."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as ga
from cudakit.compiler import SourceModule
from cudakit.elementwise import ElementwiseKernel, ScalarArg, VectorArg
from cudakit.reduction import ReductionKernel
from hostile_cases import Case, case_id, check_refused

vec = ga.vec
_rng = np.random.default_rng()
SIZES = (37, 1000, 4099)  # not multiples of any block size
BLOCK = 256

# struct Sample { int a; double b; char c; }: 24 bytes, aligned to 8.
SAMPLE = np.dtype([("a", np.int32), ("b", np.float64), ("c", np.int8)], align=True)
STRUCT_SOURCE = """
struct Sample { int a; double b; char c; };
struct Triple { int a, b, c; };
"""

_module = None


def module() -> SourceModule:
    global _module
    if _module is None:
        _module = SourceModule(STRUCT_SOURCE + """
__global__ void affine3(float3 pt, const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = pt.x * x[i] + pt.y - pt.z;
}
__global__ void mix(double2 d, int4 k, uchar3 c, const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = d.x * x[i] + d.y + k.x - k.y + k.z * k.w + c.x + c.y - c.z;
}
__global__ void sample(Sample s, const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s.a * x[i] + s.b - s.c;
}
__global__ void triple(Triple t, int *out) { out[0] = t.a - t.b + t.c; }
__global__ void affine2(float2 pt, const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = pt.x * x[i] - pt.y;
}
__global__ void set_them(float3 *dest, float3 v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dest[i] = v;
}
""")
    return _module


def grid(n: int) -> tuple[int, int]:
    return ((n + BLOCK - 1) // BLOCK, 1)


def random_float3() -> np.ndarray:
    return vec.make_float3(*_rng.uniform(-10, 10, 3).astype(np.float32))


def random_sample() -> np.void:
    s = np.zeros((), SAMPLE)
    s["a"] = _rng.integers(-100, 100)
    s["b"] = _rng.uniform(-10, 10)
    s["c"] = _rng.integers(-100, 100)
    return s[()]


def affine3_expected(pt, x: np.ndarray) -> np.ndarray:
    pt = np.asarray(pt)
    return pt["x"] * x + pt["y"] - pt["z"]


def assert_sample_result(got: np.ndarray, s: np.void, x: np.ndarray) -> None:
    """`s.a * x + s.b - s.c` in doubles. The GPU fuses the product and the
    first addition (one rounding fewer than numpy), so where the terms cancel
    a relative tolerance alone fails: the floor is relative to the terms."""
    a, b, c = int(s["a"]), float(s["b"]), int(s["c"])
    terms = np.abs(a * x) + abs(b) + abs(c)
    np.testing.assert_allclose(got, a * x + b - c, rtol=1e-12, atol=1e-12 * float(terms.max()))


# ---- SourceModule kernels -----------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("as_scalar", [False, True], ids=["0d_array", "numpy_void"])
def test_float3_by_value(n: int, as_scalar: bool) -> None:
    pt = random_float3()
    arg = pt[()] if as_scalar else pt
    assert isinstance(arg, np.void) == as_scalar
    x = _rng.uniform(-10, 10, n).astype(np.float32)
    out = ga.empty(n, np.float32)
    module().get_function("affine3")(arg, ga.to_gpu(x), out, np.int32(n),
                                     block=(BLOCK, 1, 1), grid=grid(n))
    np.testing.assert_allclose(out.get(), affine3_expected(pt, x), rtol=1e-5, atol=1e-4)


def test_several_vector_types_in_one_call() -> None:
    n = 1000
    d = vec.make_double2(*_rng.uniform(-5, 5, 2))
    k = vec.make_int4(*_rng.integers(-50, 50, 4))
    c = vec.make_uchar3(*_rng.integers(0, 256, 3))
    x = _rng.uniform(-5, 5, n)
    out = ga.empty(n, np.float64)
    module().get_function("mix")(d, k, c, ga.to_gpu(x), out, np.int32(n),
                                 block=(BLOCK, 1, 1), grid=grid(n))
    kx, ky, kz, kw = (int(k[f]) for f in "xyzw")
    cx, cy, cz = (int(c[f]) for f in "xyz")
    expected = d["x"] * x + d["y"] + kx - ky + kz * kw + cx + cy - cz
    np.testing.assert_allclose(out.get(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", SIZES)
def test_eight_byte_vector_by_value(n: int) -> None:
    """A float2 is 8 bytes, the size of a pointer: a GPU's cubin layout alone
    cannot tell them apart, the declared type does."""
    pt = vec.make_float2(*_rng.uniform(-10, 10, 2).astype(np.float32))
    x = _rng.uniform(-10, 10, n).astype(np.float32)
    out = ga.empty(n, np.float32)
    module().get_function("affine2")(pt, ga.to_gpu(x), out, np.int32(n), block=(BLOCK, 1, 1),
                                     grid=grid(n))
    np.testing.assert_allclose(out.get(), pt["x"] * x - pt["y"], rtol=1e-5, atol=1e-4)
    y = ga.empty(n, np.float32)
    ElementwiseKernel("float2 pt, const float *x, float *y", "y[i] = pt.x * x[i] - pt.y",
                      "affine2_ew")(pt, ga.to_gpu(x), y)
    np.testing.assert_allclose(y.get(), pt["x"] * x - pt["y"], rtol=1e-5, atol=1e-4)


def test_pycuda_vector_types_case() -> None:
    """PyCUDA's test_vector_types: a float3 by value written to every element."""
    n = 401
    v = random_float3()
    dest = np.empty(n, vec.float3)
    module().get_function("set_them")(drv.Out(dest), v, np.int32(n), block=(BLOCK, 1, 1),
                                      grid=grid(n))
    assert (dest == v).all()


@pytest.mark.parametrize("n", SIZES)
def test_struct_record_by_value(n: int) -> None:
    s = random_sample()
    x = _rng.uniform(-10, 10, n)
    out = ga.empty(n, np.float64)
    module().get_function("sample")(s, ga.to_gpu(x), out, np.int32(n), block=(BLOCK, 1, 1),
                                    grid=grid(n))
    assert_sample_result(out.get(), s, x)


def test_packed_record_with_explicit_padding_is_the_struct() -> None:
    """A packed dtype whose padding is written out places the fields as C does."""
    packed = np.dtype([("a", np.int32), ("pad", "V4"), ("b", np.float64), ("c", np.int8),
                       ("tail", "V7")])
    assert packed.itemsize == SAMPLE.itemsize
    s = np.zeros((), packed)
    s["a"], s["b"], s["c"] = _rng.integers(1, 100), _rng.uniform(-10, 10), _rng.integers(1, 100)
    n = 37
    x = _rng.uniform(-10, 10, n)
    out = ga.empty(n, np.float64)
    module().get_function("sample")(s[()], ga.to_gpu(x), out, np.int32(n), block=(BLOCK, 1, 1),
                                    grid=grid(n))
    assert_sample_result(out.get(), s, x)


@pytest.mark.parametrize("n", SIZES)
def test_prepared_calls_take_vector_records(n: int) -> None:
    f = module().get_function("affine3")
    f.prepare([vec.float3, np.intp, np.intp, np.int32])
    x = _rng.uniform(-10, 10, n).astype(np.float32)
    x_gpu, out = ga.to_gpu(x), ga.empty(n, np.float32)
    pt = random_float3()
    f.prepared_call(grid(n), (BLOCK, 1, 1), pt, x_gpu.gpudata, out.gpudata, n)
    np.testing.assert_allclose(out.get(), affine3_expected(pt, x), rtol=1e-5, atol=1e-4)
    stream = drv.Stream()
    pt = random_float3()
    f.prepared_async_call(grid(n), (BLOCK, 1, 1), stream, pt[()], x_gpu.gpudata, out.gpudata, n)
    stream.synchronize()
    np.testing.assert_allclose(out.get(), affine3_expected(pt, x), rtol=1e-5, atol=1e-4)


# ---- ElementwiseKernel / ReductionKernel ----------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_elementwise_float3_by_value(n: int) -> None:
    k = ElementwiseKernel("float3 pt, const float *x, float *y", "y[i] = pt.x * x[i] + pt.y - pt.z",
                          "affine3_ew")
    x = _rng.uniform(-10, 10, n).astype(np.float32)
    y = ga.empty(n, np.float32)
    pt = random_float3()
    k(pt, ga.to_gpu(x), y)
    np.testing.assert_allclose(y.get(), affine3_expected(pt, x), rtol=1e-5, atol=1e-4)
    pt = random_float3()
    k(pt[()], ga.to_gpu(x), y)  # a numpy.void too
    np.testing.assert_allclose(y.get(), affine3_expected(pt, x), rtol=1e-5, atol=1e-4)


def test_pycuda_argument_objects_with_vector_dtypes() -> None:
    """ScalarArg(vec.float3) declares `float3 pt`, VectorArg(vec.float3) `float3 *p`."""
    n = 1000
    k = ElementwiseKernel([ScalarArg(vec.float3, "pt"), VectorArg(vec.float3, "p"),
                           VectorArg(np.float32, "y")],
                          "y[i] = pt.x * p[i].x + pt.y * p[i].y + pt.z * p[i].z", "dot3_args")
    host = np.zeros(n, vec.float3)
    for field in "xyz":
        host[field] = _rng.uniform(-10, 10, n).astype(np.float32)
    y = ga.empty(n, np.float32)
    pt = random_float3()
    k(pt, ga.to_gpu(host), y)
    expected = pt["x"] * host["x"] + pt["y"] * host["y"] + pt["z"] * host["z"]
    np.testing.assert_allclose(y.get(), expected, rtol=1e-5, atol=1e-3)


def test_elementwise_struct_of_the_preamble_by_value() -> None:
    n = 1000
    k = ElementwiseKernel("Sample s, const double *x, double *y", "y[i] = s.a * x[i] + s.b - s.c",
                          "sample_ew", preamble=STRUCT_SOURCE)
    x = _rng.uniform(-10, 10, n)
    y = ga.empty(n, np.float64)
    s = random_sample()
    k(s, ga.to_gpu(x), y)
    assert_sample_result(y.get(), s, x)


def test_elementwise_vector_array_and_vector_value() -> None:
    """GPUArrays of a vector dtype (fill, elementwise) with a vector by value."""
    n = 1000
    host = np.zeros(n, vec.float3)
    for field in "xyz":
        host[field] = _rng.uniform(-10, 10, n).astype(np.float32)
    points = ga.to_gpu(host)
    shift = random_float3()
    ElementwiseKernel("float3 *p, float3 d", "p[i].x += d.x; p[i].y += d.y; p[i].z += d.z",
                      "shift3")(points, shift)
    got = points.get()
    for field in "xyz":
        np.testing.assert_array_equal(got[field], host[field] + shift[field])
    points.fill(shift)
    assert (points.get() == shift).all()


@pytest.mark.parametrize("n", SIZES)
def test_reduction_float2_by_value(n: int) -> None:
    k = ReductionKernel(np.float64, "0", "a + b", "pt.x * x[i] + pt.y",
                        "double2 pt, const double *x")
    x = _rng.uniform(-1, 1, n)
    pt = vec.make_double2(*_rng.uniform(-5, 5, 2))
    got = float(k(pt, ga.to_gpu(x)).get())
    terms = pt["x"] * x + pt["y"]
    # (a floor relative to the terms: their sum may cancel to near zero)
    np.testing.assert_allclose(got, float(terms.sum()), rtol=1e-12,
                               atol=1e-12 * float(np.abs(terms).sum()))


# ---- refused -----------------------------------------------------------------------------------


def launch_affine3(pt) -> None:
    n = 37
    module().get_function("affine3")(pt, ga.zeros(n, np.float32), ga.empty(n, np.float32),
                                     np.int32(n), block=(BLOCK, 1, 1), grid=grid(n))


def launch_sample(s) -> None:
    n = 37
    module().get_function("sample")(s, ga.zeros(n, np.float64), ga.empty(n, np.float64),
                                    np.int32(n), block=(BLOCK, 1, 1), grid=grid(n))


def launch_triple(t) -> None:
    module().get_function("triple")(t, ga.empty(1, np.int32), block=(1, 1, 1))


def prepared_affine3(pt) -> None:
    n = 37
    f = module().get_function("affine3")
    f.prepare([vec.float3, np.intp, np.intp, np.int32])
    f.prepared_call(grid(n), (BLOCK, 1, 1), pt, ga.zeros(n, np.float32).gpudata,
                    ga.empty(n, np.float32).gpudata, n)


def elementwise_affine3(pt) -> None:
    k = ElementwiseKernel("float3 pt, float *y", "y[i] = pt.x", "ew_refused")
    k(pt, ga.empty(37, np.float32))


def reduction_float2(pt) -> None:
    ReductionKernel(np.float32, "0", "a + b", "pt.x * x[i]", "float2 pt, const float *x")(
        pt, ga.zeros(37, np.float32))


def record(*fields, align=False, values=None) -> np.void:
    dtype = np.dtype(list(fields), align=align)
    value = np.zeros((), dtype)
    for name in dtype.names:
        value[name] = values or _rng.integers(1, 9)
    return value[()]


F3 = r"(?s)parameter 0 'pt' \(float3\)"
CASES = [
    Case("float4 for float3", lambda: launch_affine3(vec.make_float4(1, 2, 3, 4)), TypeError,
         F3 + r".*w: float32; 16 bytes\); a record of 4 fields, but float3 is 3 float32 fields"),
    Case("float2 for float3", lambda: launch_affine3(vec.make_float2(1, 2)), TypeError,
         F3 + r".*a record of 2 fields, but float3 is 3 float32 fields in 12 bytes"),
    Case("2-field 12-byte record for float3",
         lambda: launch_affine3(record(("x", np.float32), ("y", np.float64))), TypeError,
         F3 + r".*a record of 2 fields.*make_float3"),
    Case("float64 record for float3",
         lambda: launch_affine3(record(("x", "f8"), ("y", "f8"), ("z", "f8"))), TypeError,
         F3 + r".*field 'x' is float64, but float3 is 3 float32 fields"),
    Case("int3 for float3", lambda: launch_affine3(vec.make_int3(1, 2, 3)), TypeError,
         F3 + r".*field 'x' is int32"),
    Case("plain tuple for float3 (PyCUDA refuses it too)", lambda: launch_affine3((1.0, 2.0, 3.0)),
         TypeError, F3 + r": passed a tuple .*no C layout.*make_float3"),
    Case("float for float3", lambda: launch_affine3(np.float32(1)), TypeError,
         r"parameter 0 'pt' \(float3\): passed a float"),
    Case("float3 for a float parameter",
         lambda: module().get_function("affine3")(random_float3(), ga.zeros(3, np.float32),
                                                  random_float3(), np.int32(3), block=(4, 1, 1)),
         TypeError, r"parameter 2 'out' \(float \*\): passed a 12-byte struct"),
    Case("record of the wrong size for a struct",
         lambda: launch_sample(record(("a", "i4"), ("b", "f8"), align=True)), TypeError,
         r"parameter 0 's' \(Sample\).*the record is 16 bytes, the parameter's Sample 24"),
    Case("packed record (fields not where C puts them)",
         lambda: launch_sample(record(("a", "i4"), ("b", "f8"), ("c", "i1"), ("pad", "V11"))),
         TypeError, r"(?s)field 'b' \(float64\) sits at offset 4.*align=True"),
    Case("record needing more alignment than the struct",
         lambda: launch_triple(record(("d", "f8"), ("e", "i4"))), TypeError,
         r"parameter 0 't' \(Triple\).*8-byte alignment, but Triple is aligned to 4"),
    Case("record with a Python object field",
         lambda: launch_triple(np.array((1,), np.dtype([("o", object)]))[()]), TypeError,
         r"'o' holds Python objects"),
    Case("float3 for float2 (an 8-byte parameter)",
         lambda: module().get_function("affine2")(random_float3(), ga.zeros(3, np.float32),
                                                   ga.empty(3, np.float32), np.int32(3),
                                                   block=(4, 1, 1)), TypeError,
         r"parameter 0 'pt' \(float2\).*3 fields, but float2 is 2 float32 fields in 8 bytes"),
    Case("prepared_call: float4 for float3",
         lambda: prepared_affine3(vec.make_float4(1, 2, 3, 4)), TypeError, F3 + r".*4 fields"),
    Case("prepared_call: tuple for float3", lambda: prepared_affine3((1, 2, 3)), TypeError,
         F3 + r": passed a tuple"),
    Case("ElementwiseKernel: float4 for float3",
         lambda: elementwise_affine3(vec.make_float4(1, 2, 3, 4)), TypeError,
         r"argument 0 'pt' \(float3\): passed a numpy record .*4 fields, but float3 is 3"),
    Case("ElementwiseKernel: float64 record for float3",
         lambda: elementwise_affine3(record(("x", "f8"), ("y", "f8"), ("z", "f8"))), TypeError,
         r"'pt' \(float3\).*field 'x' is float64"),
    Case("ElementwiseKernel: tuple for float3", lambda: elementwise_affine3((1.0, 2.0, 3.0)),
         TypeError,
         r"(?s)parameter 'pt', float3\); a struct by value is a numpy record.*make_float3"),
    Case("ElementwiseKernel: number for float3", lambda: elementwise_affine3(1.5), ValueError,
         r"'pt' \(float3\) is a struct passed by value, but a number was passed"),
    Case("ElementwiseKernel: record for a float",
         lambda: ElementwiseKernel("float a, float *y", "y[i] = a", "ew_number")(
             random_float3(), ga.empty(37, np.float32)), ValueError,
         r"'a' \(float\) is a number, but a numpy record \(x: float32"),
    Case("ElementwiseKernel: struct of the wrong size",
         lambda: ElementwiseKernel("Triple t, int *y", "y[i] = t.a", "ew_triple",
                                   preamble=STRUCT_SOURCE)(random_sample(), ga.empty(37, np.int32)),
         ValueError, r"'t' \(Triple\): passed a 24-byte struct"),
    Case("ReductionKernel: float3 for float2", lambda: reduction_float2(random_float3()),
         TypeError, r"argument 0 'pt' \(float2\).*3 fields, but float2 is 2 float32 fields"),
    Case("ReductionKernel: number for float2", lambda: reduction_float2(2.0), ValueError,
         r"'pt' \(float2\) is a struct passed by value, but a number was passed"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


def test_argument_error_is_a_type_error_as_in_pycuda() -> None:
    assert issubclass(drv.ArgumentError, TypeError)
    assert issubclass(drv.ArgumentError, ValueError)
