"""PyCUDA's texture and CUDA-array API, present so that programs using it
fail at the first texture call with a NotSupported that says why, instead of
an AttributeError.

Texture and surface *references* (``texture<float, 2> tex;``,
``get_texref``, ``matrix_to_texref``) were removed from CUDA in version 12:
NVRTC no longer compiles them, on a GPU as on the CPU backend. CUDA arrays
(``Array``, ``Memcpy2D``/``Memcpy3D`` into them, ``np_to_array``) exist only
to back textures and surfaces, which cudakit does not offer.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

from ._core import CompileError, NotSupported

_HINT = ("  hint: read the data through a pointer instead (const float* __restrict__ "
         "goes through the read-only cache as a texture fetch would), with the "
         "interpolation or boundary handling written in the kernel")

_TEXTURE_SOURCE = re.compile(r"\b(texture|surface)\s*<")


class TexturesNotSupported(NotSupported, CompileError):
    """The source declares texture or surface references, which CUDA 12 removed.

    Both a NotSupported and a CompileError, so either ``except`` catches it.
    """


TexturesNotSupported.__module__ = "cudakit.driver"


def uses_texture_references(source: str) -> bool:
    return _TEXTURE_SOURCE.search(source) is not None


def texture_compile_error(error: BaseException) -> TexturesNotSupported:
    result = TexturesNotSupported(
        "SourceModule: the source declares texture or surface references "
        "(texture<...> / surface<...>), which CUDA 12 removed: NVRTC cannot compile them for a "
        "GPU (the CPU backend, CUDAKIT_BACKEND=cpu, runs them).\n" + _HINT +
        "; or use texture objects (cudaTextureObject_t)" + "\n  compiler output:\n" + str(error))
    for name in ("log", "stderr", "stdout"):
        if hasattr(error, name):
            setattr(result, name, getattr(error, name))
    return result


def _refuse(what: str) -> NoReturn:
    raise NotSupported(
        f"{what}: CUDA arrays, textures and surfaces are not supported by cudakit (texture "
        "references were removed in CUDA 12, and CUDA arrays exist only to back textures "
        "and surfaces).\n" + _HINT)


class ArrayDescriptor:
    """PyCUDA's 2-D CUDA array descriptor: its fields can be set; Array(descr) is NotSupported."""

    def __init__(self) -> None:
        self.width = 0
        self.height = 0
        self.format: Any = None
        self.num_channels = 1


class ArrayDescriptor3D(ArrayDescriptor):
    """PyCUDA's 3-D CUDA array descriptor; Array(descr) is NotSupported."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.flags = 0


class Array:
    """A CUDA array (the memory behind a texture): NotSupported."""

    def __init__(self, descriptor: Any = None) -> None:
        _refuse("cudakit.driver.Array (a CUDA array)")


class _CudaArrayCopy:
    def __init__(self) -> None:
        _refuse(f"cudakit.driver.{type(self).__name__} (a copy into or out of a CUDA array)")


class Memcpy2D:
    """PyCUDA's 2-D copy (pitched memory and CUDA arrays): NotSupported."""

    def __init__(self) -> None:
        raise NotSupported(
            "cudakit.driver.Memcpy2D (a pitched 2-D copy) is not supported.\n"
            "  hint: copy row by row with memcpy_htod / memcpy_dtoh / memcpy_dtod at "
            "int(allocation) + row * pitch, or use GPUArray slicing and set()/get()")


class Memcpy3D(_CudaArrayCopy):
    """PyCUDA's 3-D copy (CUDA arrays): NotSupported."""


def dtype_to_array_format(dtype: Any) -> NoReturn:
    _refuse("dtype_to_array_format (the element format of a CUDA array)")


def matrix_to_array(matrix: Any, order: str = "C", allow_double_hack: bool = False) -> NoReturn:
    _refuse("matrix_to_array")


def np_to_array(nparray: Any, order: str, allowSurfaceBind: bool = False) -> NoReturn:  # noqa: N803
    _refuse("np_to_array")


def gpuarray_to_array(gpuarray: Any, order: str, allowSurfaceBind: bool = False) -> NoReturn:  # noqa: N803
    _refuse("gpuarray_to_array")


def make_multichannel_2d_array(matrix: Any, order: str) -> NoReturn:
    _refuse("make_multichannel_2d_array")


def matrix_to_texref(matrix: Any, texref: Any, order: str = "C") -> NoReturn:
    _refuse("matrix_to_texref (binding a texture reference)")


def bind_array_to_texref(array: Any, texref: Any) -> NoReturn:
    _refuse("bind_array_to_texref (binding a texture reference)")
