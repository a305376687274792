"""cuda.random (Numba's xoroshiro128+ numbers), cuda.reduce, constant
memory, dynamic shared memory and the simulator switch."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from cudakit import cuda
from cudakit.cuda.random import _splitmix, create_xoroshiro128p_states, xoroshiro128p_dtype

from . import kernels_for_tests as k

MASK = (1 << 64) - 1


def numba_next(s):
    s0, s1 = s
    result = (s0 + s1) & MASK
    s1 ^= s0
    return result, [(((s0 << 55) | (s0 >> 9)) & MASK) ^ s1 ^ ((s1 << 14) & MASK),
                    ((s1 << 36) | (s1 >> 28)) & MASK]


def numba_jump(s):
    a = b = 0
    for word in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for bit in range(64):
            if (word >> bit) & 1:
                a ^= s[0]
                b ^= s[1]
            _, s = numba_next(s)
    return [a, b]


def test_states_are_seeded_as_numba_seeds_them():
    z = _splitmix(7)
    expected = [[z, z]]
    for _ in range(6):
        expected.append(numba_jump(expected[-1]))
    states = create_xoroshiro128p_states(7, seed=7)
    assert states.dtype == xoroshiro128p_dtype and states.shape == (7,)
    host = states.copy_to_host()
    expected = np.array(expected, np.uint64)
    np.testing.assert_array_equal(host["s0"], expected[:, 0])
    np.testing.assert_array_equal(host["s1"], expected[:, 1])
    shifted = create_xoroshiro128p_states(3, seed=7, subsequence_start=2).copy_to_host()
    np.testing.assert_array_equal(shifted["s0"], expected[2:5, 0])
    np.testing.assert_array_equal(shifted["s1"], expected[2:5, 1])


def test_monte_carlo_pi_with_uniform_float32():
    n = 300
    states = create_xoroshiro128p_states(n, seed=1)
    out = cuda.device_array(n, np.float32)
    k.monte_carlo_pi[(n + 63) // 64, 64](states, 200, out)
    assert abs(out.copy_to_host().mean() - np.pi) < 0.05


def test_normal_float64_has_unit_variance():
    n = 5000
    out = cuda.device_array(n, np.float64)
    k.normals[(n + 127) // 128, 128](create_xoroshiro128p_states(n, seed=3), out)
    values = out.copy_to_host()
    assert abs(values.mean()) < 0.06 and abs(values.std() - 1) < 0.05


def test_reduce_sum_max_and_init():
    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    values = np.random.default_rng(5).standard_normal(1001)
    assert np.isclose(sum_reduce(values), values.sum())
    assert np.isclose(sum_reduce(cuda.to_device(values), init=2.0), values.sum() + 2)
    assert sum_reduce(np.array([], np.float64)) == 0
    maximum = cuda.reduce(lambda a, b: max(a, b))
    ints = np.random.default_rng(6).integers(-1000, 1000, 777).astype(np.int32)
    assert maximum(ints, init=-5000) == ints.max()


def test_constant_memory_from_a_global_array():
    idx = np.random.default_rng(2).integers(0, 8, 50).astype(np.int64)
    out = cuda.device_array(50, np.int32)
    k.constant_lookup[2, 32](cuda.to_device(idx), out)
    np.testing.assert_array_equal(out.copy_to_host(), k.TABLE[idx] + k.TABLE[0])


def test_dynamic_shared_memory_sized_by_the_launch():
    a = np.random.default_rng(4).standard_normal(29)
    out = cuda.device_array(29, np.float64)
    k.dynamic_shared_reverse[1, 32, 0, 32 * 8](cuda.to_device(a), out)
    np.testing.assert_array_equal(out.copy_to_host(), a[::-1])


def test_numba_enable_cudasim_selects_the_cpu_backend():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env.pop("CUDAKIT_BACKEND", None)
    package_root = os.path.dirname(os.path.dirname(__import__("cudakit").__file__))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    code = "from cudakit import cuda; print(cuda.is_simulator())"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"
