"""PyCUDA's texture and surface references, on the CPU backend.

Texture and surface *references* (``texture<float, 2> tex;``) were removed
in CUDA 12: NVRTC cannot compile them for a GPU (SourceModule raises
TexturesNotSupported there). The CPU backend compiles kernels with the host
compiler and still has them: each reference is a 128-byte record in the
module (the prelude's ``cudakit_cpu::TextureRecord``, which ``pack_record``
writes byte for byte), bound by name through ``get_texref`` /
``get_surfref`` and written at every ``set_*`` call.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any

import numpy as np

from ._core import ArgumentError, NotSupported
from ._driver_enums import address_mode, array_format, filter_mode

TRSF_READ_AS_INTEGER = 0x01
TRSF_NORMALIZED_COORDINATES = 0x02
TRSF_SRGB = 0x10
TRSA_OVERRIDE_FORMAT = 0x01

# The prelude's TextureRecord (src/backend/cpu/prelude/cudakit_cpu_texture.h).
_RECORD = struct.Struct("<4Q4I2I3I3I4fI7I")
assert _RECORD.size == 128
_MAGIC = 0x3143455258544B43  # "CKTXREC1"
_KIND_LINEAR, _KIND_PITCH_2D, _KIND_ARRAY = 1, 2, 3
_FORMAT_BYTES = {1: 1, 2: 2, 3: 4, 8: 1, 9: 2, 10: 4, 16: 2, 32: 4}


def format_bytes(fmt: Any, context: str) -> int:
    try:
        return _FORMAT_BYTES[int(fmt)]
    except (KeyError, TypeError, ValueError):
        raise ArgumentError(f"{context}: {fmt!r} is not an array_format (UNSIGNED_INT8 ... "
                            "FLOAT)") from None


def check_channels(channels: Any, context: str) -> int:
    if not isinstance(channels, (int, np.integer)) or int(channels) not in (1, 2, 4):
        raise ArgumentError(f"{context}: the number of channels must be 1, 2 or 4, "
                            f"got {channels!r}")
    return int(channels)


class Layout:
    """Where the texels are and how they lie: what a record needs of the memory."""

    def __init__(self, data: int, width: int, height: int = 1, depth: int = 1,
                 pitch: int = 0, slice_pitch: int = 0, layered: bool = False,
                 fmt: int = 32, channels: int = 1, kind: int = _KIND_LINEAR,
                 surface: bool = False) -> None:
        self.data, self.width, self.height, self.depth = data, width, height, depth
        self.pitch, self.slice_pitch, self.layered = pitch, slice_pitch, layered
        self.format, self.channels, self.kind, self.surface = fmt, channels, kind, surface


def pack_record(layout: Layout | None, fmt: int, channels: int, modes: list[int],
                filter_value: int, flags: int, border: tuple[float, ...] = (0, 0, 0, 0)) -> bytes:
    if layout is None:
        return bytes(_RECORD.size)
    return _RECORD.pack(_MAGIC, layout.data, layout.pitch, layout.slice_pitch,
                        layout.width, layout.height, layout.depth, int(layout.layered),
                        fmt, channels, *modes, filter_value, flags, layout.kind,
                        *[float(b) for b in border], int(layout.surface), *([0] * 7))


def array_layout(ary: Any, context: str) -> Layout:
    """The layout of a driver.Array on the CPU backend (backend/cpu/cpu_array.hpp:
    the native handle points at a CpuArray whose fields are read here)."""
    handle = getattr(ary, "handle", None)
    if handle is None:
        raise ArgumentError(f"{context}: expected a driver.Array, got {type(ary).__name__}")
    address = int(handle)

    class _CpuArray(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("width", ctypes.c_size_t),
                    ("height", ctypes.c_size_t), ("depth", ctypes.c_size_t),
                    ("format", ctypes.c_uint), ("channels", ctypes.c_uint),
                    ("flags", ctypes.c_uint), ("element_bytes", ctypes.c_size_t),
                    ("row_pitch", ctypes.c_size_t), ("slice_pitch", ctypes.c_size_t),
                    ("rows", ctypes.c_size_t), ("slices", ctypes.c_size_t)]

    a = _CpuArray.from_address(address)
    layered = bool(a.flags & 0x01)
    return Layout(int(a.data or 0), int(a.width), int(a.rows), int(a.slices),
                  int(a.row_pitch), int(a.slice_pitch), layered, int(a.format), int(a.channels),
                  _KIND_ARRAY, surface=bool(a.flags & 0x02))


def _require_cpu(what: str) -> None:
    from .driver import backend
    if backend() != "cpu":
        raise NotSupported(
            f"{what}: texture and surface references were removed in CUDA 12 (NVRTC cannot "
            "compile them for a GPU); the CPU backend still has them.\n"
            "  hint: on a GPU use texture objects (driver.TextureObject, cudaTextureObject_t)")


class _Reference:
    _cudakit_texture_reference = True

    def __init__(self, module: Any, name: str, address: int, size: int) -> None:
        if size != _RECORD.size:
            raise ArgumentError(f"{type(self).__name__} {name!r}: the module's {name} is not a "
                                f"texture<>/surface<> declaration ({size} bytes)")
        self._module, self._name, self._address = module, name, address
        self._layout: Layout | None = None
        self._keep: Any = None

    def _write(self) -> None:
        from .driver import memcpy_htod
        memcpy_htod(self._address, np.frombuffer(self._record(), dtype=np.uint8))


class TextureReference(_Reference):
    """PyCUDA's TextureReference: a ``texture<...>`` of a module (CPU backend)."""

    def __init__(self, module: Any, name: str, address: int, size: int) -> None:
        super().__init__(module, name, address, size)
        self._format = int(array_format.FLOAT)
        self._channels = 1
        self._modes = [0, 0, 0]
        self._filter = int(filter_mode.POINT)
        self._flags = 0
        self._bytes = 0

    def _record(self) -> bytes:
        layout = self._layout
        if layout is not None and layout.kind == _KIND_LINEAR:
            element = format_bytes(self._format, "TextureReference") * self._channels
            layout.width = self._bytes // element
        fmt, channels = self._format, self._channels
        if layout is not None and layout.kind == _KIND_ARRAY:
            fmt, channels = layout.format, layout.channels
        return pack_record(layout, fmt, channels, self._modes, self._filter, self._flags)

    def set_array(self, ary: Any) -> None:
        self._layout = array_layout(ary, "TextureReference.set_array")
        self._keep = ary
        self._write()

    def get_array(self) -> Any:
        return self._keep if self._layout is not None and self._layout.kind == _KIND_ARRAY \
            else None

    def set_address(self, devptr: Any, bytes: int, allow_offset: bool = False) -> int:  # noqa: A002
        if int(bytes) < 0:
            raise ArgumentError(f"TextureReference.set_address: bytes must be >= 0, got {bytes}")
        self._layout = Layout(int(devptr), 0, kind=_KIND_LINEAR)
        self._bytes = int(bytes)
        self._keep = devptr
        self._write()
        return 0

    def set_address_2d(self, devptr: Any, descr: Any, pitch: int) -> None:
        fmt = int(descr.format)
        channels = check_channels(descr.num_channels, "TextureReference.set_address_2d")
        row = int(descr.width) * format_bytes(fmt, "TextureReference.set_address_2d") * channels
        if int(pitch) < row:
            raise ArgumentError(f"TextureReference.set_address_2d: pitch {pitch} is less than a "
                                f"row of {row} bytes")
        self._format, self._channels = fmt, channels
        self._layout = Layout(int(devptr), int(descr.width), int(descr.height), 1, int(pitch),
                              int(pitch) * int(descr.height), kind=_KIND_PITCH_2D)
        self._keep = devptr
        self._write()

    def set_format(self, fmt: Any, num_components: int) -> None:
        format_bytes(fmt, "TextureReference.set_format")
        self._format = int(fmt)
        self._channels = check_channels(num_components, "TextureReference.set_format")
        self._write()

    def set_address_mode(self, dim: int, am: Any) -> None:
        if dim not in (0, 1, 2):
            raise ArgumentError(f"TextureReference.set_address_mode: dim must be 0, 1 or 2, "
                                f"got {dim!r}")
        if int(am) not in (0, 1, 2, 3):
            raise ArgumentError(f"TextureReference.set_address_mode: {am!r} is not an "
                                "address_mode")
        self._modes[dim] = int(am)
        self._write()

    def set_filter_mode(self, fm: Any) -> None:
        if int(fm) not in (0, 1):
            raise ArgumentError(f"TextureReference.set_filter_mode: {fm!r} is not a filter_mode")
        self._filter = int(fm)
        self._write()

    def set_flags(self, flags: int) -> None:
        if int(flags) & ~(TRSF_READ_AS_INTEGER | TRSF_NORMALIZED_COORDINATES | TRSF_SRGB):
            raise ArgumentError(f"TextureReference.set_flags: unknown flags {flags:#x} (TRSF_*)")
        self._flags = int(flags)
        self._write()

    def get_address(self) -> int:
        return self._layout.data if self._layout is not None else 0

    def get_address_mode(self, dim: int) -> address_mode:
        return address_mode(self._modes[dim])

    def get_filter_mode(self) -> filter_mode:
        return filter_mode(self._filter)

    def get_format(self) -> tuple[array_format, int]:
        return array_format(self._format), self._channels

    def get_flags(self) -> int:
        return self._flags


