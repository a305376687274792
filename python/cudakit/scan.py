"""PyCUDA's ``pycuda.scan`` kernels on cudakit's scan generator.

As in PyCUDA, calling a scan kernel with one array scans it IN PLACE and
returns it; ``output_ary=`` writes elsewhere, ``output_ary="new"`` into a
new array (from ``allocator=`` when given, else the input's allocator, as
PyCUDA). ``stream=`` runs the scan on that stream. The scan's scratch memory
comes from cudakit's caching pool.
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._pickling import PicklesByArguments
from ._scan_sources import (  # noqa: F401  (PyCUDA's source templates)
    EXCLUSIVE_UPDATE_SOURCE,
    INCLUSIVE_UPDATE_SOURCE,
    SCAN_INTERVALS_SOURCE,
    SHARED_PREAMBLE,
)
from .reduction import _defines_from_options

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel", "SHARED_PREAMBLE",
           "SCAN_INTERVALS_SOURCE", "INCLUSIVE_UPDATE_SOURCE", "EXCLUSIVE_UPDATE_SOURCE"]


class _Scan(PicklesByArguments):
    # Pickled as their arguments (less devices=, this process's), compiled again on arrival.
    _pickle_overrides = {"devices": None}

    def __init__(self, dtype: Any, scan_expr: str, neutral: str | None,
                 name_prefix: str, preamble: str, exclusive: bool, options: Any = None) -> None:
        preamble = _defines_from_options(options, f"scan kernel {name_prefix}") + preamble
        self._dtype = dtype
        self._kernel = _core._ScanKernel(dtype, scan_expr,
                                         None if neutral is None else str(neutral),
                                         name_prefix, preamble, exclusive)

    def __call__(self, input_ary: Any, output_ary: Any = None, allocator: Any = None,
                 stream: Any = None) -> Any:
        if isinstance(output_ary, str):
            if output_ary != "new":
                raise ValueError(f"scan: output_ary must be a GPUArray, None or 'new', got "
                                 f"{output_ary!r}")
            from ._placement import empty

            # PyCUDA's "new": a new array, in the allocator's memory when one is given.
            output_ary = empty(input_ary.shape, self._dtype,
                               allocator=allocator if allocator is not None
                               else input_ary.allocator)
        return self._kernel(input_ary, output_ary, stream)


class InclusiveScanKernel(_Scan):
    """out[i] = in[0] op ... op in[i]."""

    def __init__(self, dtype: Any, scan_expr: str, neutral: str | None = None,
                 name_prefix: str = "scan", options: Any = None, preamble: str = "",
                 devices: Any = None) -> None:
        super().__init__(dtype, scan_expr, neutral, name_prefix, preamble, False, options)


class ExclusiveScanKernel(_Scan):
    """out[i] = neutral op in[0] op ... op in[i-1]."""

    def __init__(self, dtype: Any, scan_expr: str, neutral: str,
                 name_prefix: str = "scan", options: Any = None, preamble: str = "",
                 devices: Any = None) -> None:
        super().__init__(dtype, scan_expr, neutral, name_prefix, preamble, True, options)
