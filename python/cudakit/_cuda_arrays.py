"""PyCUDA's CUDA arrays and box copies: ``Array``, ``ArrayDescriptor(3D)``,
``Memcpy2D`` / ``Memcpy3D`` / ``Memcpy3DPeer``, ``memcpy_htoa`` and friends,
and the helpers that fill an array from numpy or a GPUArray
(``matrix_to_array``, ``np_to_array``, ``gpuarray_to_array``,
``make_multichannel_2d_array``), as PyCUDA 2026.1 defines them.

The array is the core's CudaArray (cuArray3DCreate; host memory on the CPU
backend) and every copy is one core ``copy_3d`` (cuMemcpy3D), which checks
the box against both ends; this module only gives them PyCUDA's names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from ._core import ArgumentError, LogicError
from ._driver_enums import array3d_flags, array_format, memory_type


# {{{ descriptors and arrays

class ArrayDescriptor:
    """PyCUDA's CUDA_ARRAY_DESCRIPTOR: width, height (0: a 1-D array), format, num_channels."""

    def __init__(self) -> None:
        self.width = 0
        self.height = 0
        self.format: Any = None
        self.num_channels = 1

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class ArrayDescriptor3D(ArrayDescriptor):
    """PyCUDA's CUDA_ARRAY3D_DESCRIPTOR: ArrayDescriptor's fields plus depth and flags."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.flags = 0


class Array(_core.CudaArray):
    """A CUDA array (the memory textures sample and surfaces read and write),
    made from an ArrayDescriptor or ArrayDescriptor3D. ``free()`` gives it back
    now; copies to or from it afterwards are an ArgumentError."""

    def __init__(self, descriptor: ArrayDescriptor) -> None:
        if not isinstance(descriptor, ArrayDescriptor):
            raise TypeError(
                f"Array: expected an ArrayDescriptor or ArrayDescriptor3D, got "
                f"{type(descriptor).__name__}")
        if descriptor.format is None:
            raise ArgumentError(
                "Array: the descriptor's format is not set; give an array_format "
                "(e.g. array_format.FLOAT, or dtype_to_array_format(dtype))")
        depth = getattr(descriptor, "depth", 0) if isinstance(descriptor, ArrayDescriptor3D) else 0
        flags = getattr(descriptor, "flags", 0) if isinstance(descriptor, ArrayDescriptor3D) else 0
        super().__init__(descriptor.width, descriptor.height, depth, descriptor.format,
                         descriptor.num_channels, flags)

    def _check_live(self, use: str) -> None:
        if self.freed:
            raise ArgumentError(f"Array.{use}: the array was freed; create a new Array")

    def get_descriptor(self) -> ArrayDescriptor:
        self._check_live("get_descriptor")
        d = ArrayDescriptor()
        d.width, d.height = self._width, self._height
        d.format = array_format(self._format)
        d.num_channels = self._num_channels
        return d

    def get_descriptor_3d(self) -> ArrayDescriptor3D:
        self._check_live("get_descriptor_3d")
        d = ArrayDescriptor3D()
        d.width, d.height, d.depth = self._width, self._height, self._depth
        d.format = array_format(self._format)
        d.num_channels = self._num_channels
        d.flags = self._flags
        return d

    def __repr__(self) -> str:
        if self.freed:
            return "<cudakit.driver.Array (freed)>"
        return (f"<cudakit.driver.Array {self._width} x {self._height} x {self._depth} "
                f"{array_format(self._format).name} x{self._num_channels}>")


Array.__module__ = "cudakit.driver"

# }}}


# {{{ box copies

_KINDS = {"host": memory_type.HOST, "device": memory_type.DEVICE,
          "array": memory_type.ARRAY, "unified": memory_type.UNIFIED}


class Memcpy2D:
    """PyCUDA's 2-D copy (cuMemcpy2D) between host memory, device memory and
    CUDA arrays: set the ends with ``set_src_*`` / ``set_dst_*``, the box with
    ``width_in_bytes`` and ``height``, the offsets and pitches with
    ``src_x_in_bytes``, ``src_y``, ``src_pitch`` (and ``dst_*``); then
    ``copy(aligned=False)`` copies and returns when done, ``copy(stream)``
    queues it on the stream."""

    _three_d = False

    def __init__(self) -> None:
        self.src_x_in_bytes = self.src_y = self.src_pitch = 0
        self.dst_x_in_bytes = self.dst_y = self.dst_pitch = 0
        self.width_in_bytes = self.height = 0
        self._src_kind: str | None = None
        self._dst_kind: str | None = None
        self._src: Any = None
        self._dst: Any = None

    def _set(self, side: str, kind: str, target: Any) -> None:
        setattr(self, f"_{side}_kind", kind)
        setattr(self, f"_{side}", target)

    def set_src_host(self, buf: Any) -> None:
        self._set("src", "host", buf)

    def set_src_array(self, ary: Array) -> None:
        _check_array(ary, f"{type(self).__name__}.set_src_array")
        self._set("src", "array", ary)

    def set_src_device(self, ptr: Any) -> None:
        self._set("src", "device", ptr)

    def set_src_unified(self, ptr: Any) -> None:
        self._set("src", "unified", ptr)

    def set_dst_host(self, buf: Any) -> None:
        self._set("dst", "host", buf)

    def set_dst_array(self, ary: Array) -> None:
        _check_array(ary, f"{type(self).__name__}.set_dst_array")
        self._set("dst", "array", ary)

    def set_dst_device(self, ptr: Any) -> None:
        self._set("dst", "device", ptr)

    def set_dst_unified(self, ptr: Any) -> None:
        self._set("dst", "unified", ptr)

    # PyCUDA's read-write fields over what set_* stored.
    @property
    def src_memory_type(self) -> Any:
        return _KINDS.get(self._src_kind or "", 0)

    @property
    def dst_memory_type(self) -> Any:
        return _KINDS.get(self._dst_kind or "", 0)

    @property
    def src_device(self) -> int:
        return int(self._src) if self._src_kind == "device" else 0

    @src_device.setter
    def src_device(self, ptr: Any) -> None:
        self.set_src_device(ptr)

    @property
    def dst_device(self) -> int:
        return int(self._dst) if self._dst_kind == "device" else 0

    @dst_device.setter
    def dst_device(self, ptr: Any) -> None:
        self.set_dst_device(ptr)

    def __call__(self, aligned: Any = False, stream: Any = None) -> None:
        if stream is None and not isinstance(aligned, (bool, int, np.integer, np.bool_)):
            stream = aligned  # copy(stream): PyCUDA's execute_async
        _core._copy_3d(self, stream, stream is not None, self._three_d, type(self).__name__)


class Memcpy3D(Memcpy2D):
    """PyCUDA's 3-D copy (cuMemcpy3D): Memcpy2D's fields plus ``src_z``,
    ``src_height`` (rows from one slice to the next), ``dst_z``,
    ``dst_height``, ``depth``. ``copy()`` copies and returns when done,
    ``copy(stream)`` queues it."""

    _three_d = True

    def __init__(self) -> None:
        super().__init__()
        self.src_z = self.src_height = self.src_lod = 0
        self.dst_z = self.dst_height = self.dst_lod = 0
        self.depth = 0

    def __call__(self, stream: Any = None) -> None:  # type: ignore[override]
        _core._copy_3d(self, stream, stream is not None, True, type(self).__name__)


class Memcpy3DPeer(Memcpy3D):
    """PyCUDA's 3-D copy between the memory of two contexts (cuMemcpy3DPeer):
    Memcpy3D plus ``set_src_context`` / ``set_dst_context``."""

    def __init__(self) -> None:
        super().__init__()
        self._src_ordinal: int | None = None
        self._dst_ordinal: int | None = None

    @staticmethod
    def _ordinal(context: Any, use: str) -> int:
        device = getattr(context, "_device", None)
        if device is None and hasattr(context, "get_device"):
            device = context.get_device()
        if device is None or not hasattr(device, "ordinal"):
            raise TypeError(f"Memcpy3DPeer.{use}: expected a Context, got "
                            f"{type(context).__name__}")
        return int(device.ordinal)

    def set_src_context(self, ctx: Any) -> None:
        self._src_ordinal = self._ordinal(ctx, "set_src_context")

    def set_dst_context(self, ctx: Any) -> None:
        self._dst_ordinal = self._ordinal(ctx, "set_dst_context")


for _cls in (ArrayDescriptor, ArrayDescriptor3D, Memcpy2D, Memcpy3D, Memcpy3DPeer):
    _cls.__module__ = "cudakit.driver"


def _check_array(ary: Any, use: str) -> None:
    if not isinstance(ary, _core.CudaArray):
        raise TypeError(f"{use}: expected a cudakit.driver.Array, got {type(ary).__name__}")

# }}}


# {{{ linear copies: memcpy_htoa / atoh / dtoa / atod / atoa

def _linear_pieces(ary: Any, index: int, nbytes: int, use: str) -> list[tuple[int, ...]]:
    """The boxes (x_bytes, y, z, width_bytes, rows, linear offset) that cover
    bytes [index, index + nbytes) of the array's rows, laid end to end."""
    _check_array(ary, use)
    if ary.freed:
        raise ArgumentError(f"{use}: the array was freed; create a new Array")
    index, nbytes = int(index), int(nbytes)
    element = ary._element_bytes
    row = ary._width * element
    rows = max(ary._height, 1)
    total = ary.nbytes
    if index < 0 or nbytes < 0:
        raise ArgumentError(f"{use}: the offset ({index}) and size ({nbytes}) must be >= 0")
    if index % element or nbytes % element:
        raise ArgumentError(
            f"{use}: the offset ({index} bytes) and size ({nbytes} bytes) must be whole "
            f"elements of {element} bytes (num_channels x the format's bytes)")
    if index + nbytes > total:
        raise ArgumentError(
            f"{use}: bytes {index}..{index + nbytes} run past the array's {total} bytes; "
            "copy at most nbytes - index bytes")
    pieces = []
    position, linear = index, 0
    while linear < nbytes:
        r, x = divmod(position, row)
        left = nbytes - linear
        if x or left < row:
            width = min(row - x, left)
            pieces.append((x, r % rows, r // rows, width, 1, linear))
            position += width
            linear += width
        else:
            count = min(left // row, rows - r % rows)
            pieces.append((0, r % rows, r // rows, row, count, linear))
            position += count * row
            linear += count * row
    return pieces


def _host_bytes(obj: Any, writable: bool, use: str) -> np.ndarray:
    """The host buffer as flat bytes (a view), or a clear error."""
    if not isinstance(obj, np.ndarray):
        try:
            obj = np.asarray(memoryview(obj))
        except TypeError:
            raise TypeError(f"{use}: expected a host buffer (numpy array, bytes, bytearray), "
                            f"got {type(obj).__name__}") from None
    if not (obj.flags.c_contiguous or obj.flags.f_contiguous):
        raise ArgumentError(
            f"{use}: the host array is not contiguous (a strided view such as a[::2]); "
            "pass numpy.ascontiguousarray(a)")
    if writable and not obj.flags.writeable:
        raise ArgumentError(f"{use}: the host array is read-only; pass a writable array")
    return obj.reshape(-1, order="A").view(np.uint8)


def _device_address(ptr: Any, nbytes: int, use: str) -> int:
    size = getattr(ptr, "size", None) if isinstance(ptr, _core.DeviceAllocation) else None
    if size is not None and nbytes > size:
        raise ArgumentError(
            f"{use}: {nbytes} bytes do not fit the {size}-byte device allocation; copy at most "
            "its size")
    return int(ptr)


def _linear_copy(ary: Any, index: int, other_kind: str, other: Any, nbytes: int,
                 to_array: bool, use: str) -> None:
    for x, y, z, width, rows, linear in _linear_pieces(ary, index, nbytes, use):
        copy = Memcpy3D()
        array_side, other_side = ("dst", "src") if to_array else ("src", "dst")
        copy._set(array_side, "array", ary)
        setattr(copy, f"{array_side}_x_in_bytes", x)
        setattr(copy, f"{array_side}_y", y)
        setattr(copy, f"{array_side}_z", z)
        if other_kind == "host":
            copy._set(other_side, "host", other[linear:linear + width * rows])
        else:
            copy._set(other_side, "device", other + linear)
        setattr(copy, f"{other_side}_pitch", width)
        copy.width_in_bytes, copy.height, copy.depth = width, rows, 1
        _core._copy_3d(copy, None, False, True, use)


def memcpy_htoa(ary: Array, index: int, src: Any) -> None:
    """Copies the (contiguous) host buffer into the array from byte `index`, row after row."""
    flat = _host_bytes(src, False, "memcpy_htoa")
    _linear_copy(ary, index, "host", flat, flat.nbytes, True, "memcpy_htoa")


def memcpy_atoh(dest: Any, ary: Array, index: int) -> None:
    """Fills the (contiguous, writable) host buffer from the array's bytes from `index`."""
    flat = _host_bytes(dest, True, "memcpy_atoh")
    _linear_copy(ary, index, "host", flat, flat.nbytes, False, "memcpy_atoh")


def memcpy_dtoa(ary: Array, index: int, src: Any, len: int) -> None:  # noqa: A002  (PyCUDA's name)
    """Copies `len` bytes of device memory into the array from byte `index`."""
    _linear_copy(ary, index, "device", _device_address(src, int(len), "memcpy_dtoa"), int(len),
                 True, "memcpy_dtoa")


def memcpy_atod(dest: Any, ary: Array, index: int, len: int) -> None:  # noqa: A002
    """Copies `len` bytes of the array from byte `index` into device memory."""
    _linear_copy(ary, index, "device", _device_address(dest, int(len), "memcpy_atod"), int(len),
                 False, "memcpy_atod")


def memcpy_atoa(dest: Array, dest_index: int, src: Array, src_index: int,
                len: int) -> None:  # noqa: A002
    """Copies `len` bytes from one array to another, from byte offsets in each."""
    nbytes = int(len)
    # Check both ends before anything is written, then go through device memory:
    # the two arrays' rows need not line up.
    _linear_pieces(src, src_index, nbytes, "memcpy_atoa")
    _linear_pieces(dest, dest_index, nbytes, "memcpy_atoa")
    if nbytes == 0:
        return
    staging = _core.mem_alloc(nbytes)
    try:
        memcpy_atod(staging, src, src_index, nbytes)
        memcpy_dtoa(dest, dest_index, staging, nbytes)
    finally:
        staging.free()

# }}}


# {{{ arrays from numpy and GPUArrays (PyCUDA's driver.py)

def dtype_to_array_format(dtype: Any) -> array_format:
    dtype = np.dtype(dtype)
    formats = {np.dtype(np.uint8): array_format.UNSIGNED_INT8,
               np.dtype(np.uint16): array_format.UNSIGNED_INT16,
               np.dtype(np.uint32): array_format.UNSIGNED_INT32,
               np.dtype(np.int8): array_format.SIGNED_INT8,
               np.dtype(np.int16): array_format.SIGNED_INT16,
               np.dtype(np.int32): array_format.SIGNED_INT32,
               np.dtype(np.float32): array_format.FLOAT}
    if dtype not in formats:
        raise TypeError(f"cannot convert dtype '{dtype}' to array format (CUDA arrays hold "
                        "uint8/16/32, int8/16/32 or float32 elements; float64 and complex "
                        "through np_to_array's int32 pairs)")
    return formats[dtype]


def _wide_format(dtype: np.dtype) -> tuple[array_format, int] | None:
    """PyCUDA's double hack: float64 and complex64 as 2 int32 channels, complex128 as 4."""
    if dtype == np.complex64 or dtype == np.float64:
        return array_format.SIGNED_INT32, 2
    if dtype == np.complex128:
        return array_format.SIGNED_INT32, 4
    return None


def _check_order(order: Any) -> None:
    if order not in ("C", "F"):
        raise LogicError("order must be either F or C")


def _check_dims(shape: tuple[int, ...], allowed: tuple[int, ...], use: str) -> None:
    if len(shape) not in allowed:
        raise LogicError(
            f"{use}: CUDA arrays of dimensions {' or '.join(map(str, allowed))} are supported "
            f"here, got an array of shape {shape}")


def matrix_to_array(matrix: Any, order: str, allow_double_hack: bool = False) -> Array:
    if str(order).upper() == "C":
        _check_dims(np.shape(matrix), (2,), "matrix_to_array")
        h, w = np.shape(matrix)
        stride = 0
    elif str(order).upper() == "F":
        _check_dims(np.shape(matrix), (2,), "matrix_to_array")
        w, h = np.shape(matrix)
        stride = -1
    else:
        raise LogicError("order must be either F or C")

    matrix = np.asarray(matrix, order=order)
    descr = ArrayDescriptor()
    descr.width = w
    descr.height = h
    if matrix.dtype == np.float64 and allow_double_hack:
        descr.format = array_format.SIGNED_INT32
        descr.num_channels = 2
    else:
        descr.format = dtype_to_array_format(matrix.dtype)
        descr.num_channels = 1

    ary = Array(descr)
    copy = Memcpy2D()
    copy.set_src_host(matrix)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = copy.dst_pitch = matrix.strides[stride]
    copy.height = h
    copy(aligned=True)
    return ary


def _array_for(shape: tuple[int, ...], dtype: np.dtype, order: str, surface: bool,
               use: str) -> tuple[Array, int, int, int, int]:
    """np_to_array's and gpuarray_to_array's shared part: the array for
    `shape` and `dtype`, and (h, d, stride index, 2 or 3 dimensions)."""
    _check_order(order)
    _check_dims(tuple(shape), (2, 3), use)
    if len(shape) == 2:
        stride = 0 if order == "C" else -1
        h, w = (int(s) for s in shape)
        d = 1
        descr: ArrayDescriptor = ArrayDescriptor3D() if surface else ArrayDescriptor()
        if surface:
            descr.depth = d  # type: ignore[attr-defined]
    else:
        stride = 1
        d, h, w = (int(s) for s in shape)
        descr = ArrayDescriptor3D()
        descr.depth = d  # type: ignore[attr-defined]
    descr.width, descr.height = w, h
    wide = _wide_format(np.dtype(dtype))
    if wide:
        descr.format, descr.num_channels = wide
    else:
        descr.format = dtype_to_array_format(dtype)
        descr.num_channels = 1
    if surface:
        if len(shape) == 2:
            descr.flags |= array3d_flags.ARRAY3D_LAYERED  # type: ignore[attr-defined]
        descr.flags |= array3d_flags.SURFACE_LDST  # type: ignore[attr-defined]
    return Array(descr), h, d, stride, len(shape)


def _fill(ary: Array, set_src: str, src: Any, strides: tuple[int, ...], stride: int, h: int,
          d: int, three_d: bool) -> Array:
    copy: Memcpy2D = Memcpy3D() if three_d else Memcpy2D()
    getattr(copy, set_src)(src)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = strides[stride]
    copy.height = h
    if three_d:
        copy.src_height = h  # type: ignore[attr-defined]
        copy.depth = d  # type: ignore[attr-defined]
        copy()
    else:
        copy(aligned=True)
    return ary


def np_to_array(nparray: Any, order: str, allowSurfaceBind: bool = False) -> Array:  # noqa: N803
    nparray = nparray if isinstance(nparray, np.ndarray) else np.asarray(nparray)
    ary, h, d, stride, dims = _array_for(nparray.shape, nparray.dtype, order, allowSurfaceBind,
                                         "np_to_array")
    return _fill(ary, "set_src_host", nparray, nparray.strides, stride, h, d,
                 allowSurfaceBind or dims == 3)


def gpuarray_to_array(gpuarray: Any, order: str, allowSurfaceBind: bool = False) -> Array:  # noqa: N803
    ary, h, d, stride, dims = _array_for(gpuarray.shape, gpuarray.dtype, order, allowSurfaceBind,
                                         "gpuarray_to_array")
    return _fill(ary, "set_src_device", gpuarray.ptr, gpuarray.strides, stride, h, d,
                 allowSurfaceBind or dims == 3)


def make_multichannel_2d_array(ndarray: Any, order: str) -> Array:
    """Channel count has to be the first dimension of the C{ndarray}."""
    descr = ArrayDescriptor()
    _check_dims(np.shape(ndarray), (3,), "make_multichannel_2d_array")
    if str(order).upper() == "C":
        h, w, num_channels = ndarray.shape
        stride = 0
    elif str(order).upper() == "F":
        num_channels, w, h = ndarray.shape
        stride = 2
    else:
        raise LogicError("order must be either F or C")

    descr.width = w
    descr.height = h
    descr.format = dtype_to_array_format(ndarray.dtype)
    descr.num_channels = num_channels

    ary = Array(descr)
    copy = Memcpy2D()
    copy.set_src_host(ndarray)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = copy.dst_pitch = ndarray.strides[stride]
    copy.height = h
    copy(aligned=True)
    return ary

# }}}