class SurfaceReference(_Reference):
    """PyCUDA's SurfaceReference: a ``surface<void, ...>`` of a module (CPU backend)."""

    def _record(self) -> bytes:
        layout = self._layout
        if layout is None:
            return pack_record(None, 0, 0, [0, 0, 0], 0, 0)
        return pack_record(layout, layout.format, layout.channels, [1, 1, 1], 0,
                           TRSF_READ_AS_INTEGER)

    def set_array(self, ary: Any, flags: int = 0) -> None:
        layout = array_layout(ary, "SurfaceReference.set_array")
        if not layout.surface:
            raise ArgumentError(
                "SurfaceReference.set_array: the array was not made for surfaces; create it "
                "with array3d_flags.SURFACE_LDST (np_to_array/gpuarray_to_array: "
                "allowSurfaceBind=True)")
        self._layout = layout
        self._keep = ary
        self._write()

    def get_array(self) -> Any:
        return self._keep


def texture_reference(module: Any, name: str, surface: bool = False) -> Any:
    what = "get_surfref" if surface else "get_texref"
    _require_cpu(f"SourceModule.{what}({name!r})")
    try:
        address, size = module.get_global(name)
    except Exception as error:
        raise ArgumentError(f"SourceModule.{what}({name!r}): the module declares no "
                            f"{'surface' if surface else 'texture'} reference of that name "
                            f"({error})") from None
    cls = SurfaceReference if surface else TextureReference
    return cls(module, name, int(address), int(size))


