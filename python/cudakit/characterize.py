"""PyCUDA's ``pycuda.characterize``: what the current device's kernels have.

On the CPU backend the answers are those of the host's kernels: doubles and
a call stack are supported, and ``sizeof`` is the host compiler's (a kernel
is compiled and run to measure it, as on a GPU).
"""

from __future__ import annotations

import sys

import numpy as np

from .tools import context_dependent_memoize

__all__ = ["has_double_support", "has_stack", "platform_bits", "sizeof"]


def platform_bits() -> int:
    """64 or 32: the host's pointer width."""
    return 64 if sys.maxsize > 2**32 else 32


def _compute_capability() -> tuple[int, int]:
    """The current device's; on the CPU backend (which reports (0, 0)) the
    host's kernels have every feature, so it counts as the newest."""
    from .driver import Context, backend

    if backend() == "cpu":
        return (99, 0)
    return tuple(Context.get_device().compute_capability())  # type: ignore[return-value]


def has_stack() -> bool:
    """Whether kernels have a call stack (recursion, printf): compute
    capability 2.0 on; always on the CPU backend."""
    return _compute_capability() >= (2, 0)


def has_double_support() -> bool:
    """Whether kernels compute in double precision: compute capability 1.3
    on; always on the CPU backend."""
    return _compute_capability() >= (1, 3)


@context_dependent_memoize
def sizeof(type_name: str, preamble: str = "") -> int:
    """``sizeof(type_name)`` in a kernel of the current device, measured by
    compiling and running one (``preamble`` declares the type when needed).
    A name that is not a type is a CompileError naming it."""
    from . import driver
    from .compiler import SourceModule

    if not isinstance(type_name, str) or not type_name.strip():
        raise TypeError(f"sizeof: type_name must be the C type's name as a non-empty str, "
                        f"got {type_name!r}")
    module = SourceModule(
        f"""
{preamble}
extern "C" __global__ void write_size(size_t *output)
{{
  *output = sizeof({type_name});
}}
""", no_extern_c=True)
    output = driver.mem_alloc(np.dtype(np.uintp).itemsize)
    module.get_function("write_size")(output, block=(1, 1, 1), grid=(1, 1))
    result = np.zeros(1, np.uintp)
    driver.memcpy_dtoh(result, output)
    return int(result[0])
