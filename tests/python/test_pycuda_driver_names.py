"""PyCUDA's driver.HostPointer (the base class of HostAllocation and
RegisteredHostMemory), driver.have_gl_ext, and Device attributes read by
their lower-case names (dev.warp_size), as PyCUDA documents them."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit.compiler import SourceModule
from hostile_cases import Case, case_id, check_refused

rng = np.random.default_rng()


def test_host_allocations_are_host_pointers_a_kernel_reaches() -> None:
    assert issubclass(drv.HostAllocation, drv.HostPointer)
    assert issubclass(drv.PagelockedHostAllocation, drv.HostPointer)
    assert issubclass(drv.RegisteredHostMemory, drv.HostPointer)
    pinned = drv.pagelocked_empty(1001, np.float32)
    pinned[:] = rng.standard_normal(1001).astype(np.float32)
    registered = drv.register_host_memory(rng.standard_normal(1001).astype(np.float32))
    double = SourceModule("""
        __global__ void twice(float *a, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) a[i] *= 2.0f;
        }""").get_function("twice")
    for host in (pinned, registered):
        assert isinstance(host.base, drv.HostPointer)
        before = host.copy()
        double(np.uintp(host.base.get_device_pointer()), np.int32(1001), block=(128, 1, 1),
               grid=(8, 1))
        drv.Context.synchronize()
        np.testing.assert_array_equal(host, 2 * before)


def test_have_gl_ext_is_false() -> None:
    assert drv.have_gl_ext() is False


def test_device_attribute_by_lower_case_name() -> None:
    dev = drv.Context.get_device()
    assert dev.warp_size == dev.WARP_SIZE == dev.get_attribute(drv.device_attribute.WARP_SIZE)
    assert dev.multiprocessor_count >= 1
    assert gpuarray.splay(100)  # uses the device's attributes


BAD = [
    Case("HostPointer made directly", drv.HostPointer, TypeError,
         "cannot be made directly.*pagelocked_empty"),
    Case("unknown device attribute", lambda: drv.Context.get_device().no_such_attribute,
         AttributeError, "no_such_attribute"),
    Case("have_gl_ext with an argument", lambda: drv.have_gl_ext(1), TypeError, "argument"),
]


@pytest.mark.parametrize("case", BAD, ids=case_id)
def test_bad_input_is_refused(case: Case) -> None:
    check_refused(case)
