"""numba.cuda's compile API on cudakit: compile / compile_ptx / compile_all
(PTX that ptxas assembles, LTO-IR with its magic number), the ABIs of an
exported device function, launch bounds, compute capabilities, and
cudadrv.nvrtc; each refusal with numba-cuda's error."""

from __future__ import annotations

import math
import re
import shutil
import subprocess

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import float32, float64, int16, int32, int64, types, uint32, void
from cudakit.cuda.cudadrv import nvrtc
from cudakit.cuda.cudadrv.error import CCSupportError

from .conftest import needs_nvrtc
from .interpreted import run_threads

RNG = np.random.default_rng(20)
N = 37  # not a multiple of the block
LTOIR_MAGIC = 0x7F4E43ED


pytestmark = needs_nvrtc


def assemble(ptx: str, tmp_path, relocatable: bool = False) -> None:
    """ptxas accepts the PTX (for sm_90, the H200's arch)."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas (the CUDA toolkit's) is not on PATH")
    path = tmp_path / "code.ptx"
    path.write_text(ptx)
    command = [ptxas, "-arch=sm_90", *(["-c"] if relocatable else []), str(path), "-o",
               str(tmp_path / "code.o")]
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def saxpy(r, a, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


def add(x, y):
    return x + y


def fused(x, y, z, d):
    return math.sqrt((x * y + z) / d)


def nothing():
    pass


# ---- kernels and device functions -----------------------------------------------------

def test_a_kernel_is_an_entry_with_void_return_and_assembles(tmp_path):
    ptx, return_type = cuda.compile_ptx(saxpy, (float32[::1], float32, float32[::1],
                                                float32[::1]), cc=(9, 0))
    assert return_type == void and return_type == types.none
    assert ".visible .entry saxpy(" in ptx and ".visible .func" not in ptx
    assert ".target sm_90" in ptx
    assemble(ptx, tmp_path)


def test_a_device_function_with_numba_abi_returns_through_a_pointer(tmp_path):
    ptx, return_type = cuda.compile_ptx(add, (float32, float32), device=True, cc=(9, 0))
    assert return_type == float32
    head = re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) add\(([^)]*)\)", ptx)
    assert head is not None, ptx
    assert head.group(1).count(".param") == 3  # the result pointer, then x and y
    assert ".entry" not in ptx
    assemble(ptx, tmp_path, relocatable=True)


@pytest.mark.parametrize("sig,ty,bits", [(int32(int32, int32), int32, 32),
                                         (int64(int64, int64), int64, 64),
                                         ("uint32(uint32, uint32)", uint32, 32),
                                         (int16(int16, int16), int16, 16)])
def test_the_c_abi_returns_the_value_as_the_signature_says(sig, ty, bits, tmp_path):
    ptx, return_type = cuda.compile(add, sig, cc=(9, 0))
    assert return_type == ty
    head = re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b(\d+)\s+func_retval0\)\s+add\("
                     r"([^)]*)\)", ptx)
    assert head is not None and int(head.group(1)) == max(bits, 32), ptx
    assert head.group(2).count(".param") == 2 and "param_2" not in ptx
    assemble(ptx, tmp_path, relocatable=True)


def test_a_signature_converts_the_inferred_return_type():
    ptx, return_type = cuda.compile(add, float64(int32, int32))
    assert return_type == float64 and re.search(r"\.param \.b64 func_retval0\) add\(", ptx)
    assert "cvt.rn.f64.s64" in ptx  # int32 + int32 is int64, as in Numba


def test_abi_name_and_lambdas_name_the_exported_function():
    ptx, _ = cuda.compile(add, int32(int32, int32), abi_info={"abi_name": "_Z4funcii"})
    assert re.search(r"func_retval0\)\s+_Z4funcii\(", ptx)
    ptx, return_type = cuda.compile(lambda x: x * 3, int32(int32), abi="c",
                                    abi_info={"abi_name": "triple"})
    assert re.search(r"func_retval0\)\s+triple\(", ptx) and return_type == int32
    ptx, _ = cuda.compile(lambda x: x, (int32,))
    assert re.search(r"func_retval0\)\s+_lambda_\(", ptx)


def test_comparisons_return_booleans_and_casts_their_type():
    def equal(a, b):
        return a == b

    def as_byte(a, b):
        return types.uint8(a < b)

    assert cuda.compile(equal, (int64, int64))[1] == types.boolean
    assert cuda.compile(equal, (float32, float32))[1] == types.boolean
    assert cuda.compile(as_byte, (int32, int32))[1] == types.uint8


def test_complex_values_cross_the_c_abi(tmp_path):
    def halve(x):
        return x / 2

    ptx, return_type = cuda.compile(halve, types.complex128(types.complex128), cc=(9, 0))
    assert return_type == types.complex128 and "func_retval0[16]" in ptx
    assemble(ptx, tmp_path, relocatable=True)


# ---- options --------------------------------------------------------------------------

def test_fastmath_gives_flush_to_zero_and_approximate_division_and_sqrt():
    precise, _ = cuda.compile_ptx(fused, (float32,) * 4, device=True)
    fast, _ = cuda.compile_ptx(fused, (float32,) * 4, device=True, fastmath=True)
    for instruction in ("fma.rn.f32", "div.rn.f32", "sqrt.rn.f32"):
        assert instruction in precise and instruction not in fast
    for instruction in ("fma.rn.ftz.f32", "div.approx.ftz.f32", "sqrt.approx.ftz.f32"):
        assert instruction in fast


@pytest.mark.parametrize("device", [False, True])
def test_debug_and_lineinfo_name_this_file(device):
    debug, _ = cuda.compile_ptx(nothing, (), device=device, debug=True, opt=False)
    assert re.search(r"\.section\s+\.debug_info", debug)
    assert re.search(r'\.file.*test_compile_api\.py"', debug)
    lines, _ = cuda.compile_ptx(nothing, (), device=device, lineinfo=True)
    assert re.search(r'\.file.*test_compile_api\.py"', lines)
    assert not re.search(r"\.section\s+\.debug_info", lines)


@pytest.mark.parametrize("bounds,directives", [
    (128, [r"\.maxntid\s+128"]),
    ((128,), [r"\.maxntid\s+128"]),
    ((128, 2), [r"\.maxntid\s+128", r"\.minnctapersm\s+2"]),
    ((128, 2, 4), [r"\.maxntid\s+128", r"\.minnctapersm\s+2", r"\.maxclusterrank\s+4"])])
def test_launch_bounds_reach_the_ptx(bounds, directives, tmp_path):
    ptx, _ = cuda.compile_ptx(saxpy, (float32[::1], float32, float32[::1], float32[::1]),
                              cc=(9, 0), launch_bounds=bounds)
    for directive in directives:
        assert re.search(directive, ptx), directive
    if not isinstance(bounds, tuple) or len(bounds) < 2:
        assert ".minnctapersm" not in ptx
    assemble(ptx, tmp_path)


def test_compute_capabilities_with_an_arch_suffix():
    ptx, _ = cuda.compile_ptx(nothing, (), cc=(9, 0, "a"))
    assert ".target sm_90a" in ptx
    ptx, _ = cuda.compile_ptx(nothing, (), cc=(8, 6))
    assert ".target sm_86" in ptx
    ptx, _ = cuda.compile_ptx(nothing, ())  # config.CUDA_DEFAULT_PTX_CC
    assert f".target sm_{''.join(map(str, cuda.config.CUDA_DEFAULT_PTX_CC))}" in ptx


def test_the_current_device_target():
    ptx, _ = cuda.compile_ptx_for_current_device(add, (float32, float32), device=True)
    cc = tuple(cuda.get_current_device().compute_capability)
    cc = nvrtc.find_closest_arch(cc) if cc > (0, 0) else (9, 0)  # the CPU backend: sm_90
    assert f".target sm_{cc[0]}{cc[1]}" in ptx


# ---- LTO-IR and compile_all -----------------------------------------------------------

def test_ltoir_output_is_nvrtc_lto_ir():
    if not nvrtc.makes_ltoir():
        pytest.skip("this NVRTC makes no LTO-IR")
    code, return_type = cuda.compile(add, int32(int32, int32), output="ltoir")
    assert isinstance(code, bytes) and return_type == int32
    assert int.from_bytes(code[:4], "little") == LTOIR_MAGIC
    inlined, _ = cuda.compile(add, int32(int32, int32), output="ltoir", forceinline=True)
    assert int.from_bytes(inlined[:4], "little") == LTOIR_MAGIC
    kernel, _ = cuda.compile(saxpy, (float32[::1], float32, float32[::1], float32[::1]),
                             device=False, abi="numba", output="ltoir")
    assert int.from_bytes(kernel[:4], "little") == LTOIR_MAGIC


def test_compile_all_gives_the_function_and_each_linked_source_apart(tmp_path):
    source = tmp_path / "scale.cu"
    source.write_text('extern "C" __device__ int scale_by_3(float* r, float x) '
                      "{ *r = 3.0f * x; return 0; }\n")
    scale = cuda.declare_device("scale_by_3", "float32(float32)", link=[str(source)])

    def kernel(r, x):
        r[0] = scale(x)

    codes, return_type = cuda.compile_all(kernel, (float32[::1], float32), device=False,
                                          abi="numba", output="ptx", cc=(9, 0))
    assert return_type == void and len(codes) == 2
    assert ".visible .entry kernel(" in codes[0] and "scale_by_3" in codes[0]
    assert ".visible .func" in codes[1] and "scale_by_3" in codes[1]
    for i, code in enumerate(codes):
        (tmp_path / str(i)).mkdir()
        assemble(code, tmp_path / str(i), relocatable=True)
    # compile() gives one PTX that defines the linked function too.
    ptx, _ = cuda.compile(kernel, (float32[::1], float32), device=False, abi="numba")
    assert re.search(r"\.visible \.func .*scale_by_3\(", ptx)
    codes, _ = cuda.compile_all(add, (float32, float32))  # output="ltoir" by default
    if nvrtc.makes_ltoir():
        assert len(codes) == 1 and int.from_bytes(codes[0][:4], "little") == LTOIR_MAGIC


# ---- refusals -------------------------------------------------------------------------

def returns_a_value(x, y):
    return x[0] + y[0]


@pytest.mark.parametrize("call,error,message", [
    (lambda: cuda.compile(add, (int32, int32), output="illegal"), NotImplementedError,
     "Unsupported output type: illegal"),
    (lambda: cuda.compile_all(add, (int32, int32), output="cubin"), NotImplementedError,
     "Unsupported output type: cubin"),
    (lambda: cuda.compile_ptx(add, (int32, int32), abi="fastcall"), NotImplementedError,
     "Unsupported ABI: fastcall"),
    (lambda: cuda.compile_ptx(add, (int32, int32), abi="c"), NotImplementedError,
     "The C ABI is not supported for kernels"),
    (lambda: cuda.compile(add, (int32, int32), forceinline=True), ValueError,
     "Can only designate forced inlining in LTO-IR"),
    (lambda: cuda.compile(saxpy, (float32[::1],) * 4, device=False, abi="numba",
                          output="ltoir", forceinline=True), ValueError,
     "Cannot force-inline kernels"),
    (lambda: cuda.compile_ptx(returns_a_value, (uint32[::1], uint32[::1])), TypeError,
     "must have void return type"),
    (lambda: cuda.compile_ptx(nothing, int32()), TypeError, "must have void return type"),
    (lambda: cuda.compile_ptx(nothing, (), launch_bounds=(128, 2, 4, 8)), ValueError,
     "Got 4 launch bounds:"),
    (lambda: cuda.compile_ptx(nothing, (), launch_bounds=(0,)), ValueError,
     "positive integers"),
    (lambda: cuda.compile(add, (int32, int32), abi_info={"abi_name": "no spaces"}),
     ValueError, "C identifier"),
    (lambda: cuda.compile(add, (int32, int32), abi_info="name"), TypeError,
     "abi_info must be a dict"),
    (lambda: cuda.compile_ptx(nothing, (), cc=(9, 0, "z")), ValueError,
     "Invalid architecture suffix"),
    (lambda: cuda.compile_ptx(nothing, (), cc=(5, 0)), CCSupportError, "not supported"),
    (lambda: cuda.compile_ptx(nothing, (), cc="sm_90"), ValueError,
     "cc must be a compute capability"),
], ids=lambda value: value if isinstance(value, str) else "")
def test_refusals_say_what_was_wrong(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


# ---- cudadrv.nvrtc ---------------------------------------------------------------------

def test_nvrtc_module_reports_the_loaded_nvrtc():
    major, minor = nvrtc._get_nvrtc_version()
    assert major >= 11 and minor >= 0
    ccs = nvrtc.get_supported_ccs()
    assert ccs == sorted(ccs) and nvrtc.get_lowest_supported_cc() == ccs[0]
    assert nvrtc.find_closest_arch(ccs[-1]) == ccs[-1]
    assert nvrtc.find_closest_arch((ccs[-1][0] + 1, 0)) == ccs[-1]  # newer: the newest known
    between = [(a, b) for a, b in zip(ccs, ccs[1:]) if b[1] - a[1] > 1 and a[0] == b[0]]
    if between:
        lower, upper = between[0]
        assert nvrtc.find_closest_arch((lower[0], lower[1] + 1)) == lower
    with pytest.raises(CCSupportError, match="not supported"):
        nvrtc.find_closest_arch((3, 0))
    assert nvrtc.get_arch_option(*ccs[-1]) == f"compute_{ccs[-1][0]}{ccs[-1][1]}"


def test_nvrtc_compile_makes_ptx_and_ltoir(tmp_path):
    source = 'extern "C" __device__ float twice(float x) { return 2.0f * x; }'
    ptx, _log = nvrtc.compile(source, "twice.cu", (9, 0))
    assert ".visible .func" in ptx and ".target sm_90" in ptx
    assemble(ptx, tmp_path, relocatable=True)
    if nvrtc.makes_ltoir():
        code, _log = nvrtc.compile(source, "twice.cu", (9, 0), ltoir=True)
        assert int.from_bytes(code[:4], "little") == LTOIR_MAGIC
    with pytest.raises(cuda.cudadrv.error.NvrtcCompilationError, match="broken.cu"):
        nvrtc.compile("this is not C++", "broken.cu", (9, 0))


# ---- `if None:` in a kernel (a closure's None), as Python takes it ---------------------

def test_a_none_condition_is_false_as_in_the_interpreter():
    flag = None

    def copy_unless(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i]
            if flag:
                out[i] = -x[i]

    x = RNG.standard_normal(N).astype(np.float32)
    out = np.zeros(N, np.float32)
    cuda.jit(copy_unless)[2, 32](out, x)
    expected = run_threads(copy_unless, N, np.zeros(N, np.float32), x)[0]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(out, x)


def test_debug_without_opt_false_warns_as_numba_does():
    with pytest.warns(cuda.core.errors.NumbaInvalidConfigWarning, match="opt=False"):
        cuda.compile_ptx(nothing, (), debug=True)


def test_ltoir_without_nvrtcgetltoir_is_refused_with_what_to_do(monkeypatch):
    monkeypatch.setattr(nvrtc, "makes_ltoir", lambda: False)
    with pytest.raises(NotImplementedError, match="nvrtcGetLTOIR.*output='ptx'"):
        cuda.compile(add, int32(int32, int32), output="ltoir")
    with pytest.raises(cuda.cudadrv.error.NvrtcCompilationError, match="no LTO-IR"):
        nvrtc.compile('extern "C" __device__ int one() { return 1; }', "one.cu", (9, 0),
                      ltoir=True)
    ptx, _ = cuda.compile(add, int32(int32, int32))  # PTX still works
    assert ".visible .func" in ptx
