"""Numba's dispatcher behaviour in cudakit: overload resolution among
explicit signatures (kernels and device functions), specialize() and its
cache, signatures, launch_bounds, the get_* resource queries, and
numba.cuda.launchconfig during a launch's compilation. Results are checked
against the interpreter on random inputs."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import launchconfig, utils
from cudakit.cuda.cudadrv.driver import CudaAPIError
from cudakit.cuda.core.errors import TypingError
from cudakit.cuda.types import float32, float64, int32, int64, void
from hostile_cases import Case, case_id, check_refused

from .test_numba_public_modules import needs_nvrtc

RNG = np.random.default_rng(20)


def add(x, y):
    return x + y


def add_kernel(r, x, y):
    r[0] = x + y


def _launch(kernel, dtype, x, y):
    r = cuda.to_device(np.zeros(1, dtype))
    kernel[1, 1](r, x, y)
    return r.copy_to_host()[0]


def test_kernel_signatures_pick_the_best_conversion():
    f = cuda.jit(["(float64[::1], float32, float32)", "(float64[::1], float64, float64)"])(
        add_kernel)
    for _ in range(5):
        x, y = RNG.standard_normal(2)
        # float32 arguments: the float32 signature, exactly
        assert _launch(f, np.float64, np.float32(x), np.float32(y)) == \
            np.float64(np.float32(np.float32(x) + np.float32(y)))
        # an int and a float64: float64 (one unsafe conversion, not two)
        assert _launch(f, np.float64, 3, y) == 3 + y
    assert len(f.overloads) == 2


def test_device_function_signatures_pick_the_best_conversion():
    add_device = cuda.jit(["(int64, int64)", "(float64, float64)"], device=True)(add)

    @cuda.jit
    def call(r, x, y):
        r[0] = add_device(x, y)

    x = float(RNG.standard_normal())
    assert _launch(call, np.float64, np.int32(4), x) == 4 + x  # int32 -> float64 is safe
    assert _launch(call, np.int64, 5, 6) == 11
    only_int = cuda.jit(["(int64, int64)"], device=True)(add)

    @cuda.jit
    def call_int(r, x, y):
        r[0] = only_int(x, y)

    assert _launch(call_int, np.int64, 1.5, 2.5) == 3  # unsafe, as Numba compiles it


def test_specialize_gives_one_dispatcher_per_types():
    @cuda.jit
    def scale(out, x):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] * 2

    assert scale.specializations == {} and not scale.specialized
    special = scale.specialize(float32[::1], float32[::1])
    assert special.specialized and scale.specialize(float32[::1], float32[::1]) is special
    assert scale.specialize(float64[::1], float64[::1]) is not special
    assert len(scale.specializations) == 2
    x = RNG.standard_normal(37).astype(np.float32)
    out = cuda.device_array(37, np.float32)
    special[2, 32](out, cuda.to_device(x))
    np.testing.assert_array_equal(out.copy_to_host(), x * 2)
    assert special.signatures[0].args == (float32[::1], float32[::1])
    scale[2, 32](out, cuda.to_device(x))  # compiled lazily: listed in signatures
    assert scale.signatures == [(float32[::1], float32[::1])]


def test_launch_bounds_limit_the_block_and_reach_the_source():
    @cuda.jit(launch_bounds=(64, 2))
    def fill(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i

    out = cuda.device_array(70, np.int32)
    fill[2, 64](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(70))
    assert "__launch_bounds__(64, 2)" in fill.inspect_cuda_source(fill.signatures[0])
    assert fill.get_max_threads_per_block(fill.signatures[0]) == 64
    for _ in range(2):  # (the second launch takes the launcher's cached path)
        with pytest.raises(CudaAPIError, match="CUDA_ERROR_INVALID_VALUE.*at most 64"):
            fill[1, 65](out)
    with pytest.raises(ValueError):  # (also a ValueError, as the block check was)
        fill[1, 128](out)


@pytest.mark.parametrize("carveout", ["MaxL1", "MaxShared", "default", 0, 50, 100, -1])
def test_shared_memory_carveout_is_a_hint_the_kernel_runs_with(carveout):
    @cuda.jit("void(int32[::1])", shared_memory_carveout=carveout)
    def add_one(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += i + 1

    x = RNG.integers(-50, 50, size=37).astype(np.int32)
    device = cuda.to_device(x)
    add_one[2, 32](device)
    np.testing.assert_array_equal(device.copy_to_host(), x + np.arange(1, 38))


def test_shared_memory_per_block_is_reported():
    @cuda.jit
    def staged(out):
        tile = cuda.shared.array(24, dtype=out.dtype)
        i = cuda.threadIdx.x
        tile[i] = i
        cuda.syncthreads()
        out[i] = tile[23 - i]

    for dtype in (np.float32, np.float64):
        out = cuda.device_array(24, dtype)
        staged[1, 24](out)
        np.testing.assert_array_equal(out.copy_to_host(), np.arange(24)[::-1])
    sizes = staged.get_shared_mem_per_block()
    assert sizes == {(float32[::1],): 24 * 4, (float64[::1],): 24 * 8}
    assert staged.get_shared_mem_per_block(void(float32[::1])) == 96
    for query in (staged.get_regs_per_thread, staged.get_local_mem_per_thread,
                  staged.get_const_mem_size):
        assert all(isinstance(v, int) and v >= 0 for v in query().values())


def test_launch_config_is_current_while_a_launch_compiles():
    @cuda.jit
    def fill(out, value):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = value

    seen = []
    original = fill._compile_for_args
    configured = fill[2, 32]

    def watching(*args):
        seen.append(launchconfig.ensure_current_launch_config())
        assert configured.args == args  # (the launch's arguments while it compiles)
        return original(*args)

    fill._compile_for_args = watching
    out = cuda.device_array(40, np.int64)
    assert launchconfig.current_launch_config() is None
    configured(out, 7)
    fill[2, 32](out, 8)  # compiled already: no compilation, no config
    np.testing.assert_array_equal(out.copy_to_host(), np.full(40, 8))
    assert len(seen) == 1 and seen[0].dispatcher is fill
    assert (seen[0].griddim, seen[0].blockdim, seen[0].sharedmem) == ((2, 1, 1), (32, 1, 1), 0)
    assert launchconfig.current_launch_config() is None and configured.args is None
    with pytest.raises(RuntimeError, match="No launch config"):
        launchconfig.ensure_current_launch_config()
    with launchconfig.capture_compile_config(fill) as captured:
        fill[2, 32](out, 1.5)  # float64: a new compilation
    assert captured["config"].dispatcher is fill and "_compile_for_args" in fill.__dict__


def test_a_launch_config_sensitive_kernel_compiles_per_configuration():
    @cuda.jit
    def fill(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i + 1

    compiled = []
    original = fill._compile_for_args

    def sensitive(*args):
        config = launchconfig.ensure_current_launch_config()
        config.dispatcher.mark_launch_config_sensitive()
        compiled.append(config.blockdim)
        return original(*args)

    fill._compile_for_args = sensitive
    out = cuda.device_array(50, np.int32)
    fill[2, 32](out)
    assert next(iter(fill.overloads.values())).launch_config_sensitive
    fill[2, 32](out)
    fill[4, 16](out)  # another configuration: compiled for it
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(1, 51))
    assert compiled == [(32, 1, 1)] and len(fill._launch_config_variants) == 1
    with pytest.raises(RuntimeError, match="No launch config"):
        fill.mark_launch_config_sensitive()


def test_compilations_on_two_threads_see_their_own_config():
    @cuda.jit
    def fill(out):
        out[0] = 1

    seen = []
    both_compiling = threading.Barrier(2)
    original = fill._compile_for_args

    def watching(*args):
        both_compiling.wait(timeout=30)  # (the two compilations overlap)
        seen.append(launchconfig.ensure_current_launch_config().args[0])
        return original(*args)

    fill._compile_for_args = watching
    arrays = [np.zeros(1, np.int32), np.zeros(1, np.float64)]
    threads = [threading.Thread(target=lambda a=a: fill[1, 1](a)) for a in arrays]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(id(a) for a in seen) == sorted(id(a) for a in arrays)
    assert [a[0] for a in arrays] == [1, 1]


def test_python_version():
    import sys
    assert utils.PYVERSION == sys.version_info[:2]


def _ambiguous():
    f = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                  "(float64[::1], int64, int64)"])(add_kernel)
    f[1, 1](np.zeros(1), 1.0, 2.0)


def _no_match():
    f = cuda.jit([(int64[::1], int64, int64), void(float64[::1], float64, float64)])(add_kernel)
    f[1, 1](np.zeros(1, np.complex128), 1j, 1j)


def _device_no_match():
    add_device = cuda.jit([(int64, int64), (float64, float64)], device=True)(add)

    @cuda.jit
    def call(r, x, y):
        r[0] = add_device(x, y)

    call[1, 1](np.zeros(1, np.complex128), 1j, 1j)


def _unused(x):
    pass


def _specialize_twice():
    cuda.jit("void(float32[::1])")(_unused).specialize(float32[::1])


REFUSED = [
    Case("ambiguous signatures", _ambiguous, TypeError,
         r"Ambiguous overloading for <function add_kernel .*\(Array\(float64, 1, 'C', False, "
         r"aligned=True\), float64, float64\):\n\(Array\(float64, 1, 'C', False, aligned=True\)"
         r", float32, float64\) -> none\n"),
    Case("no signature takes complex", _no_match, TypeError, "No matching definition"),
    Case("no device signature takes complex", _device_no_match, TypingError,
         r"Invalid use of type.*with parameters \(complex128, complex128\)"),
    Case("specialize a specialized dispatcher", _specialize_twice, RuntimeError,
         "Dispatcher already specialized"),
    Case("four launch bounds", lambda: cuda.jit("void()", launch_bounds=(128, 2, 4, 8))(
        lambda: None), ValueError, "Got 4 launch bounds"),
    Case("a negative launch bound", lambda: cuda.jit(launch_bounds=-5)(_unused), ValueError,
         "positive int"),
    Case("carveout out of range", lambda: cuda.jit(shared_memory_carveout=150)(_unused),
         ValueError, "between -1 and 100"),
    Case("carveout name unknown", lambda: cuda.jit(shared_memory_carveout="Most")(_unused),
         ValueError, "Invalid carveout value"),
    Case("carveout of a float", lambda: cuda.jit(shared_memory_carveout=0.5)(_unused),
         TypeError, "must be str or int"),
]


@pytest.mark.parametrize("case", REFUSED, ids=case_id)
def test_refused(case):
    check_refused(case)


@needs_nvrtc
def test_launch_bounds_reach_the_ptx():
    def kernel(x):
        x[0] = 1

    ptx, _ = cuda.compile_ptx(kernel, void(float32[::1]), launch_bounds=(256, 2))
    assert ".maxntid 256, 1, 1" in ptx and ".minnctapersm 2" in ptx
    with pytest.raises(ValueError, match="apply to kernels"):
        cuda.compile(kernel, void(float32[::1]), device=True, launch_bounds=256)
