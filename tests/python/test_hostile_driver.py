"""Hostile input to cudakit.driver (and SourceModule's options): negative and
huge integers, values that do not fit their C parameter, wrong types. Each is
an error naming the call, the argument, the valid range and the value (never
nanobind's "incompatible function arguments" or std::bad_cast), and nothing
is written."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit.compiler import DynamicSourceModule, SourceModule
from hostile_cases import Case, case_id, check_refused

U64 = r"0\.\.18446744073709551615"
I32 = r"-2147483648\.\.2147483647"


def buf(nbytes: int = 64) -> drv.DeviceAllocation:
    return drv.mem_alloc(nbytes)


def freed() -> drv.DeviceAllocation:
    allocation = drv.mem_alloc(64)
    allocation.free()
    return allocation


HOST = np.arange(4, dtype=np.float32)

CASES = [
    Case("mem_alloc -1", lambda: drv.mem_alloc(-1), drv.ArgumentError,
         rf"mem_alloc: bytes must be in {U64}, got -1"),
    Case("mem_alloc 2**64", lambda: drv.mem_alloc(2**64), drv.ArgumentError,
         rf"bytes must be in {U64}, got 18446744073709551616"),
    Case("mem_alloc float", lambda: drv.mem_alloc(1.5), TypeError,
         r"mem_alloc: bytes must be an integer, got float 1\.5"),
    Case("mem_alloc None", lambda: drv.mem_alloc(None), TypeError,
         "bytes must be an integer, got NoneType"),
    Case("memset_d8 value 300", lambda: drv.memset_d8(buf(), 300, 1), drv.ArgumentError,
         r"memset_d8: data must be in 0\.\.255, got 300"),
    Case("memset_d8 value -1", lambda: drv.memset_d8(buf(), -1, 1), drv.ArgumentError,
         r"data must be in 0\.\.255, got -1(.|\n)*v & 0xFF"),
    Case("memset_d8 value 2**40", lambda: drv.memset_d8(buf(), 2**40, 1), drv.ArgumentError,
         r"data must be in 0\.\.255, got 1099511627776"),
    Case("memset_d16 value -1", lambda: drv.memset_d16(buf(), -1, 1), drv.ArgumentError,
         r"memset_d16: data must be in 0\.\.65535, got -1"),
    Case("memset_d16 value 65536", lambda: drv.memset_d16(buf(), 65536, 1), drv.ArgumentError,
         r"data must be in 0\.\.65535, got 65536"),
    Case("memset_d32 value -1", lambda: drv.memset_d32(buf(), -1, 1), drv.ArgumentError,
         r"memset_d32: data must be in 0\.\.4294967295, got -1(.|\n)*0xFFFFFFFF"),
    Case("memset_d32 value 2**32", lambda: drv.memset_d32(buf(), 2**32, 1), drv.ArgumentError,
         r"data must be in 0\.\.4294967295, got 4294967296"),
    Case("memset_d32 value float", lambda: drv.memset_d32(buf(), 1.5, 1), TypeError,
         "memset_d32: data must be an integer, got float"),
    Case("memset_d32_async value -1", lambda: drv.memset_d32_async(buf(), -1, 1),
         drv.ArgumentError, r"memset_d32_async: data must be in 0\.\.4294967295"),
    Case("memset_d16_async value 70000", lambda: drv.memset_d16_async(buf(), 70000, 1, None),
         drv.ArgumentError, r"memset_d16_async: data must be in 0\.\.65535"),
    Case("memset_d8 count -1", lambda: drv.memset_d8(buf(), 0, -1), drv.ArgumentError,
         rf"memset_d8: count must be in {U64}, got -1"),
    Case("memset_d32 count past the allocation", lambda: drv.memset_d32(buf(64), 0, 17),
         drv.ArgumentError, r"68 bytes do not fit the destination \(64 bytes\)"),
    Case("memset_d32 count overflowing a size", lambda: drv.memset_d32(buf(64), 0, 2**62),
         drv.ArgumentError, "overflows a size"),
    Case("memset_d8 into a freed allocation", lambda: drv.memset_d8(freed(), 0, 1),
         drv.ArgumentError, "was freed"),
    Case("memcpy_dtod size -1", lambda: drv.memcpy_dtod(buf(), buf(), -1), drv.ArgumentError,
         rf"memcpy_dtod: size must be in {U64}, got -1"),
    Case("memcpy_dtod_async size 2**64", lambda: drv.memcpy_dtod_async(buf(), buf(), 2**64),
         drv.ArgumentError, rf"memcpy_dtod_async: size must be in {U64}"),
    Case("memcpy_htod to address -1", lambda: drv.memcpy_htod(-1, HOST), drv.ArgumentError,
         rf"memcpy_htod: the device address must be in {U64}, got -1"),
    Case("memcpy_dtoh from address 2**64", lambda: drv.memcpy_dtoh(np.empty(4), 2**64),
         drv.ArgumentError, r"memcpy_dtoh: the device address must be in"),
    Case("memcpy_htod_async on stream -1",
         lambda: drv.memcpy_htod_async(buf(), HOST, stream=-1), drv.ArgumentError,
         rf"the handle must be in {U64}, got -1"),
    Case("Context.set_limit value -1",
         lambda: drv.Context.set_limit(drv.limit.STACK_SIZE, -1), drv.ArgumentError,
         rf"Context\.set_limit: value must be in {U64}, got -1"),
    Case("Context.set_limit value 2**64",
         lambda: drv.Context.set_limit(drv.limit.MALLOC_HEAP_SIZE, 2**64), drv.ArgumentError,
         rf"Context\.set_limit: value must be in {U64}"),
    Case("Context.set_limit value float",
         lambda: drv.Context.set_limit(drv.limit.STACK_SIZE, 1024.5), TypeError,
         "Context.set_limit: value must be an integer, got float"),
    Case("Context.set_limit limit 2**40", lambda: drv.Context.set_limit(2**40, 1024),
         drv.ArgumentError, rf"Context\.set_limit: limit must be in {I32}"),
    Case("Context.get_limit limit -1", lambda: drv.Context.get_limit(-1), drv.ArgumentError,
         "unknown limit -1"),
    Case("Context.set_cache_config 2**70", lambda: drv.Context.set_cache_config(2**70),
         drv.ArgumentError, r"Context\.set_cache_config: config must be in"),
    Case("Context.set_shared_config 2**70", lambda: drv.Context.set_shared_config(2**70),
         drv.ArgumentError, r"Context\.set_shared_config: config must be in"),
    Case("Stream(-1)", lambda: drv.Stream(-1), drv.ArgumentError,
         r"Stream: flags must be in 0\.\.1, got -1"),
    Case("Stream(2**64)", lambda: drv.Stream(2**64), drv.ArgumentError,
         r"Stream: flags must be in 0\.\.1, got 18446744073709551616"),
    Case("Stream(1.0)", lambda: drv.Stream(1.0), TypeError,
         "Stream: flags must be an integer, got float"),
    Case("Event(-1)", lambda: drv.Event(-1), drv.ArgumentError,
         r"Event: flags must be in 0\.\.4294967295, got -1"),
    Case("Device(2**40)", lambda: drv.Device(2**40), drv.ArgumentError,
         rf"Device: ordinal must be in {I32}"),
    Case("Device('0')", lambda: drv.Device("0"), TypeError,
         "Device: ordinal must be an integer, got str"),
    Case("Device.get_attribute(-2**40)", lambda: drv.Device(0).get_attribute(-2**40),
         drv.ArgumentError, rf"Device\.get_attribute: attribute must be in {I32}"),
    Case("pagelocked_empty negative shape", lambda: drv.pagelocked_empty((-1,), np.float32),
         ValueError, r"negative dimensions are not allowed: shape \(-1,\)"),
    Case("pagelocked_empty float shape", lambda: drv.pagelocked_empty((2.5,), np.float32),
         TypeError, "shape must be an integer or a sequence of integers"),
    Case("aligned_empty negative shape", lambda: drv.aligned_empty((3, -2), np.float32),
         ValueError, "negative dimensions are not allowed"),
    Case("register_host_memory flags -1",
         lambda: drv.register_host_memory(np.zeros(4), -1), drv.ArgumentError,
         r"register_host_memory: flags must be in 0\.\.4294967295, got -1"),
    Case("memcpy_htod to None", lambda: drv.memcpy_htod(None, HOST), drv.ArgumentError,
         "memcpy_htod: expected device memory, got NoneType"),
    Case("memcpy_htod from None", lambda: drv.memcpy_htod(buf(), None), drv.ArgumentError,
         r"memcpy_htod: expected a host buffer \(a numpy array, bytes, \.\.\.\), got NoneType"),
    Case("memset_d8 count None", lambda: drv.memset_d8(buf(), 0, None), TypeError,
         "memset_d8: count must be an integer, got NoneType"),
    Case("In(None)", lambda: drv.In(None), drv.ArgumentError,
         "In: expected a host buffer"),
    Case("Stream(None)", lambda: drv.Stream(None), TypeError,
         "Stream: flags must be an integer, got NoneType"),
    Case("to_device(None)", lambda: drv.to_device(None), drv.ArgumentError,
         "to_device: expected a host buffer"),
    Case("mem_alloc_pitch negative width", lambda: drv.mem_alloc_pitch(-1, 2, 4),
         drv.ArgumentError, rf"mem_alloc_pitch: width must be in {U64}, got -1"),
    Case("from_device negative shape", lambda: drv.from_device(buf(), (-1,), np.float32),
         ValueError, "negative dimensions are not allowed"),
    Case("SourceModule options an int", lambda: SourceModule("__global__ void k() {}", options=5),
         drv.ArgumentError, "options must be a list of strings"),
    Case("SourceModule options with an unclosed quote",
         lambda: SourceModule("__global__ void k() {}", options="-DX='a"), drv.ArgumentError,
         "cannot split the options string"),
    Case("SourceModule options holding a number",
         lambda: SourceModule("__global__ void k() {}", options=["-DX", 3]), drv.ArgumentError,
         "each option must be a string, got int 3"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


def device_bytes(allocation: drv.DeviceAllocation, nbytes: int) -> np.ndarray:
    out = np.empty(nbytes, np.uint8)
    drv.memcpy_dtoh(out, allocation)
    return out


@pytest.mark.parametrize("fill, value", [(drv.memset_d8, 300), (drv.memset_d8, -1),
                                         (drv.memset_d16, -1), (drv.memset_d32, -1),
                                         (drv.memset_d32, 2**32)])
def test_refused_memset_writes_nothing(fill, value) -> None:
    before = np.random.default_rng().integers(0, 256, 68, dtype=np.uint8)
    allocation = drv.mem_alloc(before.nbytes)
    drv.memcpy_htod(allocation, before)
    with pytest.raises(drv.ArgumentError):
        fill(allocation, value, 3)
    np.testing.assert_array_equal(device_bytes(allocation, before.nbytes), before)


@pytest.mark.parametrize("fill, value, dtype", [
    (drv.memset_d8, 255, np.uint8), (drv.memset_d8, np.uint8(200), np.uint8),
    (drv.memset_d16, 0xFFFF, np.uint16), (drv.memset_d16, np.int64(4660), np.uint16),
    (drv.memset_d32, 0xFFFFFFFF, np.uint32), (drv.memset_d32, 0, np.uint32)])
def test_memset_takes_every_value_of_its_width(fill, value, dtype) -> None:
    count = 37  # the values past `count` keep their random bytes
    before = np.random.default_rng().integers(0, 256, 41 * np.dtype(dtype).itemsize,
                                              dtype=np.uint8)
    allocation = drv.mem_alloc(before.nbytes)
    drv.memcpy_htod(allocation, before)
    fill(allocation, value, count)
    expected = before.view(dtype).copy()
    expected[:count] = int(value)
    np.testing.assert_array_equal(device_bytes(allocation, before.nbytes).view(dtype), expected)


def test_async_copies_and_memsets_default_to_the_default_stream() -> None:
    host = np.random.default_rng().standard_normal(37).astype(np.float32)
    device = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod_async(device, host)
    copy = drv.mem_alloc(host.nbytes)
    drv.memcpy_dtod_async(copy, device, host.nbytes)
    out = np.empty_like(host)
    drv.memcpy_dtoh_async(out, copy)
    drv.Context.synchronize()
    np.testing.assert_array_equal(out, host)
    drv.memset_d32_async(copy, 0x3F800000, 5)  # five float32 ones
    drv.memcpy_dtoh(out, copy)
    np.testing.assert_array_equal(out[:5], np.ones(5, np.float32))
    np.testing.assert_array_equal(out[5:], host[5:])


def test_limits_and_streams_take_numpy_and_enum_integers() -> None:
    drv.Context.set_limit(drv.limit.STACK_SIZE, np.int64(4096))
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) >= 4096
    drv.Stream(np.int32(1)).synchronize()
    drv.Stream(True).synchronize()


SCALE_SOURCE = """
__global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= SCALE + OFFSET;
}
"""


@pytest.mark.parametrize("module", [SourceModule, DynamicSourceModule])
@pytest.mark.parametrize("options", ["-DSCALE=3 -DOFFSET=0.5", "-DSCALE=3   '-DOFFSET=0.5'",
                                     ["-DSCALE=3", "-DOFFSET=0.5"], ("-DSCALE=3", "-DOFFSET=0.5")])
def test_module_options_as_a_string_are_split_like_a_shell(module, options) -> None:
    host = np.random.default_rng().standard_normal(1000).astype(np.float32)
    device = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod(device, host)
    module(SCALE_SOURCE, options=options).get_function("scale")(
        device, np.int32(host.size), block=(128, 1, 1), grid=(8, 1))
    out = np.empty_like(host)
    drv.memcpy_dtoh(out, device)
    np.testing.assert_allclose(out, host * np.float32(3.5), rtol=1e-6)
