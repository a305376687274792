"""Foreign device functions: cuda.declare_device(name, signature, link=...)
declares a function written in CUDA C/C++ that kernels call.

Numba's calling convention is kept: the function is `extern "C" __device__
int name(T* result, args...)`, stores its result through the first pointer
and returns 0. A linked CUDA C/C++ source (.cu): its text (with the local
files it #includes) joins the kernel's translation unit, for NVRTC and for
the CPU backend alike; compiled code (.ptx, .cubin, .ltoir, ...) is linked
with the kernel on a GPU (linked_code.py).
"""

from __future__ import annotations

import os
import re
from typing import Any

from . import config
from .linked_code import COMPILED_SUFFIXES, CUSource, LinkableCode
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


def check_link_paths(link: Any, who: str) -> tuple[str, ...]:
    """The absolute paths of `link` (one path or a list), each an existing
    CUDA C/C++ source or compiled code file, or in-memory code
    (CUSource, PTXSource, Cubin, ...)."""
    if link is None:
        return ()
    paths = [link] if isinstance(link, (str, os.PathLike)) else list(link)
    out = []
    for path in paths:
        if isinstance(path, LinkableCode):
            out.append(path)
            continue
        path = os.path.abspath(os.fspath(path))
        if not path.endswith((*_SOURCE_SUFFIXES, *COMPILED_SUFFIXES)):
            raise ValueError(f"{who}: cannot link {path}: unknown kind of file; cudakit links "
                             f"CUDA C/C++ source ({', '.join(_SOURCE_SUFFIXES)}) and compiled "
                             f"code ({', '.join(COMPILED_SUFFIXES)})")
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
