"""cuda.declare_device(name, signature, link=...) and @cuda.jit(link=...):
device functions written in CUDA C/C++ (Numba's ABI) called from kernels."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import TranslationError

RNG = np.random.default_rng(2468)
N = 77  # not a multiple of the block

FUNCTIONS_CU = r"""
#include "scale.cuh"
extern "C" __device__ int scaled_product(float* result, float x, float y) {
  *result = SCALE * x * y;
  return 0;
}
extern "C" __device__ int prefix_sum(double* result, double* values, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += values[i];
  *result = sum;
  return 0;
}
"""


@pytest.fixture
def functions_cu(tmp_path, monkeypatch):
    include_dir = tmp_path / "include"
    include_dir.mkdir()
    (include_dir / "scale.cuh").write_text("#define SCALE 3.0f\n")
    source = tmp_path / "functions.cu"
    source.write_text(FUNCTIONS_CU)
    monkeypatch.setattr(cuda.config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(include_dir))
    return source


def test_declared_function_is_called_with_numbers(functions_cu):
    product = cuda.declare_device("scaled_product", "float32(float32, float32)",
                                  link=str(functions_cu))

    @cuda.jit
    def multiply(out, xs, ys):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = product(xs[i], ys[i]) + 1

    xs, ys = RNG.random(N).astype(np.float32), RNG.random(N).astype(np.float32)
    out = cuda.device_array(N, np.float32)
    multiply[(N + 31) // 32, 32](out, cuda.to_device(xs), cuda.to_device(ys))
    np.testing.assert_allclose(out.copy_to_host(), 3 * xs * ys + 1, rtol=1e-6)


def test_jit_link_option_and_pointer_arguments(functions_cu):
    prefix_sum = cuda.declare_device("prefix_sum", "float64(CPointer(float64), int32)")

    @cuda.jit(link=[functions_cu])
    def sums(out, values):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = prefix_sum(values, i + 1)  # a C-contiguous array passes its data

    values = RNG.random(N)
    out = cuda.device_array(N, np.float64)
    sums[(N + 31) // 32, 32](out, cuda.to_device(values))
    np.testing.assert_allclose(out.copy_to_host(), np.cumsum(values), rtol=1e-12)


def test_declare_device_bad_input_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown kind of file"):
        cuda.declare_device("f", "float32(float32)", link=str(tmp_path / "f.txt"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cuda.declare_device("f", "float32(float32)", link=str(tmp_path / "f.ptx"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cuda.declare_device("f", "float32(float32)", link=str(tmp_path / "missing.cu"))
    with pytest.raises(TypeError, match="return type must be a number"):
        cuda.declare_device("f", (cuda.float32[:],))
    with pytest.raises(ValueError, match="not a C function name"):
        cuda.declare_device("not a name", "float32(float32)")
    with pytest.raises(RuntimeError, match="only be called inside"):
        cuda.declare_device("f", "float32(float32)")(1.0)


def test_linked_source_that_does_not_compile_names_the_file(tmp_path):
    broken = tmp_path / "broken.cu"
    broken.write_text('extern "C" __device__ int broken(float* r, float x) { return nope; }\n')
    function = cuda.declare_device("broken", "float32(float32)", link=str(broken))

    @cuda.jit
    def call_broken(out):
        out[0] = function(1.0)

    with pytest.raises(TranslationError, match="broken.cu"):
        call_broken[1, 1](cuda.device_array(1, np.float32))


def test_wrong_argument_to_declared_function_is_a_typing_error(functions_cu):
    from cudakit.cuda import TypingError

    prefix_sum = cuda.declare_device("prefix_sum", "float64(CPointer(float64), int32)",
                                     link=str(functions_cu))

    @cuda.jit
    def wrong(out, values):
        out[0] = prefix_sum(values, 3)

    with pytest.raises(TypingError, match="argument 0 of prefix_sum"):
        wrong[1, 1](cuda.device_array(1, np.float64), cuda.device_array(3, np.float32))


@pytest.fixture
def ffi_and_prefix_sum(functions_cu):
    """cffi's FFI (for ffi.from_buffer) and prefix_sum(CPointer(float64), int32)."""
    cffi = pytest.importorskip("cffi")
    return cffi.FFI(), cuda.declare_device("prefix_sum", "float64(CPointer(float64), int32)",
                                           link=str(functions_cu))


def test_cffi_from_buffer_passes_an_array_as_a_pointer(ffi_and_prefix_sum):
    ffi, prefix_sum = ffi_and_prefix_sum

    @cuda.jit
    def total(result, values):
        result[()] = prefix_sum(ffi.from_buffer(values), len(values))

    values = RNG.random(N)
    result = np.ndarray((), dtype=np.float64)
    total[1, 1](result, values)
    np.testing.assert_allclose(result[()], values.sum(), rtol=1e-12)


