"""`numba.cuda.cudadrv.driver`: the driver-level names programs use:
`CudaAPIError` (a failed driver call: its code and message), `Stream`, the
`driver` object (`driver.get_device()`), and whether nvJitLink is used
(`_have_nvjitlink()`: no; cudakit compiles kernels from CUDA C++ source and
uses nvJitLink only for a kernel that links LTO-IR)."""

from __future__ import annotations

from typing import Any

from .error import CudaDriverError, CudaSupportError  # noqa: F401


class CudaAPIError(Exception):
    """A CUDA driver call that returned an error: `code` (the CUresult) and
    `msg`."""

    def __init__(self, code: int, msg: str) -> None:
        self.code = code
        self.msg = msg
        super().__init__(code, msg)

    def __str__(self) -> str:
        return f"[{self.code}] {self.msg}"


def _stream_class() -> Any:
    from ..api import Stream
    return Stream


class _Driver:
    """The process's CUDA driver, as numba-cuda's `driver` singleton offers
    it to programs: the devices."""

    def get_device(self, devnum: int = 0) -> Any:
        from ..api import gpus
        return gpus[devnum]

    def get_device_count(self) -> int:
        from ..api import gpus
        return len(gpus)

    @property
    def is_available(self) -> bool:
        from ..api import is_available
        return bool(is_available())

    def __repr__(self) -> str:
        return "<cudakit CUDA driver>"


driver = _Driver()


def _have_nvjitlink() -> bool:
    """Whether every kernel is linked with nvJitLink (numba-cuda's LTO mode):
    no in cudakit (only a kernel that links LTO-IR is, linked_code.py)."""
    return False


def __getattr__(name: str) -> Any:
    if name == "Stream":
        return _stream_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CudaAPIError", "CudaDriverError", "Stream", "driver"]
