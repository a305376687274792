"""Foreign device functions: cuda.declare_device(name, signature, link=...)
declares a function written in CUDA C/C++ that kernels call.

Numba's calling convention is kept: the function is `extern "C" __device__
int name(T* result, args...)`, stores its result through the first pointer
and returns 0. cudakit compiles from source, so a linked file is CUDA C/C++
source (.cu): its text (with the local files it #includes) joins the
kernel's translation unit, for NVRTC and for the CPU backend alike.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Any

from . import config
from .translate import types as t

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)
_SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c")


class ForeignFunction:
    """What declare_device returns: callable inside kernels only."""

    def __init__(self, name: str, signature: t.Signature, link: tuple[str, ...],
                 abi: str = "numba") -> None:
        self.name = name
        self.signature = signature
        self.link = link
        self.abi = abi  # "numba": int name(T* result, args...); "c": T name(args...)
        self.__name__ = name

    @property
    def sig(self) -> t.Signature:
        """Numba's name for the signature."""
        return self.signature

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"the foreign device function {self.name}() can only be called "
                           "inside a @cuda.jit function")

    def __repr__(self) -> str:
        return f"<foreign device function {self.name}{self.signature}>"


class LinkableCode:
    """numba-cuda's base of code to link from memory. cudakit compiles
    kernels from source, so the one kind it links is CUDA C/C++ source
    (CUSource, kind "cu"); PTX, cubins, fatbins, objects, archives and
    LTO-IR are not linked."""

    kind = ""

    @staticmethod
    def from_path(path: str) -> "CUSource":
        """The CUDA C/C++ source file `path` (.cu) as a CUSource."""
        if os.path.splitext(os.fspath(path))[1] != ".cu":
            raise ValueError(f"LinkableCode.from_path: cannot link {path}: cudakit compiles "
                             "kernels from source, so it links CUDA C/C++ source (.cu) only")
        with open(path, encoding="utf-8") as handle:
            return CUSource(handle.read(), name=os.path.splitext(os.path.basename(path))[0])

    @classmethod
    def from_path_or_obj(cls, path_or_obj: Any) -> "LinkableCode":
        if isinstance(path_or_obj, LinkableCode):
            return path_or_obj
        return cls.from_path(path_or_obj)


class CUSource(str, LinkableCode):
    """CUDA C/C++ source text to link (`link=[cuda.CUSource(text)]`), as
    numba-cuda's: it joins the kernel's translation unit as a .cu file's
    text does. As a string it is a name that holds the text's digest (what
    messages and the disk cache's key show)."""

    kind = "cu"

    def __new__(cls, data: str | bytes, name: str | None = None) -> "CUSource":
        text = data.decode() if isinstance(data, bytes) else data
        if not isinstance(text, str):
            raise TypeError(f"CUSource takes the CUDA C/C++ source as str or bytes, got "
                            f"{type(data).__name__}")
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        self = super().__new__(cls, f"<CUSource {name or 'source'} {digest}>")
        self.data = text
        self.name = name or "source"
        return self


def check_link_paths(link: Any, who: str) -> tuple[str, ...]:
    """The absolute paths of `link` (one path or a list), each an existing
    CUDA C/C++ source file, or CUSource texts."""
    if link is None:
        return ()
    paths = [link] if isinstance(link, (str, os.PathLike)) else list(link)
    out = []
    for path in paths:
        if isinstance(path, CUSource):
            out.append(path)
            continue
        path = os.path.abspath(os.fspath(path))
        if not path.endswith(_SOURCE_SUFFIXES):
            raise ValueError(f"{who}: cannot link {path}: cudakit compiles kernels from source, "
                             "so it links CUDA C/C++ source files (.cu) only, not PTX, "
                             "LTO-IR, cubins, object files or libraries")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{who}: the file to link, {path}, does not exist")
        out.append(path)
    return tuple(out)


def linked_source(path: str) -> str:
    """The text of `path` with the local files it #includes inlined (each
    once), found next to the including file or in
    config.CUDA_NVRTC_EXTRA_SEARCH_PATHS. Other includes (the toolkit's
    headers) stay as they are."""
    if isinstance(path, CUSource):
        return f'#line 1 "{path.name}.cu"\n{path.data}'
    search = [d for d in config.CUDA_NVRTC_EXTRA_SEARCH_PATHS.split(":") if d]
    seen: set[str] = set()

    def expand(file: str) -> str:
        seen.add(file)
        with open(file, encoding="utf-8") as handle:
            text = handle.read()

        def replace(match: re.Match[str]) -> str:
            for directory in [os.path.dirname(file), *search]:
                candidate = os.path.abspath(os.path.join(directory, match.group(1)))
                if os.path.isfile(candidate):
                    if candidate in seen:
                        return ""
                    body = expand(candidate)
                    # Back in `file`, at the line after the #include.
                    resume = text.count("\n", 0, match.start()) + 2
                    return f"{_line(candidate)}\n{body}\n{_line(file, resume)}"
            return match.group(0)

        return _INCLUDE.sub(replace, text)

    return _line(path) + "\n" + expand(path)


def _line(path: str, line: int = 1) -> str:
    """A #line directive: the compiler's messages name the linked file."""
    escaped = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{escaped}"'
