"""cudakit's texture and surface objects (cudaTextureObject_t /
cudaSurfaceObject_t), over linear or pitch-2-D device memory or a CUDA array.

The C++ TextureObject / SurfaceObject (cuTexObjectCreate on a GPU, a
record on the CPU backend), created on the current device. ``int(obj)`` is
the handle a kernel's cudaTextureObject_t takes.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _core
from ._core import ArgumentError
from ._texture_references import (
    TRSF_NORMALIZED_COORDINATES,
    TRSF_READ_AS_INTEGER,
    TRSF_SRGB,
    _cuda_array,
    check_channels,
    format_bytes,
)




class _Handle:
    """What texture and surface objects share: the handle, as int() and for a launch."""

    _object: Any = None

    @property
    def handle(self) -> int:
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
        if format is None and isinstance(resource, _core.CudaArray):
            self._object = _core._texture_object_array(resource, *common)
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


class SurfaceObject(_Handle):
    """A surface object (cuSurfObjectCreate) over a driver.Array made with
    array3d_flags.SURFACE_LDST; ``int(obj)`` is the handle a kernel's
    cudaSurfaceObject_t takes."""

    def __init__(self, array: Any) -> None:
        self._resource = array
        self._object = _core._surface_object(_cuda_array(array, "SurfaceObject"))
