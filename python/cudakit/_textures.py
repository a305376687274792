"""The refusal of texture and surface references on a GPU.

Texture and surface *references* (``texture<float, 2> tex;``) were removed
from CUDA in version 12: NVRTC cannot compile them for a GPU, and a source
that declares one raises TexturesNotSupported there. The CPU backend has
them (_texture_references.py).
"""

from __future__ import annotations

import re

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
