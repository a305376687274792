"""Numba-CUDA's API on cudakit: `from cudakit import cuda` runs programs
written for `from numba import cuda`.

@cuda.jit functions are translated from their Python source to CUDA C++,
compiled by cudakit's core (NVRTC on a GPU, the host compiler on the CPU
backend) and launched through its checked launch. NUMBA_ENABLE_CUDASIM=1 is
honoured as CUDAKIT_BACKEND=cpu: the same translated kernels run on the CPU.
"""

from __future__ import annotations

import os

if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    os.environ.setdefault("CUDAKIT_BACKEND", "cpu")

from . import config, random  # noqa: E402,F401
from .api import (  # noqa: E402,F401
    Event, Stream, activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, blockIdx, cg,
    close, const, current_context, fp16, declare_device, default_stream, detect, event,
    event_elapsed_time, external_stream, get_current_device, gpus, grid, gridDim, gridsize,
    is_available, is_bfloat16_supported,
    is_simulator, jit, lanemask_lt, laneid, legacy_default_stream, list_devices, local,
    managed_array,
    mapped, mapped_array, per_thread_default_stream, pinned, pinned_array, profile_start,
    profile_stop, select_device, shared, shfl_down_sync, shfl_sync, shfl_up_sync,
    shfl_xor_sync, stream, synchronize, syncthreads, syncthreads_and, syncthreads_count,
    syncthreads_or, syncwarp, threadfence, threadfence_block, threadfence_system, threadIdx,
    void, warpsize)
from .api import (  # noqa: E402,F401
    brev, cbrt, clz, eq_sync, ffs, fma, mapped_array_like, match_all_sync, match_any_sync,
    nanosleep, pinned_array_like, popc, selp)
from .device_array import (  # noqa: E402,F401
    DeviceNDArray, device_array, device_array_like, is_cuda_array, to_device)
from .dispatcher import Dispatcher, NumbaPerformanceWarning  # noqa: E402,F401
from .ipc import open_ipc_array  # noqa: E402,F401
from .reduction import Reduce, reduce  # noqa: E402,F401
from . import types  # noqa: E402,F401
from .translate.errors import TranslationError, TypingError, UnsupportedError  # noqa: E402,F401
from .translate.types import (  # noqa: E402,F401
    boolean, complex64, complex128, float16, float32, float64, int8, int16, int32, int64, intp,
    uint8, uint16, uint32, uint64)
from .types import (  # noqa: E402,F401
    bool_, byte, char, double, int_, intc, long_, longlong, short, size_t, ssize_t, uchar, uint,
    uintc, uintp, ulong, ulonglong, ushort)
if hasattr(types, "float_"):  # NumPy 1 only, as numba-cuda has it
    float_ = types.float_

b1 = boolean
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64


def as_cuda_array(obj: object) -> DeviceNDArray:
    """A DeviceNDArray viewing another library's device array (no copy)."""
    from .device_array import is_cuda_array
    if not is_cuda_array(obj):
        raise TypeError(f"as_cuda_array: a {type(obj).__name__} is not a device array (it has no "
                        "__cuda_array_interface__); copy host data with cuda.to_device(...)")
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj)  # type: ignore


def from_cuda_array_interface(desc: dict, owner: object = None, sync: bool = True
                              ) -> DeviceNDArray:
    """A view of the memory `desc` describes; with `sync` (and
    config.CUDA_ARRAY_INTERFACE_SYNC) the stream it names is waited for first,
    as the protocol asks of a consumer."""
    from .device_array import from_cuda_array_interface as convert, wait_for_interface_stream
    if sync:
        wait_for_interface_stream(desc)
    return convert(desc, owner)
from .vectorize import vectorize  # noqa: E402,F401
from . import core  # noqa: E402,F401
from .args import In, InOut, Out  # noqa: E402,F401
from .api import ldca, ldcg, ldcs, ldcv, ldlu, stcg, stcs, stwb, stwt  # noqa: E402,F401
from . import vector_types as _vector_types  # noqa: E402

globals().update(_vector_types.exported())  # cuda.float32x4, cuda.float4, ...
from .linked_code import (LTOIR, Archive, CUSource, Cubin, Fatbin,  # noqa: E402,F401
                          LinkableCode, Object, PTXSource)
from .compiler import (  # noqa: E402,F401
    compile, compile_all, compile_for_current_device, compile_ptx,
    compile_ptx_for_current_device)
from . import bf16, cudadrv, kernels, libdevice, np, typing  # noqa: E402,F401
from . import cgutils, cudaimpl, extending  # noqa: E402,F401
from .cudadrv import devicearray  # noqa: E402,F401

# numba-cuda's flag for "the CPU numba package is installed" (its CPU-side
# features: njit, typed containers); cudakit does not use it.
HAS_NUMBA = False
from .guvectorize import guvectorize  # noqa: E402,F401
