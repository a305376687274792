"""Several devices without several GPUs: each test runs a child process on
the CPU backend with two virtual devices (CUDAKIT_CPU_DEVICES=2), so the
multi-device paths run everywhere: both tutorials' several-GPUs programs
print what a two-GPU machine prints, `cuda.gpus` has two entries and
`with cuda.gpus[1]:` launches there, `Device(1).make_context()` pushes and
pops, a gpuarray lives on device 1, and using a kernel of one device while
another is current fails as on a GPU."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from child_process import TWO_CPU_DEVICES, checked, run_code, run_python
from sanitizer_scripts import cli_or_skip

HERE = Path(__file__).parent
SPLIT = np.linspace(0, 1_000_003, 3).astype(int)  # several_gpus.py's split of its n


def test_pycuda_tutorial_selects_device_1_of_two() -> None:
    out = checked(run_python([str(HERE / "tutorial" / "select_device_multi_gpu.py")],
                             **TWO_CPU_DEVICES))
    assert out.splitlines()[0] == "Number of GPUs: 2", out
    assert out.splitlines()[1].startswith("using cudakit CPU device 1 of 2 ("), out


def test_numba_tutorial_splits_the_work_over_both_devices() -> None:
    out = checked(run_python([str(HERE / "jit" / "tutorial" / "several_gpus.py")],
                             **TWO_CPU_DEVICES))
    lines = out.splitlines()
    assert lines[0] == "Number of GPUs: 2", out
    for ordinal in (0, 1):
        count = SPLIT[ordinal + 1] - SPLIT[ordinal]
        assert lines[1 + ordinal].startswith(f"GPU {ordinal} (cudakit CPU device {ordinal} of 2 ("), out
        assert lines[1 + ordinal].endswith(f"): {count} elements"), out
    assert lines[3] == "结果验证成功", out


def test_numba_gpus_has_two_entries_and_with_gpu_launches_there(tmp_path: Path) -> None:
    # In a file: @cuda.jit kernels are translated from their source.
    script = tmp_path / "two_gpus.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from cudakit import cuda

        assert len(cuda.gpus) == 2 and [g.id for g in cuda.gpus] == [0, 1]
        assert cuda.gpus[1].name.startswith(b"cudakit CPU device 1 of 2")
        assert cuda.gpus[0].pci_bus_id != cuda.gpus[1].pci_bus_id
        assert cuda.current_context().can_access_peer(1)
        assert not cuda.current_context().can_access_peer(0)

        @cuda.jit
        def axpy(a, x, y, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = a * x[i] + y[i]

        rng = np.random.default_rng(7)
        x, y = rng.standard_normal(1001), rng.standard_normal(1001)
        with cuda.gpus[1]:
            assert cuda.get_current_device().id == 1
            out = cuda.device_array_like(x)
            axpy[8, 128](2.5, cuda.to_device(x), cuda.to_device(y), out)
            np.testing.assert_allclose(out.copy_to_host(), 2.5 * x + y, rtol=1e-12)
            with cuda.gpus[0]:
                assert cuda.get_current_device().id == 0
            assert cuda.get_current_device().id == 1
        assert cuda.get_current_device().id == 0
        # The kernel was compiled for device 1 inside the block; device 0 gets its own.
        out0 = cuda.device_array_like(x)
        axpy[8, 128](-1.0, cuda.to_device(x), cuda.to_device(y), out0)
        np.testing.assert_allclose(out0.copy_to_host(), -x + y, rtol=1e-12)
        assert cuda.select_device(1).id == 1 and cuda.get_current_device().id == 1
        try:
            cuda.select_device(2)
        except ValueError as error:
            assert "there is no device 2" in str(error), error
        else:
            raise AssertionError("select_device(2) accepted")
        print("ok")
    """))
    assert checked(run_python([str(script)], **TWO_CPU_DEVICES)).strip() == "ok"


