"""PyCUDA's texture and surface references, on the CPU backend.

Texture and surface *references* (``texture<float, 2> tex;``) were removed
in CUDA 12: NVRTC cannot compile them for a GPU (SourceModule raises
TexturesNotSupported there). The CPU backend compiles kernels with the host
compiler and still has them: ``get_texref`` / ``get_surfref`` wrap the C++
TextureReference / SurfaceReference (include/cudakit/texture_reference.hpp),
which bind the module's reference at every ``set_*`` call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from ._core import ArgumentError, NotSupported
from ._driver_enums import address_mode, array_format, filter_mode

TRSF_READ_AS_INTEGER = 0x01
TRSF_NORMALIZED_COORDINATES = 0x02
TRSF_SRGB = 0x10
TRSA_OVERRIDE_FORMAT = 0x01

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


def _cuda_array(ary: Any, what: str) -> Any:
    if not isinstance(ary, _core.CudaArray):
        raise ArgumentError(f"{what}: expected a driver.Array, got {type(ary).__name__}")
    return ary


def _require_cpu(what: str) -> None:
    from .driver import backend
    if backend() != "cpu":
        raise NotSupported(
            f"{what}: texture and surface references were removed in CUDA 12 (NVRTC cannot "
            "compile them for a GPU); the CPU backend still has them.\n"
            "  hint: on a GPU use texture objects (driver.TextureObject, cudaTextureObject_t)")


class TextureReference:
    """PyCUDA's TextureReference: a ``texture<...>`` of a module (CPU backend),
    over the C++ TextureReference; every set_* binds it again at once."""

    _cudakit_texture_reference = True

    def __init__(self, module: Any, name: str, native: Any) -> None:
        self._module, self._name, self._native = module, name, native
        self._keep: Any = None
        self._array: Any = None
        self._address = 0
        self._format, self._channels = int(array_format.FLOAT), 1
        self._modes = [int(address_mode.CLAMP)] * 3
        self._filter = int(filter_mode.POINT)
        self._flags = 0

    def set_array(self, ary: Any) -> None:
        self._native.set_array(_cuda_array(ary, "TextureReference.set_array"))
        self._keep = self._array = ary
        self._address = 0

    def get_array(self) -> Any:
        return self._array

    def set_address(self, devptr: Any, bytes: int, allow_offset: bool = False) -> int:  # noqa: A002
        if int(bytes) < 0:
            raise ArgumentError(f"TextureReference.set_address: bytes must be >= 0, got {bytes}")
        self._native.set_address(int(devptr), int(bytes))
        self._keep, self._array, self._address = devptr, None, int(devptr)
        return 0

    def set_address_2d(self, devptr: Any, descr: Any, pitch: int) -> None:
        what = "TextureReference.set_address_2d"
        fmt = int(descr.format)
        format_bytes(fmt, what)
        channels = check_channels(descr.num_channels, what)
        self._native.set_address_2d(int(devptr), fmt, channels, int(descr.width),
                                    int(descr.height), int(pitch))
        self._format, self._channels = fmt, channels
        self._keep, self._array, self._address = devptr, None, int(devptr)

    def set_format(self, fmt: Any, num_components: int) -> None:
        format_bytes(fmt, "TextureReference.set_format")
        channels = check_channels(num_components, "TextureReference.set_format")
        self._native.set_format(int(fmt), channels)
        self._format, self._channels = int(fmt), channels

    def set_address_mode(self, dim: int, am: Any) -> None:
        if dim not in (0, 1, 2):
            raise ArgumentError(f"TextureReference.set_address_mode: dim must be 0, 1 or 2, "
                                f"got {dim!r}")
        if int(am) not in (0, 1, 2, 3):
            raise ArgumentError(f"TextureReference.set_address_mode: {am!r} is not an "
                                "address_mode")
        self._native.set_address_mode(dim, int(am))
        self._modes[dim] = int(am)

    def set_filter_mode(self, fm: Any) -> None:
        if int(fm) not in (0, 1):
            raise ArgumentError(f"TextureReference.set_filter_mode: {fm!r} is not a filter_mode")
        self._native.set_filter_mode(int(fm))
        self._filter = int(fm)

    def set_flags(self, flags: int) -> None:
        if int(flags) & ~(TRSF_READ_AS_INTEGER | TRSF_NORMALIZED_COORDINATES | TRSF_SRGB):
            raise ArgumentError(f"TextureReference.set_flags: unknown flags {flags:#x} (TRSF_*)")
        # sRGB conversion has no effect on the CPU backend (it applies to 8-bit RGBA reads).
        self._native.set_flags(int(flags) & ~TRSF_SRGB)
        self._flags = int(flags)

    def get_address(self) -> int:
        return self._address

    def get_address_mode(self, dim: int) -> address_mode:
        return address_mode(self._modes[dim])

    def get_filter_mode(self) -> filter_mode:
        return filter_mode(self._filter)

    def get_format(self) -> tuple[array_format, int]:
        if self._array is not None:
            descr = self._array.get_descriptor_3d()
            return array_format(int(descr.format)), int(descr.num_channels)
        return array_format(self._format), self._channels

    def get_flags(self) -> int:
        return self._flags


class SurfaceReference:
    """PyCUDA's SurfaceReference: a ``surface<void, ...>`` of a module (CPU backend)."""

    def __init__(self, module: Any, name: str, native: Any) -> None:
        self._module, self._name, self._native = module, name, native
        self._array: Any = None

    def set_array(self, ary: Any, flags: int = 0) -> None:
        self._native.set_array(_cuda_array(ary, "SurfaceReference.set_array"))
        self._array = ary

    def get_array(self) -> Any:
        return self._array


def texture_reference(module: Any, name: str, surface: bool = False) -> Any:
    what = "get_surfref" if surface else "get_texref"
    _require_cpu(f"SourceModule.{what}({name!r})")
    make = _core._surface_reference if surface else _core._texture_reference
    native = make(module._module, name)
    cls = SurfaceReference if surface else TextureReference
    return cls(module, name, native)


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
