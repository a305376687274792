"""`numba.cuda.config`: the settings of Numba's CUDA target that cudakit
reads. Assign to them before the kernels that need them are compiled."""

from __future__ import annotations

import os

# Directories (":"-separated) searched for the files that the CUDA C/C++
# sources given to declare_device(link=...) or @cuda.jit(link=...) include.
CUDA_NVRTC_EXTRA_SEARCH_PATHS: str = os.environ.get("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")

# numba-cuda's simulator switch: cudakit never simulates (the CPU backend
# compiles and runs the kernels), so code that branches on it takes the
# hardware path.
ENABLE_CUDASIM: bool = False

# Numba's runtime (NRT) switch, which programs and tests set: cudakit's
# kernels allocate nothing, so nothing reads it.
CUDA_ENABLE_NRT: bool = os.environ.get("NUMBA_CUDA_ENABLE_NRT", "0") == "1"
# 1: no NumbaPerformanceWarning at all; CUDA_WARN_ON_IMPLICIT_COPY = 0: none
# for host arrays passed to kernels (copied to the device and back).
DISABLE_PERFORMANCE_WARNINGS: int = int(os.environ.get("NUMBA_DISABLE_PERFORMANCE_WARNINGS",
                                                       "0") or 0)
CUDA_WARN_ON_IMPLICIT_COPY: int = int(os.environ.get("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY",
                                                     "1") or 0)
# Consumers of another library's __cuda_array_interface__ (cuda.as_cuda_array,
# kernel arguments) wait for the stream it names first, as the protocol asks.
CUDA_ARRAY_INTERFACE_SYNC: bool = os.environ.get("NUMBA_CUDA_ARRAY_INTERFACE_SYNC",
                                                 "1") != "0"
# 1: Numba's NumbaPerformanceWarning at kernel[grid, block] for a grid of fewer
# blocks than twice the device's multiprocessors (numba-cuda warns unless told
# not to; cudakit only when asked).
CUDA_LOW_OCCUPANCY_WARNINGS: int = int(os.environ.get("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS",
                                                      "0") or 0)
# The compute capability compile_ptx / compile target when given none
# (cc=None): at least the lowest the loaded NVRTC compiles for (7.5 for
# CUDA 12 and 13), as numba-cuda raises its own default of 5.0.
CUDA_DEFAULT_PTX_CC: tuple[int, int] = (7, 5)


class _OptLevel(int):
    """NUMBA_OPT's optimisation level: an int, 3 for "max" (is_opt_max)."""

    def __new__(cls, value: int | str) -> "_OptLevel":
        new = super().__new__(cls, 3 if value == "max" else int(value))
        new._raw_value = value if value == "max" else int(value)  # type: ignore[attr-defined]
        return new

    @property
    def is_opt_max(self) -> bool:
        return self._raw_value == "max"  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        raw = self._raw_value  # type: ignore[attr-defined]
        return f"_OptLevel({raw!r})"


def _opt_level(text: str) -> _OptLevel:
    if text not in ("0", "1", "2", "3", "max"):
        raise ValueError(f"Environment variable `NUMBA_OPT` is set to an unsupported value "
                         f"'{text}', supported values are 0, 1, 2, 3, and 'max'")
    return _OptLevel(text)


# cuda.jit's defaults, as Numba's: debug=CUDA_DEBUGINFO_DEFAULT, and opt=False
# where OPT is 0 (NUMBA_CUDA_DEBUGINFO, NUMBA_OPT).
CUDA_DEBUGINFO_DEFAULT: int = int(os.environ.get("NUMBA_CUDA_DEBUGINFO", "0") or 0)
OPT: _OptLevel = _opt_level(os.environ.get("NUMBA_OPT", "3"))
