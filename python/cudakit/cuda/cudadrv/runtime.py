"""`numba.cuda.cudadrv.runtime`: the CUDA runtime's version."""

from __future__ import annotations


class _Runtime:
    def get_version(self) -> tuple[int, int]:
        """(major, minor) of the CUDA toolkit cudakit compiles with (NVRTC's)."""
        from ... import driver as cuda_driver
        major, minor = cuda_driver.get_version()[:2]
        return int(major), int(minor)

    def is_supported_version(self) -> bool:
        return True


runtime = _Runtime()
get_version = runtime.get_version

__all__ = ["get_version", "runtime"]
