"""PyCUDA's kernel headers, built into cudakit: <pycuda-complex.hpp>
(pycuda::complex<T>) and <pycuda-helpers.hpp> (fp_tex*/fp_surf* on texture
and surface objects), also named <cudakit-complex.hpp> and
<cudakit-helpers.hpp>, on NVRTC and on the CPU backend."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import cudakit.compiler as compiler
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit.elementwise import ElementwiseKernel

COMPLEX_KERNEL = """
#include <{header}>
typedef pycuda::complex<{real}> cx;

__global__ void ops(const cx* a, const cx* b, cx* out, {real}* parts, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cx x = a[i], y = b[i];
  cx z = -x;
  z += y;
  z *= x;
  z /= y;
  z -= ({real})1.5;
  z *= ({real})2;
  z = z + pow(x, 3) + pow(y, -2) + ({real})0.5 / y + x * ({real})3 - ({real})1 + x / ({real})4;
  z += pow(x, 2.5) + pow(y, 2u);  // a double exponent is not truncated to an int
  if (x == x && !(x != x)) z += cx(x.real(), ({real})0);
  cx w;
  w.real(y.imag());
  w.imag(y.real());
  out[i] = z + w + sqrt(y) + pycuda::complex<{real}>(pycuda::complex<double>(1.0, 2.0));
  parts[i] = abs(x) + arg(y) + norm(x) + real(y) - imag(y) + x._M_re * y._M_im;
}}
"""


def complex_reference(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    z = ((-x + y) * x / y - 1.5) * 2
    z = z + x ** 3 + y ** -2.0 + 0.5 / y + x * 3 - 1 + x / 4 + x ** 2.5 + y ** 2 + x.real
    w = y.imag + 1j * y.real
    out = z + w + np.sqrt(y) + (1 + 2j)
    parts = np.abs(x) + np.angle(y) + np.abs(x) ** 2 + y.real - y.imag + x.real * y.imag
    return out, parts


@pytest.mark.parametrize("header", ["pycuda-complex.hpp", "cudakit-complex.hpp",
                                    "pycuda-helpers.hpp", "cudakit-helpers.hpp"])
@pytest.mark.parametrize("real", ["float", "double"])
def test_complex_against_numpy(header: str, real: str) -> None:
    rng = np.random.default_rng()
    n = 1000
    dtype = np.complex64 if real == "float" else np.complex128
    x = (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dtype)
    y = (rng.choice([-1, 1], n) * rng.uniform(0.5, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dtype)
    out, parts = np.empty_like(x), np.empty(n, x.real.dtype)
    module = compiler.SourceModule(COMPLEX_KERNEL.format(header=header, real=real))
    module.get_function("ops")(drv.In(x), drv.In(y), drv.Out(out), drv.Out(parts), np.int32(n),
                               block=(128, 1, 1), grid=(8, 1))
    want_out, want_parts = complex_reference(x.astype(np.complex128), y.astype(np.complex128))
    tolerance = 2e-4 if real == "float" else 1e-11
    np.testing.assert_allclose(out, want_out, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(parts, want_parts, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("header", ["pycuda-complex.hpp", "cudakit-helpers.hpp"])
def test_complex_compiles_for_sm90_with_nvrtc(header: str) -> None:
    cubin = compiler.compile(COMPLEX_KERNEL.format(header=header, real="double"), arch="sm_90")
    assert cubin[:4] == b"\x7fELF"


HELPERS_KERNEL = """
#include <pycuda-helpers.hpp>
__global__ void fetch(cudaTextureObject_t tex, cudaSurfaceObject_t surf, double* out,
                      pycuda::complex<float>* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = fp_tex1Dfetch<double>(tex, i) + fp_tex2D<double>(tex, 0.5f, 0.5f) +
           fp_tex2DLayered<float>(tex, 0.5f, 0.5f, 1) + fp_tex3D<int>(tex, 1.f, 1.f, 1.f);
  z[i] = fp_tex1Dfetch<pycuda::complex<float> >(tex, i) +
         pycuda::complex<float>(fp_tex2D<pycuda::complex<double> >(tex, 1.f, 1.f));
  fp_surf2DLayeredwrite(out[i], surf, i, 0, 0, cudaBoundaryModeTrap);
  fp_surf3Dwrite(z[i], surf, i, 0, 0, cudaBoundaryModeZero);
  double d;
  fp_surf3Dread(&d, surf, i, 1, 1, cudaBoundaryModeClamp);
  pycuda::complex<double> c;
  fp_surf2DLayeredread(&c, surf, i, 1, 1, cudaBoundaryModeClamp);
  out[i] += d + c.real();
}
"""


def test_helpers_compile_for_sm90_with_nvrtc() -> None:
    assert compiler.compile(HELPERS_KERNEL, arch="sm_90")[:4] == b"\x7fELF"


def test_helpers_typedefs_on_every_backend() -> None:
    module = compiler.SourceModule("""
        #include <cudakit-helpers.hpp>
        __global__ void widths(int* out) {
          out[0] = sizeof(fp_tex_float); out[1] = sizeof(fp_tex_double);
          out[2] = sizeof(fp_tex_cfloat); out[3] = sizeof(fp_tex_cdouble);
        }""")
    out = np.full(4, -1, np.int32)
    module.get_function("widths")(drv.Out(out), block=(1, 1, 1))
    assert out.tolist() == [4, 8, 8, 16]


@dataclass
class Case:
    name: str
    call: str
    message: str


@pytest.mark.skipif(drv.backend() != "cpu", reason="texture objects from the Python API: "
                    "the CPU backend's")
def test_fp_texture_object_helpers_on_cpu() -> None:
    """fp_tex1Dfetch<double> reads doubles stored as int2 texels of a texture object."""
    source = ("#include <pycuda-helpers.hpp>\n"
              "__global__ void k(double* out, cudaTextureObject_t t, int n) {\n"
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "  if (i < n) out[i] = fp_tex1Dfetch<double>(t, i);\n}\n")
    f = compiler.SourceModule(source).get_function("k")
    a = np.random.default_rng(5).standard_normal(333)
    memory = drv.to_device(a)
    tex = drv.TextureObject(memory, format=drv.array_format.SIGNED_INT32, channels=2,
                            bytes=a.nbytes, flags=drv.TRSF_READ_AS_INTEGER)
    out = np.zeros_like(a)
    f(drv.Out(out), np.uint64(int(tex)), np.int32(a.size), block=(128, 1, 1), grid=(3, 1))
    np.testing.assert_array_equal(out, a)


ELEMENTWISE: list[tuple[str, Callable[[np.ndarray], np.ndarray]]] = [
    ("y[i] = a * x[i] * conj(x[i]) + exp(x[i])", lambda x: 2 * x * np.conj(x) + np.exp(x)),
    ("y[i] = sqrt(x[i]) / (x[i] + a)", lambda x: np.sqrt(x) / (x + 2)),
]


@pytest.mark.parametrize("namespace", ["pycuda", "cudakit"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("operation,reference", ELEMENTWISE)
def test_elementwise_complex_needs_no_include(
        dtype: type, operation: str, reference: Callable[[np.ndarray], np.ndarray],
        namespace: str) -> None:
    # As in PyCUDA, pycuda::complex is there without an #include; a program
    # with `pycuda` renamed to `cudakit` names it cudakit::complex.
    real = "float" if dtype == np.complex64 else "double"
    kernel = ElementwiseKernel(f"{namespace}::complex<{real}> *x, {namespace}::complex<{real}> *y, "
                               f"{real} a",
                               operation, "complex_op")
    rng = np.random.default_rng()
    x = (rng.uniform(0.1, 1, 1001) + 1j * rng.uniform(-1, 1, 1001)).astype(dtype)
    gx = gpuarray.to_gpu(x)
    gy = gpuarray.empty_like(gx)
    kernel(gx, gy, np.dtype(real).type(2))
    tolerance = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(gy.get(), reference(x.astype(np.complex128)), rtol=tolerance,
                               atol=tolerance)


def test_header_added_only_when_included() -> None:
    # A source that names the header without including it gets nothing added.
    source = ('// complex numbers: see "pycuda-complex.hpp"\n'
              "__global__ void k(pycuda::complex<float>* z) { z[0] = z[0] * z[0]; }\n")
    with pytest.raises(drv.CompileError, match="pycuda"):
        compiler.SourceModule(source)


def test_header_included_by_a_users_header(tmp_path: Path) -> None:
    # The user's own header, found in an include directory, includes it.
    (tmp_path / "my-complex.hpp").write_text("#include <pycuda-complex.hpp>\n"
                                             "typedef pycuda::complex<float> my_complex;\n")
    module = compiler.SourceModule(
        '#include "my-complex.hpp"\n'
        "__global__ void k(my_complex* z) { z[0] = z[0] * z[0]; }\n",
        include_dirs=[str(tmp_path)])
    z = np.array([1 + 2j], np.complex64)
    module.get_function("k")(drv.InOut(z), block=(1, 1, 1))
    assert z[0] == (1 + 2j) ** 2