def test_step_less_slices_keep_an_array_contiguous(ffi_and_prefix_sum):
    # Numba's rule: x[i:] of a C-contiguous array is C-contiguous, so its data
    # passes as a pointer; x[i::2] or x[:, j] are not.
    ffi, prefix_sum = ffi_and_prefix_sum

    @cuda.jit
    def suffix_sums(out, values, table):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = prefix_sum(ffi.from_buffer(values[i:]), values.size - i) \
                + prefix_sum(table[i % table.shape[0]], table.shape[1])

    values, table = RNG.random(N), RNG.random((5, 7))
    out = cuda.device_array(N, np.float64)
    suffix_sums[(N + 31) // 32, 32](out, cuda.to_device(values), cuda.to_device(table))
    expected = np.cumsum(values[::-1])[::-1] + table.sum(axis=1)[np.arange(N) % 5]
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-12)

    @cuda.jit
    def strided(out, values):
        out[0] = prefix_sum(ffi.from_buffer(values[::2]), 3)

    with pytest.raises(cuda.TypingError, match="C-contiguous"):
        strided[1, 1](out, cuda.to_device(values))


def test_zero_d_host_array_stays_zero_d_on_the_device():
    @cuda.jit
    def store(result, value):
        result[()] = value * 2

    host = np.array(RNG.random(), dtype=np.float32)
    device = cuda.to_device(host)
    assert device.shape == () and device.copy_to_host().shape == ()
    store[1, 1](device, 1.25)
    np.testing.assert_allclose(device.copy_to_host(), 2.5)


def test_foreign_call_in_a_while_condition_runs_before_every_test(functions_cu):
    product = cuda.declare_device("scaled_product", "float32(float32, float32)",
                                  link=str(functions_cu))

    @cuda.jit
    def steps(out, xs):
        i = cuda.grid(1)
        if i < out.size:
            x = xs[i]
            count = 0
            while product(x, 1.0) < 100.0:  # 3 * x grows each pass
                x = x * 2
                count += 1
            out[i] = count

    xs = (RNG.random(N) + 0.1).astype(np.float32)
    out = cuda.device_array(N, np.int64)
    steps[(N + 31) // 32, 32](out, cuda.to_device(xs))
    expected = []
    for x in xs.tolist():
        x, count = np.float32(x), 0
        while np.float32(3.0) * x * np.float32(1.0) < 100.0:
            x, count = x * np.float32(2), count + 1
        expected.append(count)
    np.testing.assert_array_equal(out.copy_to_host(), expected)


UNSIGNED_RESULT_CU = cuda.CUSource(r"""
extern "C" __device__ int twice_bits(unsigned int* out, unsigned long long seed) {
  *out = (unsigned int)(seed * 2u);
  return 0;
}
extern "C" __device__ int store_sum(void* out, int* values, int n) {
  for (int i = 1; i < n; ++i) values[0] += values[i];
  return 0;
}
""")


def test_numba_abi_result_slot_takes_the_pointer_type_of_the_definition():
    # Numba links by name: the C/C++ may type the result slot as it likes
    # (unsigned int* for an int32 result, void* for a void function).
    twice = cuda.declare_device("twice_bits", cuda.int32(cuda.uint64), link=[UNSIGNED_RESULT_CU])
    store = cuda.declare_device("store_sum", "void(CPointer(int32), int32)",
                                link=[UNSIGNED_RESULT_CU])

    @cuda.jit
    def use_both(out, seeds, values):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = twice(seeds[i])
        if i == 0:
            store(values, values.size)

    seeds = RNG.integers(0, 2**30, N).astype(np.uint64)
    values = RNG.integers(-50, 50, 13).astype(np.int32)
    out, d_values = cuda.device_array(N, np.int32), cuda.to_device(values)
    use_both[(N + 31) // 32, 32](out, cuda.to_device(seeds), d_values)
    np.testing.assert_array_equal(out.copy_to_host(), (seeds * 2).astype(np.int32))
    assert d_values.copy_to_host()[0] == values.sum()


def test_declared_array_arguments_are_kept_and_a_call_with_one_is_refused():
    f1 = cuda.declare_device("f1", "int32(float32[:])")
    assert f1.sig.args == (cuda.float32[:],) and f1.sig.return_type == cuda.int32

    @cuda.jit
    def call_with_array(out, xs):
        out[0] = f1(xs)

    with pytest.raises(cuda.TypingError, match="ffi.from_buffer"):
        call_with_array[1, 1](cuda.device_array(1, np.int32), cuda.device_array(3, np.float32))
