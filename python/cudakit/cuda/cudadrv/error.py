"""`numba.cuda.cudadrv.error`: the exceptions of the CUDA layer."""

from __future__ import annotations


class CudaDriverError(Exception):
    """The CUDA driver could not be used (no driver, no device)."""


class CudaRuntimeError(Exception):
    """A CUDA runtime call failed."""


class CudaSupportError(ImportError):
    """CUDA is not usable in this process."""


class NvrtcError(Exception):
    """NVRTC failed."""


class NvrtcCompilationError(NvrtcError):
    """NVRTC could not compile the source (its log is the message)."""


class NvrtcSupportError(ImportError):
    """NVRTC is not available."""


class CCSupportError(RuntimeError):
    """The compute capability is one NVRTC cannot compile for."""


__all__ = ["CCSupportError", "CudaDriverError", "CudaRuntimeError", "CudaSupportError",
           "NvrtcCompilationError", "NvrtcError", "NvrtcSupportError"]
