"""cudakit's texture and surface objects (cudaTextureObject_t /
cudaSurfaceObject_t), over linear or pitch-2-D device memory or a CUDA array.

The C++ TextureObject / SurfaceObject (cuTexObjectCreate on a GPU, a
record on the CPU backend), created on the current device. ``int(obj)`` is
the handle a kernel's cudaTextureObject_t takes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _core
from ._core import ArgumentError
from ._texture_references import (
    TRSF_NORMALIZED_COORDINATES,
    TRSF_READ_AS_INTEGER,
    TRSF_SRGB,
    Layout,
    array_layout,
    check_channels,
    format_bytes,
    pack_record,
)


def _native_array(ary: Any) -> Any:
    """The C++ CudaArray behind a driver.Array (the object itself or what it wraps)."""
    return getattr(ary, "_array", ary)


def _is_array(resource: Any) -> bool:
    return hasattr(resource, "handle")


class _Handle:
    """What texture and surface objects share: the handle, as int() and for a launch."""

    _object: Any = None
    _record: Any = None

    @property
    def handle(self) -> int:
        if self._record is not None:
            return int(self._record)
        return self._object.handle if self._object is not None else 0

    def __int__(self) -> int:
        return self.handle

    __index__ = __int__

    @property
    def _cudakit_object_handle(self) -> int:  # a launch passes this for the object
        return self.handle


class TextureObject(_Handle):
    """A texture object (cuTexObjectCreate). ``resource``: a driver.Array, or
    device memory (a DeviceAllocation or address) with ``format``
    (array_format) and ``channels``: ``bytes`` of it for a linear texture
    (tex1Dfetch), or ``width``/``height``/``pitch`` for a pitch-2-D one.

    ``address_mode``: one address_mode or one per dimension (default CLAMP);
    ``filter_mode`` POINT or LINEAR; ``flags`` TRSF_READ_AS_INTEGER /
    TRSF_NORMALIZED_COORDINATES; ``border_color`` 4 floats. ``int(obj)`` is
    the handle a kernel's cudaTextureObject_t takes.
    """

    def __init__(self, resource: Any, format: Any = None, channels: int = 1,  # noqa: A002
                 bytes: int | None = None, width: int | None = None,  # noqa: A002
                 height: int | None = None, pitch: int | None = None,
                 address_mode: Any = 1, filter_mode: Any = 0, flags: int = 0,
                 border_color: Sequence[float] = (0.0, 0.0, 0.0, 0.0)) -> None:
        what = "TextureObject"
        modes = list(address_mode) if isinstance(address_mode, (list, tuple)) \
            else [address_mode] * 3
        if not modes or any(int(m) not in (0, 1, 2, 3) for m in modes):
            raise ArgumentError(f"{what}: address_mode must be address_mode values, got "
                                f"{address_mode!r}")
        modes = [int(m) for m in (modes + [modes[-1]] * 3)[:3]]
        if int(filter_mode) not in (0, 1):
            raise ArgumentError(f"{what}: filter_mode must be POINT or LINEAR, got "
                                f"{filter_mode!r}")
        if int(flags) & ~(TRSF_READ_AS_INTEGER | TRSF_NORMALIZED_COORDINATES | TRSF_SRGB):
            raise ArgumentError(f"{what}: unknown flags {flags:#x} (TRSF_*)")
        border = [float(b) for b in border_color]
        if len(border) != 4:
            raise ArgumentError(f"{what}: border_color must be 4 floats")
        common = (modes, int(filter_mode), bool(int(flags) & TRSF_READ_AS_INTEGER),
                  bool(int(flags) & TRSF_NORMALIZED_COORDINATES), border)
        self._resource = resource
        self._record: Any = None
        if format is None and _is_array(resource):
            try:
                self._object = _core._texture_object_array(_native_array(resource), *common)
            except TypeError:
                self._object = None
                self._record = _cpu_record(array_layout(resource, what), common, what)
            return
        if format is None:
            raise ArgumentError(f"{what}: device memory needs format= (an array_format) and "
                                "channels=")
        format_bytes(format, what)
        check_channels(channels, what)
        if bytes is not None and width is None:
            size, w, h, p = int(bytes), 0, 0, 0
        elif width is not None and height is not None and pitch is not None:
            size, w, h, p = 0, int(width), int(height), int(pitch)
            if w <= 0 or h <= 0 or p <= 0:
                raise ArgumentError(f"{what}: width, height and pitch must be positive")
        else:
            raise ArgumentError(f"{what}: device memory needs bytes= (linear) or width=, "
                                "height= and pitch= (pitch 2-D)")
        if size < 0:
            raise ArgumentError(f"{what}: bytes must be positive, got {bytes}")
        self._object = _core._texture_object_memory(int(resource), int(format), int(channels),
                                                    size, w, h, p, *common)


    def destroy(self) -> None:
        """Destroys the object now; a kernel launched afterwards with its handle faults."""
        if self._object is not None:
            self._object.reset()
        if self._record is not None:
            from .driver import memcpy_htod
            memcpy_htod(self._record, np.zeros(128, dtype=np.uint8))
            self._record.free()
            self._record = None


def _cpu_record(layout: Layout, common: tuple, what: str) -> Any:
    """The CPU backend's record for an array the C++ binding does not know."""
    from .driver import backend, mem_alloc, memcpy_htod
    if backend() != "cpu":
        raise ArgumentError(f"{what}: expected a driver.Array or device memory")
    modes, filter_value, as_integer, normalized, border = common
    flags = (TRSF_READ_AS_INTEGER if as_integer else 0) | \
        (TRSF_NORMALIZED_COORDINATES if normalized else 0)
    reads_float = layout.format in (16, 32) or (layout.format in (1, 2, 8, 9) and not as_integer)
    if filter_value == 1 and not reads_float:
        raise ArgumentError(f"{what}: linear filtering needs values read as floats")
    record = mem_alloc(128)
    memcpy_htod(record, np.frombuffer(pack_record(layout, layout.format, layout.channels, modes,
                                                  filter_value, flags, tuple(border)),
                                      dtype=np.uint8))
    return record


class SurfaceObject(_Handle):
    """A surface object (cuSurfObjectCreate) over a driver.Array made with
    array3d_flags.SURFACE_LDST; ``int(obj)`` is the handle a kernel's
    cudaSurfaceObject_t takes."""

    def __init__(self, array: Any) -> None:
        self._resource = array
        self._record: Any = None
        try:
            self._object = _core._surface_object(_native_array(array))
        except TypeError:
            self._object = None
            layout = array_layout(array, "SurfaceObject")
            if not layout.surface:
                raise ArgumentError("SurfaceObject: the array was not made for surfaces; "
                                    "create it with array3d_flags.SURFACE_LDST") from None
            from .driver import mem_alloc, memcpy_htod
            self._record = mem_alloc(128)
            memcpy_htod(self._record, np.frombuffer(
                pack_record(layout, layout.format, layout.channels, [1, 1, 1], 0,
                            TRSF_READ_AS_INTEGER), dtype=np.uint8))

