"""PyCUDA's CUDA arrays and box copies (driver.Array, Memcpy2D / Memcpy3D /
Memcpy3DPeer, memcpy_*toa, matrix_to_array, np_to_array, gpuarray_to_array,
make_multichannel_2d_array) against numpy on fresh random data, and every
bad input giving a clear error."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray

rng = np.random.default_rng()

FORMATS = [
    (drv.array_format.UNSIGNED_INT8, np.uint8),
    (drv.array_format.UNSIGNED_INT16, np.uint16),
    (drv.array_format.UNSIGNED_INT32, np.uint32),
    (drv.array_format.SIGNED_INT8, np.int8),
    (drv.array_format.SIGNED_INT16, np.int16),
    (drv.array_format.SIGNED_INT32, np.int32),
    (drv.array_format.HALF, np.float16),
    (drv.array_format.FLOAT, np.float32),
]


def random(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def descriptor_3d(w: int, h: int, d: int, fmt: drv.array_format, channels: int = 1,
                  flags: int = 0) -> drv.ArrayDescriptor3D:
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, d
    descr.format, descr.num_channels, descr.flags = fmt, channels, flags
    return descr


def read_back(ary: drv.Array, like: np.ndarray) -> np.ndarray:
    out = np.empty(like.shape, like.dtype)  # C order: the array's layout
    drv.memcpy_atoh(out, ary, 0)
    return out


# {{{ arrays and descriptors

def test_descriptors_read_back_and_free() -> None:
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = 29, 3
    descr.format, descr.num_channels = drv.array_format.SIGNED_INT16, 2
    ary = drv.Array(descr)
    got = ary.get_descriptor()
    assert (got.width, got.height, got.format, got.num_channels) == (
        29, 3, drv.array_format.SIGNED_INT16, 2)
    got3 = ary.get_descriptor_3d()
    assert (got3.depth, got3.flags) == (0, 0)
    assert isinstance(ary.handle, int) and ary.handle != 0
    ary.free()
    ary.free()  # twice is harmless
    with pytest.raises(drv.ArgumentError, match="freed"):
        ary.get_descriptor()
    with pytest.raises(drv.ArgumentError, match="freed"):
        drv.memcpy_htoa(ary, 0, np.zeros(4, np.int16))
    copy = drv.Memcpy2D()
    copy.set_src_host(np.zeros((3, 58), np.int16))
    copy.set_dst_array(ary)
    copy.width_in_bytes, copy.height = 116, 3
    with pytest.raises(drv.ArgumentError, match="destination array is empty"):
        copy()


@pytest.mark.parametrize("fmt,dtype", FORMATS)
@pytest.mark.parametrize("channels", [1, 2, 4])
def test_every_format_and_channel_count_round_trips(fmt: drv.array_format, dtype: type,
                                                   channels: int) -> None:
    for w, h, d, flags in [(37, 0, 0, 0), (23, 5, 0, 0), (11, 6, 3, 0),
                           (13, 0, 4, drv.array3d_flags.ARRAY3D_LAYERED),
                           (7, 5, 3, drv.array3d_flags.ARRAY3D_LAYERED
                            | drv.array3d_flags.SURFACE_LDST)]:
        ary = drv.Array(descriptor_3d(w, h, d, fmt, channels, flags))
        data = random((max(d, 1), max(h, 1), w, channels), dtype)
        drv.memcpy_htoa(ary, 0, data)
        np.testing.assert_array_equal(read_back(ary, data), data)


def test_linear_copies_with_offsets() -> None:
    # 19 x 4 x 3 float32: offsets and sizes that start and end inside rows and slices.
    ary = drv.Array(descriptor_3d(19, 4, 3, drv.array_format.FLOAT))
    base = random((3, 4, 19), np.float32)
    drv.memcpy_htoa(ary, 0, base)
    flat = base.reshape(-1).copy()
    part = random((97,), np.float32)
    drv.memcpy_htoa(ary, 7 * 4, part)
    flat[7:7 + 97] = part
    np.testing.assert_array_equal(read_back(ary, base).reshape(-1), flat)

    # atod / dtoa / atoa through device memory, each from an odd offset.
    dev = drv.mem_alloc(120 * 4)
    drv.memcpy_atod(dev, ary, 5 * 4, 120 * 4)
    got = np.empty(120, np.float32)
    drv.memcpy_dtoh(got, dev)
    np.testing.assert_array_equal(got, flat[5:125])

    other = drv.Array(descriptor_3d(31, 5, 0, drv.array_format.SIGNED_INT32))
    ints = random((5, 31), np.int32)
    drv.memcpy_htoa(other, 0, ints)
    fresh = random((60,), np.int32)
    src = drv.to_device(fresh)
    drv.memcpy_dtoa(other, 40 * 4, src, 60 * 4)
    expected = ints.reshape(-1).copy()
    expected[40:100] = fresh
    np.testing.assert_array_equal(read_back(other, ints).reshape(-1), expected)

    drv.memcpy_atoa(other, 3 * 4, ary, 50 * 4, 70 * 4)
    expected[3:73] = flat[50:120].view(np.int32)
    np.testing.assert_array_equal(read_back(other, ints).reshape(-1), expected)

# }}}


# {{{ helpers from numpy and GPUArrays

@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8, np.int32])
def test_matrix_to_array_c_and_f(dtype: type) -> None:
    a = random((37, 53), dtype)
    ary = drv.matrix_to_array(a, "C")
    assert (ary.get_descriptor().width, ary.get_descriptor().height) == (53, 37)
    np.testing.assert_array_equal(read_back(ary, a), a)
    # 'F': the matrix's columns become the array's rows.
    ary = drv.matrix_to_array(np.asfortranarray(a), "F")
    assert (ary.get_descriptor().width, ary.get_descriptor().height) == (37, 53)
    np.testing.assert_array_equal(read_back(ary, a.T), a.T)


def test_matrix_to_array_double_hack() -> None:
    a = random((21, 17), np.float64)
    with pytest.raises(TypeError, match="float64"):
        drv.matrix_to_array(a, "C")
    ary = drv.matrix_to_array(a, "C", allow_double_hack=True)
    d = ary.get_descriptor()
    assert (d.format, d.num_channels, d.width, d.height) == (
        drv.array_format.SIGNED_INT32, 2, 17, 21)
    np.testing.assert_array_equal(read_back(ary, a), a)


@pytest.mark.parametrize("dtype,fmt,channels", [
    (np.float32, drv.array_format.FLOAT, 1),
    (np.uint16, drv.array_format.UNSIGNED_INT16, 1),
    (np.float64, drv.array_format.SIGNED_INT32, 2),
    (np.complex64, drv.array_format.SIGNED_INT32, 2),
    (np.complex128, drv.array_format.SIGNED_INT32, 4),
])
@pytest.mark.parametrize("surface", [False, True])
def test_np_and_gpuarray_to_array(dtype: type, fmt: drv.array_format, channels: int,
                                  surface: bool) -> None:
    for shape in [(13, 29), (5, 7, 11)]:
        a = random(shape, dtype)
        for ary in (drv.np_to_array(a, "C", allowSurfaceBind=surface),
                    drv.gpuarray_to_array(gpuarray.to_gpu(a), "C", allowSurfaceBind=surface)):
            d = ary.get_descriptor_3d()
            assert (d.format, d.num_channels, d.width, d.height) == (
                fmt, channels, shape[-1], shape[-2])
            expected_flags = 0
            if surface:
                expected_flags = drv.array3d_flags.SURFACE_LDST
                if len(shape) == 2:
                    expected_flags |= drv.array3d_flags.ARRAY3D_LAYERED
            assert d.flags == expected_flags
            assert d.depth == (shape[0] if len(shape) == 3 else (1 if surface else 0))
            np.testing.assert_array_equal(read_back(ary, a), a)


def test_np_to_array_f_order_of_a_square_matrix_is_its_transpose() -> None:
    a = random((19, 19), np.float32)
    ary = drv.np_to_array(np.asfortranarray(a), "F")
    np.testing.assert_array_equal(read_back(ary, a), a.T)


@pytest.mark.parametrize("channels", [2, 4])
def test_make_multichannel_2d_array(channels: int) -> None:
    a = random((9, 14, channels), np.float32)  # C: height, width, channels
    ary = drv.make_multichannel_2d_array(a, "C")
    d = ary.get_descriptor()
    assert (d.width, d.height, d.num_channels) == (14, 9, channels)
    np.testing.assert_array_equal(read_back(ary, a), a)
    f = np.asfortranarray(random((channels, 14, 9), np.int16))  # F: channels, width, height
    ary = drv.make_multichannel_2d_array(f, "F")
    d = ary.get_descriptor()
    assert (d.width, d.height, d.num_channels) == (14, 9, channels)
    got = np.empty(f.size, np.int16)
    drv.memcpy_atoh(got, ary, 0)
    np.testing.assert_array_equal(got, f.reshape(-1, order="F"))

# }}}


# {{{ Memcpy2D / Memcpy3D / Memcpy3DPeer

def test_memcpy2d_pitched_device_memory_without_arrays() -> None:
    host = random((23, 41), np.float32)
    dev, pitch = drv.mem_alloc_pitch(41 * 4, 23, 4)
    copy = drv.Memcpy2D()  # rows 2.. and columns 3.. of the host matrix into the pitched rows
    copy.set_src_host(host)
    copy.src_x_in_bytes, copy.src_y, copy.src_pitch = 3 * 4, 2, host.strides[0]
    copy.set_dst_device(dev)
    copy.dst_pitch = pitch
    copy.width_in_bytes, copy.height = 35 * 4, 19
    copy(aligned=True)
    assert copy.dst_memory_type == drv.memory_type.DEVICE and copy.dst_device == int(dev)
    back = np.zeros((19, 35), np.float32)
    down = drv.Memcpy2D()
    down.set_src_device(dev)
    down.src_pitch = pitch
    down.set_dst_host(back)
    down.dst_pitch = back.strides[0]
    down.width_in_bytes, down.height = 35 * 4, 19
    stream = drv.Stream()
    down(stream)  # PyCUDA's copy(stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, host[2:21, 3:38])


def test_memcpy3d_sub_boxes_with_offsets_and_pitches() -> None:
    ary = drv.Array(descriptor_3d(17, 11, 6, drv.array_format.SIGNED_INT16, 2))
    initial = random((6, 11, 17, 2), np.int16)
    drv.memcpy_htoa(ary, 0, initial)
    host = random((9, 13, 25, 2), np.int16)  # slices, rows, columns, channels
    up = drv.Memcpy3D()
    up.set_src_host(host)
    up.src_x_in_bytes, up.src_y, up.src_z = 4 * 4, 3, 2
    up.src_pitch, up.src_height = host.strides[1], 13
    up.set_dst_array(ary)
    up.dst_x_in_bytes, up.dst_y, up.dst_z = 5 * 4, 1, 3
    up.width_in_bytes, up.height, up.depth = 9 * 4, 8, 3
    up()
    expected = initial.copy()
    expected[3:6, 1:9, 5:14] = host[2:5, 3:11, 4:13]
    np.testing.assert_array_equal(read_back(ary, initial), expected)

    out = random((4, 10, 12, 2), np.int16)
    down = drv.Memcpy3D()
    down.set_src_array(ary)
    down.src_x_in_bytes, down.src_y, down.src_z = 2 * 4, 4, 1
    down.set_dst_host(out)
    down.dst_x_in_bytes, down.dst_y, down.dst_z = 1 * 4, 2, 1
    down.dst_pitch, down.dst_height = out.strides[1], 10
    down.width_in_bytes, down.height, down.depth = 10 * 4, 7, 3
    before = out.copy()
    stream = drv.Stream()
    down(stream)
    stream.synchronize()
    before[1:4, 2:9, 1:11] = expected[1:4, 4:11, 2:12]
    np.testing.assert_array_equal(out, before)


def test_memcpy3d_peer_within_one_context() -> None:
    ctx = drv.Context.get_current()
    a = random((4, 6, 10), np.float32)
    src = drv.to_device(a)
    ary = drv.Array(descriptor_3d(10, 6, 4, drv.array_format.FLOAT))
    copy = drv.Memcpy3DPeer()
    copy.set_src_device(src)
    copy.set_src_context(ctx)
    copy.src_pitch, copy.src_height = 40, 6
    copy.set_dst_array(ary)
    copy.set_dst_context(ctx)
    copy.width_in_bytes, copy.height, copy.depth = 40, 6, 4
    copy()
    np.testing.assert_array_equal(read_back(ary, a), a)
    with pytest.raises(TypeError, match="Context"):
        copy.set_src_context(42)


def test_unified_ends() -> None:
    a = random((5, 8), np.float32)
    dev = drv.to_device(a)
    back = np.empty_like(a)
    copy = drv.Memcpy2D()
    copy.set_src_unified(int(dev))
    copy.set_dst_unified(back)
    copy.width_in_bytes, copy.height = 32, 5
    copy()
    np.testing.assert_array_equal(back, a)

# }}}


# {{{ bad input

def test_bad_descriptors() -> None:
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = 8, 4
    with pytest.raises(drv.ArgumentError, match="format is not set"):
        drv.Array(descr)
    descr.format, descr.num_channels = drv.array_format.FLOAT, 3
    with pytest.raises(drv.ArgumentError, match="num_channels is 3"):
        drv.Array(descr)
    descr.num_channels, descr.width = 1, 0
    with pytest.raises(drv.ArgumentError, match="width is 0"):
        drv.Array(descr)
    with pytest.raises(drv.ArgumentError, match="unknown flags"):
        drv.Array(descriptor_3d(4, 4, 4, drv.array_format.FLOAT, 1, 0x100))
    with pytest.raises(drv.ArgumentError, match="has height 0"):
        drv.Array(descriptor_3d(4, 0, 4, drv.array_format.FLOAT))
    with pytest.raises(drv.ArgumentError, match="format 7"):
        drv.Array(descriptor_3d(4, 4, 0, 7))
    with pytest.raises(TypeError, match="ArrayDescriptor"):
        drv.Array({"width": 4})


def test_wrong_dtypes_and_orders() -> None:
    with pytest.raises(TypeError, match="int64"):
        drv.np_to_array(np.zeros((3, 3), np.int64), "C")
    with pytest.raises(TypeError, match="complex64"):
        drv.make_multichannel_2d_array(np.zeros((3, 3, 2), np.complex64), "C")
    with pytest.raises(drv.LogicError, match="order"):
        drv.np_to_array(np.zeros((3, 3), np.float32), "K")
    with pytest.raises(drv.LogicError, match="order"):
        drv.matrix_to_array(np.zeros((3, 3), np.float32), "A")
    with pytest.raises(drv.LogicError, match="dimensions 2 or 3"):
        drv.np_to_array(np.zeros(5, np.float32), "C")
    with pytest.raises(drv.LogicError, match="dimensions 2"):
        drv.matrix_to_array(np.zeros((2, 2, 2), np.float32), "C")


def test_non_contiguous_host_memory() -> None:
    a = random((8, 10), np.float32)
    with pytest.raises(drv.ArgumentError, match="not contiguous"):
        drv.np_to_array(a[:, ::2], "C")
    ary = drv.matrix_to_array(a, "C")
    with pytest.raises(drv.ArgumentError, match="not contiguous"):
        drv.memcpy_htoa(ary, 0, a[::2])
    with pytest.raises(drv.ArgumentError, match="not contiguous"):
        drv.memcpy_atoh(np.empty((8, 20), np.float32)[:, ::2], ary, 0)
    with pytest.raises(drv.ArgumentError, match="read-only"):
        drv.memcpy_atoh(np.frombuffer(bytes(32), np.float32), ary, 0)


def test_box_overruns() -> None:
    a = random((6, 10), np.float32)
    ary = drv.matrix_to_array(a, "C")
    copy = drv.Memcpy2D()
    copy.set_src_array(ary)
    out = np.empty((7, 10), np.float32)
    copy.set_dst_host(out)
    copy.width_in_bytes, copy.height = 40, 7
    with pytest.raises(drv.ArgumentError, match="array has 6 rows, but the box reaches row 7"):
        copy()
    copy.height, copy.src_x_in_bytes = 6, 4
    with pytest.raises(drv.ArgumentError, match="reaches byte 44"):
        copy()
    copy.src_x_in_bytes, copy.width_in_bytes = 2, 20
    with pytest.raises(drv.ArgumentError, match="whole number"):
        copy()
    # The host buffer is too small for the box.
    copy.src_x_in_bytes, copy.width_in_bytes = 0, 40
    copy.set_dst_host(np.empty((5, 10), np.float32))
    with pytest.raises(drv.ArgumentError, match="200 bytes end before the box does"):
        copy()
    # A pitch smaller than a row of the box.
    copy.set_dst_host(out)
    copy.dst_pitch = 36
    with pytest.raises(drv.ArgumentError, match="pitch of 36 bytes"):
        copy()
    # Device memory smaller than the box.
    copy.dst_pitch = 0
    copy.set_dst_device(drv.mem_alloc(200))
    with pytest.raises(drv.ArgumentError, match="200 bytes end before the box does"):
        copy()
    # Linear copies past the array, or not whole elements.
    with pytest.raises(drv.ArgumentError, match="run past the array's 240 bytes"):
        drv.memcpy_htoa(ary, 8, np.zeros(60, np.float32))
    with pytest.raises(drv.ArgumentError, match="whole elements of 4 bytes"):
        drv.memcpy_htoa(ary, 2, np.zeros(4, np.float32))
    with pytest.raises(drv.ArgumentError, match="do not fit the 16-byte device allocation"):
        drv.memcpy_dtoa(ary, 0, drv.mem_alloc(16), 32)


def test_incomplete_copies() -> None:
    copy = drv.Memcpy3D()
    with pytest.raises(drv.ArgumentError, match="source is not set"):
        copy()
    copy.set_src_host(np.zeros(16, np.float32))
    copy.set_dst_host(np.zeros(16, np.float32))
    copy.width_in_bytes, copy.height = 64, 1
    with pytest.raises(drv.ArgumentError, match="nothing to copy"):
        copy()  # depth left at 0
    with pytest.raises(TypeError, match="Array"):
        copy.set_src_array(np.zeros(4))
    copy.depth, copy.height = 1, -1
    with pytest.raises((drv.ArgumentError, OverflowError, ValueError), match="height"):
        copy()

# }}}


@pytest.mark.gpu
def test_round_trips_on_the_gpu() -> None:
    """cuArray3DCreate / cuMemcpy3D on the device: every kind of end."""
    a = random((7, 33, 45), np.float32)
    ary = drv.np_to_array(a, "C", allowSurfaceBind=True)
    np.testing.assert_array_equal(read_back(ary, a), a)
    g = gpuarray.to_gpu(random((31, 43), np.float64))
    ary = drv.gpuarray_to_array(g, "C")
    back = gpuarray.empty_like(g)
    drv.memcpy_atod(back.gpudata, ary, 0, g.nbytes)
    np.testing.assert_array_equal(back.get(), g.get())