def check_texrefs(texrefs: Any, context: str) -> None:
    for t in texrefs or ():
        if not getattr(t, "_cudakit_texture_reference", False):
            raise ArgumentError(f"{context}: texrefs must hold TextureReferences from "
                                f"get_texref, got {type(t).__name__}")


def _check_texref(texref: Any, what: str) -> None:
    if not isinstance(texref, TextureReference):
        raise ArgumentError(f"{what}: texref must be a TextureReference (SourceModule."
                            f"get_texref), got {type(texref).__name__}")


def matrix_to_texref(matrix: Any, texref: TextureReference, order: str = "C") -> None:
    from . import driver
    _check_texref(texref, "matrix_to_texref")
    ary = driver.matrix_to_array(matrix, order=order)
    texref.set_array(ary)


def bind_array_to_texref(ary: Any, texref: TextureReference) -> None:
    _check_texref(texref, "bind_array_to_texref")
    texref.set_array(ary)
    texref.set_address_mode(0, address_mode.CLAMP)
    texref.set_address_mode(1, address_mode.CLAMP)
    texref.set_filter_mode(filter_mode.POINT)


_ARRAY_FORMATS = {np.dtype(np.uint8): 1, np.dtype(np.uint16): 2, np.dtype(np.uint32): 3,
                  np.dtype(np.int8): 8, np.dtype(np.int16): 9, np.dtype(np.int32): 10,
                  np.dtype(np.float16): 16, np.dtype(np.float32): 32}


def _bind_to_texref(self: Any, texref: TextureReference, allow_offset: bool = False) -> int:
    _check_texref(texref, "GPUArray.bind_to_texref")
    return texref.set_address(self.gpudata, self.nbytes, allow_offset=allow_offset) \
        // self.dtype.itemsize


def _bind_to_texref_ext(self: Any, texref: TextureReference, channels: int = 1,
                        allow_double_hack: bool = False, allow_complex_hack: bool = False,
                        allow_offset: bool = False) -> int:
    """PyCUDA's GPUArray.bind_to_texref_ext: float64 as two int32 channels
    (allow_double_hack), complex64 as two uint32, complex128 as four int32."""
    _check_texref(texref, "GPUArray.bind_to_texref_ext")
    if not (self.flags.c_contiguous or self.flags.f_contiguous):
        raise ArgumentError("bind_to_texref_ext: only contiguous arrays may be bound")
    dtype = np.dtype(self.dtype)
    hacks = {(np.dtype(np.float64), True, False): (2, 10),
             (np.dtype(np.complex64), False, True): (2, 3),
             (np.dtype(np.complex128), False, True): (4, 10)}
    key = (dtype, dtype == np.float64 and allow_double_hack,
           dtype.kind == "c" and allow_complex_hack)
    if key in hacks:
        if channels != 1:
            raise ArgumentError(f"bind_to_texref_ext: 'fake' {dtype} textures have one channel")
        channels, fmt = hacks[key]
        read_as_int = True
    else:
        if dtype not in _ARRAY_FORMATS:
            raise ArgumentError(f"bind_to_texref_ext: no texture format holds {dtype} (pass "
                                "allow_double_hack / allow_complex_hack for float64 / complex)")
        fmt = _ARRAY_FORMATS[dtype]
        read_as_int = dtype.kind in "iu"
    offset = texref.set_address(self.gpudata, self.nbytes, allow_offset=allow_offset)
    texref.set_format(array_format(fmt), channels)
    if read_as_int:
        texref.set_flags(texref.get_flags() | TRSF_READ_AS_INTEGER)
    return offset // dtype.itemsize


def _install_gpuarray_methods() -> None:
    from . import _core
    _core.GPUArray.bind_to_texref = _bind_to_texref
    _core.GPUArray.bind_to_texref_ext = _bind_to_texref_ext


_install_gpuarray_methods()