def test_pycuda_make_context_push_pop_and_gpuarray_on_device_1() -> None:
    checked(run_code("""
        import numpy as np
        import cudakit.driver as drv
        import cudakit.gpuarray as gpuarray
        from cudakit.compiler import SourceModule

        drv.init()
        assert drv.Device.count() == 2
        d0, d1 = drv.Device(0), drv.Device(1)
        assert d1.name().startswith("cudakit CPU device 1 of 2") and d0.name() != d1.name()
        assert d0.pci_bus_id() == "ffff:00:00.0" and d1.pci_bus_id() == "ffff:00:01.0"
        assert d0.can_access_peer(d1) and d1.can_access_peer(d0) and not d1.can_access_peer(d1)

        ctx0 = d0.make_context()
        ctx1 = d1.make_context()
        assert drv.Context.get_current() is ctx1 and drv.Context.get_device() == d1
        mod = SourceModule('''
        __global__ void twice_plus(float *out, const float *x, int n)
        { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * x[i] + 1; }''')
        f = mod.get_function("twice_plus")
        x = np.random.default_rng(3).standard_normal(777).astype(np.float32)
        x_gpu = gpuarray.to_gpu(x)
        out_gpu = gpuarray.empty_like(x_gpu)
        f(out_gpu, x_gpu, np.int32(x.size), block=(128, 1, 1), grid=(7, 1))
        np.testing.assert_array_equal(out_gpu.get(), 2 * x + 1)
        np.testing.assert_allclose((x_gpu * 3 - 1).get(), 3 * x - 1, rtol=1e-6)
        assert abs(gpuarray.sum(x_gpu).get() - x.sum()) < 1e-3
        assert x_gpu.__dlpack_device__() == (1, 0)  # kDLCPU: host memory, device 0 by DLPack's rule

        ctx1.pop()
        assert drv.Context.get_current() is ctx0 and drv.Context.get_device() == d0
        # A device-1 kernel while device 0 is current: refused, as a GPU does.
        try:
            f(out_gpu, x_gpu, np.int32(x.size), block=(128, 1, 1), grid=(7, 1))
        except drv.RuntimeError as error:
            text = str(error)
            assert "loaded on cpu device 1 but cpu device 0 is current" in text, text
            assert "CUDA_ERROR_INVALID_HANDLE" in text, text
        else:
            raise AssertionError("a device-1 kernel ran with device 0 current")
        # So is an array operation on a device-1 array: its kernel is device 1's.
        try:
            (x_gpu * 3).get()
        except drv.RuntimeError as error:
            assert "was loaded on cpu device 1 but cpu device 0 is current" in str(error), error
        else:
            raise AssertionError("an operation on a device-1 array ran with device 0 current")
        # Device-1 memory read back with device 0 current (one host: the copy works).
        np.testing.assert_array_equal(out_gpu.get(), 2 * x + 1)
        # And device to device: device 1's array into memory of device 0.
        on0 = drv.mem_alloc(x.nbytes)
        drv.memcpy_dtod(on0, out_gpu.gpudata, x.nbytes)
        back = np.empty_like(x)
        drv.memcpy_dtoh(back, on0)
        np.testing.assert_array_equal(back, 2 * x + 1)
        ctx0.pop()
        assert drv.Context.get_current() is None
        print("ok")
    """, **TWO_CPU_DEVICES))


def test_a_device_is_not_its_own_peer() -> None:
    import cudakit.driver as drv

    assert drv.Device(0).can_access_peer(drv.Device(0)) is False


def test_a_bad_device_count_warns_and_gives_one_device() -> None:
    for value in ("0", "two", "65"):
        result = run_code("import cudakit.driver as drv; print(drv.Device.count())",
                          CUDAKIT_BACKEND="cpu", CUDAKIT_CPU_DEVICES=value)
        assert checked(result).strip() == "1"
        assert (f"CUDAKIT_CPU_DEVICES='{value}' is not a device count from 1 to 64; using 1 "
                "device") in result.stderr, result.stderr


def test_info_and_doctor_list_both_cpu_devices() -> None:
    cli = cli_or_skip()
    info = checked(run_python(["-c", "import subprocess, sys; "
                               f"sys.exit(subprocess.run([{cli!r}, 'info']).returncode)"],
                              **TWO_CPU_DEVICES))
    assert "cpu backend: 2 device(s)" in info, info
    assert "cpu device 0 (cudakit CPU device 0 of 2" in info, info
    assert "cpu device 1 (cudakit CPU device 1 of 2" in info, info
    assert "pci_bus_id = ffff:00:01.0" in info, info
    doctor = run_python(["-c", "import subprocess, sys; "
                         f"sys.exit(subprocess.run([{cli!r}, 'doctor', '--cpu-ok']).returncode)"],
                        **TWO_CPU_DEVICES)
    assert "CPU backend: 2 virtual devices on one host (CUDAKIT_CPU_DEVICES=2)" in doctor.stdout, \
        doctor.stdout
    if "no GPU: running the vector add on the CPU backend instead" in doctor.stdout:
        # (Where there is a GPU, doctor checks that instead.)
        assert "ran on cpu device 0 (" in doctor.stdout, doctor.stdout
        assert "ran on cpu device 1 (" in doctor.stdout, doctor.stdout


def test_visible_devices_pick_one_virtual_device_per_process() -> None:
    code = """
        import cudakit.driver as cuda
        cuda.init()
        print([cuda.Device(i).pci_bus_id() for i in range(cuda.Device.count())])
    """
    for visible, seen in (("1", "['ffff:00:01.0']"),
                          ("1,0", "['ffff:00:01.0', 'ffff:00:00.0']")):
        out = checked(run_code(code, CUDAKIT_CPU_VISIBLE_DEVICES=visible, **TWO_CPU_DEVICES))
        assert out.strip() == seen, out
    result = run_code(code, CUDAKIT_CPU_VISIBLE_DEVICES="2", **TWO_CPU_DEVICES)
    assert result.returncode == 0, result.stderr
    assert "CUDAKIT_CPU_VISIBLE_DEVICES='2' is not a comma-separated list" in result.stderr
    assert result.stdout.strip() == "['ffff:00:00.0', 'ffff:00:01.0']"
