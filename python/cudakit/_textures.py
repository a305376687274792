"""PyCUDA's texture API, present so that programs using it fail at the
first texture call with a NotSupported that says why, instead of an
AttributeError.

Texture and surface *references* (``texture<float, 2> tex;``,
``get_texref``, ``matrix_to_texref``) were removed from CUDA in version 12:
NVRTC no longer compiles them, on a GPU as on the CPU backend. CUDA arrays
themselves (``Array``, ``Memcpy2D``/``Memcpy3D``, ``np_to_array``) are
supported: _cuda_arrays.py.
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
        "(texture<...> / surface<...>), which CUDA 12 removed: NVRTC cannot compile them and "
        "cudakit does not support textures.\n" + _HINT + "\n  compiler output:\n" + str(error))
    for name in ("log", "stderr", "stdout"):
        if hasattr(error, name):
            setattr(result, name, getattr(error, name))
    return result


def _refuse(what: str) -> NoReturn:
    raise NotSupported(
        f"{what}: texture references are not supported by cudakit (they were removed in "
        "CUDA 12).\n" + _HINT)


def matrix_to_texref(matrix: Any, texref: Any, order: str = "C") -> NoReturn:
    _refuse("matrix_to_texref (binding a texture reference)")


def bind_array_to_texref(array: Any, texref: Any) -> NoReturn:
    _refuse("bind_array_to_texref (binding a texture reference)")
