"""Several devices: cuda.gpus (len, indexing, iteration, `with gpus[i]:`),
select_device with a clear error for a bad number, list_devices,
get_current_device().id/name/compute_capability, and the tutorial's
several-GPUs program (which needs two devices to mean anything: on the CPU
backend, test_multi_device.py runs it with CUDAKIT_CPU_DEVICES=2)."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda

from .test_tutorial import run_program


def test_gpus_len_index_iterate_and_list_devices():
    count = len(cuda.gpus)
    assert count >= 1
    assert [d.id for d in cuda.gpus] == list(range(count))
    assert cuda.list_devices() == list(cuda.gpus)
    assert cuda.gpus[0].id == 0 and cuda.gpus[-1].id == count - 1
    assert repr(cuda.gpus[0]) == "<Managed Device 0>"
    with pytest.raises(IndexError, match=rf"no device {count}.*numbered"):
        cuda.gpus[count]


def test_current_device_id_name_and_compute_capability():
    device = cuda.get_current_device()
    assert device.id == 0
    assert isinstance(device.name, bytes) and device.name
    major, minor = device.compute_capability
    assert isinstance(major, int) and isinstance(minor, int)
    assert cuda.gpus.current == device


def test_select_device_bad_numbers_are_clear_errors():
    count = len(cuda.gpus)
    with pytest.raises(ValueError, match=rf"select_device\({count}\): there is no device "
                                         rf"{count}.*list_devices"):
        cuda.select_device(count)
    with pytest.raises(ValueError, match="no device -1"):
        cuda.select_device(-1)
    with pytest.raises(TypeError, match="a device number is an int"):
        cuda.select_device("0")
    assert cuda.select_device(0).id == 0 and cuda.get_current_device().id == 0


def test_with_gpu_runs_kernels_there_and_restores_the_device():
    @cuda.jit
    def double(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = 2 * x[i]

    x = np.random.default_rng(5).standard_normal(77)
    for gpu in cuda.gpus:
        with gpu:
            assert cuda.get_current_device().id == gpu.id
            out = cuda.device_array_like(x)
            double[3, 32](cuda.to_device(x), out)
            np.testing.assert_array_equal(out.copy_to_host(), 2 * x)
        assert cuda.get_current_device().id == 0


def test_several_gpus_program_runs_on_one_device():
    out = run_program("several_gpus.py")
    assert "结果验证成功" in out and f"Number of GPUs: {len(cuda.gpus)}" in out, out


@pytest.mark.gpu
def test_several_gpus_program_uses_every_device():
    if len(cuda.gpus) < 2:
        pytest.skip(f"the several-GPUs program needs 2 or more devices; this machine has "
                    f"{len(cuda.gpus)}")
    out = run_program("several_gpus.py")
    assert "结果验证成功" in out, out
    for i in range(len(cuda.gpus)):
        assert f"GPU {i} (" in out, out
