"""cudakit's texture and surface objects (cudaTextureObject_t /
cudaSurfaceObject_t), over linear or pitch-2-D device memory or a CUDA array.

On the CPU backend the object is a 128-byte record in device memory (the
prelude's ``cudakit_cpu::TextureRecord``) and its handle is the record's
address. ``int(obj)`` is the handle a kernel's cudaTextureObject_t takes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._core import ArgumentError, NotSupported
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


def _cpu_only(what: str) -> None:
    from .driver import backend
    if backend() != "cpu":
        raise NotSupported(f"{what} on a GPU is not implemented yet in cudakit's Python API; "
                           "the CPU backend has it.\n  hint: create the object with the CUDA "
                           "runtime or driver API of another library and pass its handle")


def _linear_address(devptr: Any, what: str) -> int:
    address = int(devptr)
    if address % 256:
        raise ArgumentError(f"{what}: the address {address:#x} is not 256-byte aligned, as "
                            "texture memory must be (cuTexObjectCreate refuses it)")
    return address


class _Object:
    def __init__(self, layout: Layout, keep: Any) -> None:
        from .driver import mem_alloc, memcpy_htod
        self._keep = keep
        self._record = mem_alloc(128)
        memcpy_htod(self._record, np.frombuffer(self._packed(layout), dtype=np.uint8))
        self.handle = int(self._record)

    def __int__(self) -> int:
        return self.handle

    __index__ = __int__

    def destroy(self) -> None:
        """Gives the record back; a kernel launched afterwards with the handle faults."""
        from .driver import memcpy_htod
        if self._record is not None:
            memcpy_htod(self._record, np.zeros(128, dtype=np.uint8))
            self._record.free()
            self._record = None


class TextureObject(_Object):
    """A texture object. ``resource``: a driver.Array, or device memory (a
    DeviceAllocation or address) with ``format`` (array_format) and
    ``channels``: ``bytes`` of it for a linear texture (tex1Dfetch), or
    ``width``/``height``/``pitch`` for a pitch-2-D one.

    ``address_mode``: one address_mode or one per dimension (default CLAMP);
    ``filter_mode`` POINT or LINEAR; ``flags`` TRSF_READ_AS_INTEGER /
    TRSF_NORMALIZED_COORDINATES; ``border_color`` 4 floats.
    """

    def __init__(self, resource: Any, format: Any = None, channels: int = 1,  # noqa: A002
                 bytes: int | None = None, width: int | None = None,  # noqa: A002
                 height: int | None = None, pitch: int | None = None,
                 address_mode: Any = 1, filter_mode: Any = 0, flags: int = 0,
                 border_color: Sequence[float] = (0.0, 0.0, 0.0, 0.0)) -> None:
        what = "TextureObject"
        _cpu_only(what)
        modes = list(address_mode) if isinstance(address_mode, (list, tuple)) \
            else [address_mode] * 3
        modes = (modes + [modes[-1]] * 3)[:3]
        if any(int(m) not in (0, 1, 2, 3) for m in modes):
            raise ArgumentError(f"{what}: address_mode must be address_mode values, got "
                                f"{address_mode!r}")
        if int(filter_mode) not in (0, 1):
            raise ArgumentError(f"{what}: filter_mode must be POINT or LINEAR, got "
                                f"{filter_mode!r}")
        if int(flags) & ~(TRSF_READ_AS_INTEGER | TRSF_NORMALIZED_COORDINATES | TRSF_SRGB):
            raise ArgumentError(f"{what}: unknown flags {flags:#x} (TRSF_*)")
        border = tuple(float(b) for b in border_color)
        if len(border) != 4:
            raise ArgumentError(f"{what}: border_color must be 4 floats")
        if hasattr(resource, "handle") and format is None:
            layout = array_layout(resource, what)
        else:
            if format is None:
                raise ArgumentError(f"{what}: device memory needs format= (an array_format) "
                                    "and channels=")
            element = format_bytes(format, what) * check_channels(channels, what)
            address = _linear_address(resource, what)
            if bytes is not None and width is None:
                if int(bytes) <= 0 or int(bytes) % element:
                    raise ArgumentError(f"{what}: bytes={bytes} is not a positive multiple of "
                                        f"the {element}-byte element")
                layout = Layout(address, int(bytes) // element, kind=1)
            elif width is not None and height is not None and pitch is not None:
                if int(width) <= 0 or int(height) <= 0:
                    raise ArgumentError(f"{what}: width and height must be positive")
                if int(pitch) < int(width) * element or int(pitch) % 32:
                    raise ArgumentError(f"{what}: pitch={pitch} must hold a row of "
                                        f"{int(width) * element} bytes and be a multiple of 32")
                layout = Layout(address, int(width), int(height), 1, int(pitch),
                                int(pitch) * int(height), kind=2)
            else:
                raise ArgumentError(f"{what}: device memory needs bytes= (linear) or width=, "
                                    "height= and pitch= (pitch 2-D)")
            layout.format, layout.channels = int(format), int(channels)
        fmt = layout.format
        reads_float = fmt in (16, 32) or (fmt in (1, 2, 8, 9)
                                          and not int(flags) & TRSF_READ_AS_INTEGER)
        if int(filter_mode) == 1 and not reads_float:
            raise ArgumentError(f"{what}: linear filtering needs values read as floats: a float "
                                "or half format, or 8/16-bit integers without "
                                "TRSF_READ_AS_INTEGER")
        self._args = ([int(m) for m in modes], int(filter_mode), int(flags), border)
        super().__init__(layout, resource)

    def _packed(self, layout: Layout) -> bytes:
        modes, filter_value, flags, border = self._args
        return pack_record(layout, layout.format, layout.channels, modes, filter_value, flags,
                           border)


class SurfaceObject(_Object):
    """A surface object over a driver.Array made with array3d_flags.SURFACE_LDST."""

    def __init__(self, array: Any) -> None:
        _cpu_only("SurfaceObject")
        layout = array_layout(array, "SurfaceObject")
        if not layout.surface:
            raise ArgumentError("SurfaceObject: the array was not made for surfaces; create it "
                                "with array3d_flags.SURFACE_LDST")
        super().__init__(layout, array)

    def _packed(self, layout: Layout) -> bytes:
        return pack_record(layout, layout.format, layout.channels, [1, 1, 1], 0,
                           TRSF_READ_AS_INTEGER)
