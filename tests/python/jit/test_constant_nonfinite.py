"""Global NumPy arrays frozen into a kernel's constant memory (and
cuda.const.array_like) holding inf, -inf, NaN and -0.0, in float32, float64
and complex: the same values on the device as on the host, and sources NVRTC
compiles for sm_90 (it has no constant INFINITY / NAN)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from cudakit import cuda

from sanitizer_scripts import cli_or_skip

N = 45  # threads, not a multiple of the block
RNG = np.random.default_rng()


def table(dtype) -> np.ndarray:
    values = RNG.standard_normal(8)
    values[:4] = [np.inf, -np.inf, np.nan, -0.0]
    if np.dtype(dtype).kind == "c":
        pairs = np.empty(8, dtype)
        pairs.real, pairs.imag = values, np.roll(values, 3)  # no arithmetic on inf / NaN
        return pairs
    return values.astype(dtype)


F32, F64, C64, C128 = (table(d) for d in (np.float32, np.float64, np.complex64, np.complex128))


@cuda.jit
def read_globals(idx, out32, out64, outc64, outc128):
    i = cuda.grid(1)
    if i < idx.size:
        k = idx[i]
        out32[i] = F32[k]
        out64[i] = F64[k]
        outc64[i] = C64[k]
        outc128[i] = C128[k]


@cuda.jit
def read_const_array(idx, out):
    values = cuda.const.array_like(F64)
    i = cuda.grid(1)
    if i < idx.size:
        out[i] = values[idx[i]]


def same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    # NaN == NaN and -0.0 != 0.0: compare the bytes.
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_non_finite_globals_keep_their_bits():
    idx = RNG.integers(0, 8, N).astype(np.int32)
    outs = [np.zeros(N, d) for d in (np.float32, np.float64, np.complex64, np.complex128)]
    device = [cuda.to_device(o) for o in outs]
    read_globals[2, 32](cuda.to_device(idx), *device)
    for got, source in zip(device, (F32, F64, C64, C128)):
        same_bits(got.copy_to_host(), source[idx])


def test_const_array_like_of_non_finite_values():
    idx = RNG.integers(0, 8, N).astype(np.int32)
    out = cuda.device_array(N, np.float64)
    read_const_array[2, 32](cuda.to_device(idx), out)
    same_bits(out.copy_to_host(), F64[idx])


def test_the_constants_compile_for_sm_90(tmp_path):
    cli = cli_or_skip()
    kernel = cuda.jit("void(i4[:], f4[:], f8[:], c8[:], c16[:])")(read_globals.py_func)
    source = tmp_path / "kernel.cu"
    (text,) = kernel.inspect_cuda_source().values()
    source.write_text(text)
    result = subprocess.run([cli, "compile", "--arch", "sm_90", "--no-extern-c", str(source),
                             "-o", str(tmp_path / "kernel.cubin")], capture_output=True, text=True)
    if result.returncode != 0 and "NVRTC" in result.stderr and "not found" in result.stderr:
        pytest.skip("NVRTC is not installed")
    assert result.returncode == 0, result.stdout + result.stderr
