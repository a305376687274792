"""`numba.cuda.cudadrv.nvrtc`: the NVRTC cudakit loaded (through its core,
with dlopen): its version, the compute capabilities it compiles for, and
`compile` of CUDA C/C++ source to PTX or LTO-IR. None of it needs a GPU."""

from __future__ import annotations

import functools
import warnings
from typing import Any

from .error import CCSupportError, NvrtcCompilationError


@functools.cache
def _info() -> tuple[int, int, tuple[int, ...], bool, str]:
    from ... import _core
    major, minor, archs, lto_ir, path = _core._gpu_compiler_info()
    return int(major), int(minor), tuple(int(a) for a in archs), bool(lto_ir), str(path)


def _get_nvrtc_version() -> tuple[int, int]:
    """(major, minor) of the loaded NVRTC."""
    return _info()[0], _info()[1]


def makes_ltoir() -> bool:
    """Whether the loaded NVRTC makes LTO-IR (has nvrtcGetLTOIR, CUDA 12+)."""
    return _info()[3]


def get_supported_ccs() -> list[tuple[int, int]]:
    """The compute capabilities NVRTC compiles for, ascending."""
    return [(arch // 10, arch % 10) for arch in _info()[2]]


def get_lowest_supported_cc() -> tuple[int, int]:
    return min(get_supported_ccs())


def _cc_text(cc: Any) -> str:
    return ".".join(str(part) for part in cc)


def find_closest_arch(cc: Any) -> tuple[int, int]:
    """The newest compute capability NVRTC supports at or below `cc`
    ((major, minor)); CCSupportError when `cc` is below all of them."""
    cc = tuple(cc[:2])
    supported = get_supported_ccs()
    older = [v for v in supported if v <= cc]
    if not older:
        raise CCSupportError(f"GPU compute capability {_cc_text(cc)} is not supported "
                             f"(requires >={_cc_text(supported[0])})")
    return older[-1]


def _arch_suffix(cc: Any) -> str:
    suffix = cc[2] if len(cc) == 3 else ""
    if suffix not in ("", "a", "f"):
        raise ValueError(f"Invalid architecture suffix {suffix!r} in compute capability "
                         f"{_cc_text(cc[:2])}{suffix}. Expected '', 'a', or 'f'.")
    return suffix


def get_arch_option(major: int, minor: int, arch: str = "") -> str:
    """"compute_XY[a|f]" for the closest supported compute capability; an
    arch-specific suffix needs that capability exactly."""
    _arch_suffix((major, minor, arch))
    found = find_closest_arch((major, minor))
    if found != (major, minor) and arch:
        raise ValueError(f"Can't use arch-specific compute_{major}{minor}{arch} with closest "
                         f"found compute capability compute_{found[0]}{found[1]}")
    return f"compute_{found[0]}{found[1]}{arch}"


def target_arch(cc: Any) -> str:
    """compile()'s target for a compute capability (major, minor[, 'a'|'f']):
    "compute_XY[a|f]"; one NVRTC does not know is lowered to the closest
    below it, with a warning."""
    try:
        major, minor = int(cc[0]), int(cc[1])
    except (TypeError, ValueError, IndexError):
        raise ValueError(f"cc must be a compute capability (major, minor) or (major, minor, "
                         f"'a' | 'f'), such as (9, 0), got {cc!r}") from None
    suffix = _arch_suffix(tuple(cc))
    found = find_closest_arch((major, minor))
    if found != (major, minor):
        warnings.warn(f"Device compute capability {major}.{minor} is not supported by NVRTC "
                      f"{_cc_text(_get_nvrtc_version())}. Using {_cc_text(found)} instead.")
    return get_arch_option(major, minor, suffix)


def compile(src: str | bytes, name: str, cc: Any, ltoir: bool = False, lineinfo: bool = False,
            debug: bool = False) -> tuple[Any, str]:
    """(PTX text or LTO-IR bytes, log) of CUDA C/C++ `src` compiled for
    `cc`, relocatable (-rdc=true) so that its device functions stay."""
    from ... import _core
    from ...compiler import CompileError
    text = src.decode() if isinstance(src, bytes) else src
    if ltoir and not makes_ltoir():
        raise NvrtcCompilationError(f"the loaded NVRTC ({_info()[4]}) makes no LTO-IR (it has "
                                    "no nvrtcGetLTOIR): use CUDA 12.0 or newer's, or PTX")
    try:
        image, _format, _arch, log = _core._compile_only(
            text, target_arch(cc), "c++17", [], [], ["-rdc=true"], bool(debug),
            bool(lineinfo), False, True, not ltoir, bool(ltoir))
    except CompileError as error:
        raise NvrtcCompilationError(f"{name}: {error}") from None
    code = bytes(image) if ltoir else bytes(image).rstrip(b"\0").decode()
    return code, log


__all__ = ["compile", "find_closest_arch", "get_arch_option", "get_lowest_supported_cc",
           "get_supported_ccs"]
