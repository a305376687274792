"""The host-side API of numba.cuda that programs use: jit, devices,
synchronize, streams, events and Numba's type names."""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from .. import _core
from .._pickling import refuse_pickle
from . import config
from .dispatcher import Dispatcher
from .foreign import ForeignFunction, check_link_paths
from .translate import types as t
from .translate.intrinsics import Intrinsic


class _Void:
    """`void` in signature strings: void(float32[:]) builds a signature."""

    def __call__(self, *args: t.Type) -> t.Signature:
        return t.Signature(t.none, tuple(args))

    def __repr__(self) -> str:
        return "none"

    def __eq__(self, other: object) -> bool:  # numba's void is types.none
        return isinstance(other, (_Void, t.NoneT))

    def __hash__(self) -> int:
        return hash(t.none)


void = _Void()
none = void
_SIGNATURE_NAMES: dict[str, Any] = {"void": void, "none": void, **t.SCALARS, **t.ALIASES,
                                    "int_": t.int64, "float": t.float64, "int": t.int64,
                                    "b1": t.boolean, "bool": t.boolean,
                                    "CPointer": t.CPointer}


def _signature(spec: Any) -> t.Signature:
    if isinstance(spec, t.Signature):
        return spec
    if isinstance(spec, str):
        try:
            value = eval(spec, {"__builtins__": {}}, dict(_SIGNATURE_NAMES))  # noqa: S307
        except Exception as error:
            raise TypeError(f"cannot read the signature {spec!r}: {error}") from None
        if isinstance(value, t.Signature):
            return value
        if isinstance(value, tuple):
            return t.Signature(None, value)
        raise TypeError(f"{spec!r} is not a signature (write e.g. 'void(float32[:], int32)')")
    if isinstance(spec, tuple):
        return t.Signature(None, spec)
    raise TypeError(f"not a signature: {spec!r}")


_JIT_OPTIONS = {"device", "debug", "lineinfo", "fastmath", "cache", "max_registers", "opt",
                "inline", "link", "boundscheck", "forceinline", "lto", "extensions",
                "launch_bounds", "shared_memory_carveout"}


def launch_bounds_option(value: Any) -> tuple[int, ...] | None:
    """cuda.jit(launch_bounds=...): max threads per block, or a tuple of it,
    the min blocks per multiprocessor and the max blocks per cluster."""
    if value is None:
        return None
    bounds = (value,) if isinstance(value, int) else tuple(value)
    if len(bounds) > 3:
        raise ValueError(f"Got {len(bounds)} launch bounds: {value}. A maximum of three are "
                         "supported: (max_threads_per_block, min_blocks_per_sm, "
                         "max_blocks_per_cluster)")
    if not bounds or not all(isinstance(b, int) and not isinstance(b, bool) and b > 0
                             for b in bounds):
        raise ValueError("launch_bounds must be positive integers: a max threads per block, or "
                         "a tuple of 1 to 3 (max_threads_per_block, min_blocks_per_sm, "
                         f"max_blocks_per_cluster); got {value!r}")
    return bounds


_CARVEOUT_NAMES = {"default": -1, "maxl1": 0, "maxshared": 100}


def carveout_percent(value: Any) -> int:
    """cuda.jit(shared_memory_carveout=...) as the percent of L1 / shared
    memory preferred as shared memory (-1: the device's default)."""
    if isinstance(value, str):
        if value.lower() not in _CARVEOUT_NAMES:
            raise ValueError(f"Invalid carveout value: {value}. Must be -1 to 100 or one of "
                             f"{list(_CARVEOUT_NAMES)}")
        return _CARVEOUT_NAMES[value.lower()]
    if isinstance(value, int) and not isinstance(value, bool):
        if not -1 <= value <= 100:
            raise ValueError(f"Carveout must be between -1 and 100, got {value}")
        return int(value)
    raise TypeError(f"shared_memory_carveout must be str or int, got {type(value).__name__}")


def jit(func_or_sig: Any = None, device: bool = False, **options: Any) -> Any:
    """@cuda.jit, @cuda.jit('void(float32[:])'), @cuda.jit(device=True)."""
    unknown = set(options) - _JIT_OPTIONS
    if unknown:
        raise TypeError(f"cuda.jit: unknown option(s) {', '.join(sorted(unknown))}")
    if options.get("shared_memory_carveout") is not None:
        options["shared_memory_carveout"] = carveout_percent(options["shared_memory_carveout"])
    else:
        options.pop("shared_memory_carveout", None)
    if "launch_bounds" in options:
        options["launch_bounds"] = launch_bounds_option(options["launch_bounds"])
        if options["launch_bounds"] is None:
            del options["launch_bounds"]
    if options.get("link"):
        options["link"] = check_link_paths(options["link"], "cuda.jit(link=...)")
    if options.get("debug") is None and config.CUDA_DEBUGINFO_DEFAULT:
        options["debug"] = True
    if options.get("opt") is None and config.OPT == 0:
        options["opt"] = False
    if options.get("debug") and options.get("opt", True):
        from .core.errors import warn_debug_with_opt
        warn_debug_with_opt(stacklevel=2)
    if callable(func_or_sig) and not isinstance(func_or_sig, (str, t.Signature, _Void)):
        return Dispatcher(func_or_sig, None, device, **options)
    signatures = None
    if func_or_sig is not None:
        specs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
        signatures = [_signature(s) for s in specs]

    def decorate(func: Callable[..., Any]) -> Dispatcher:
        dispatcher = Dispatcher(func, signatures, device, **options)
        # One signature (not a list) fixes the argument types, as specialize() does.
        dispatcher._specialized = not isinstance(func_or_sig, list)
        return dispatcher

    return decorate


def declare_device(name: str, sig: Any, link: Any = None, use_cooperative: bool = False,
                   abi: str = "numba") -> ForeignFunction:
    """A device function written in CUDA C/C++, defined in the .cu file(s) or
    CUSource texts `link` or in one given to @cuda.jit(link=...). Numba's ABI
    (the default): `extern "C" __device__ int name(T* result, args...)`;
    abi="c": `extern "C" __device__ T name(args...)` (T may be void)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"cuda.declare_device: {name!r} is not a C function name")
    if abi not in ("numba", "c"):
        raise ValueError(f"cuda.declare_device({name!r}): abi must be 'numba' or 'c', got "
                         f"{abi!r}")
    signature = _signature(sig)
    if signature.return_type == t.none:
        pass  # returns nothing (Numba's ABI still passes the result slot)
    elif signature.return_type is None or not isinstance(signature.return_type, t.Scalar):
        raise TypeError(f"cuda.declare_device({name!r}): the return type must be a number "
                        f"type or void, as in 'float32(float32, float32)' (got {sig!r}; "
                        "Return type: a number, or void)")
    for arg in signature.args:
        # Arrays may be declared (Numba's own test does); a call passing one
        # is refused with the way to pass its data (ffi.from_buffer).
        if not isinstance(arg, (t.Scalar, t.PointerT, t.ArrayT)):
            raise TypeError(f"cuda.declare_device({name!r}): the arguments are numbers, "
                            f"CPointer(type)s or arrays, got {arg}")
    return ForeignFunction(name, signature, check_link_paths(link, "cuda.declare_device"), abi)


# ---- devices -----------------------------------------------------------------------------

class _Device:
    """One device (numba.cuda's Device): `with cuda.gpus[i]:` makes it current
    for the block and restores the previous one after."""

    def __init__(self, ordinal: int) -> None:
        self.id = ordinal
        self._previous: list[int] = []

    def _info(self) -> tuple[str, int, int, str]:
        return _core.jit_device_info(self.id)

    @property
    def name(self) -> bytes:
        return self._info()[0].encode()

    @property
    def compute_capability(self) -> tuple[int, int]:
        _, major, minor, _ = self._info()
        return (major, minor)

    @property
    def pci_bus_id(self) -> str:
        return self._info()[3]

    def __getattr__(self, name: str) -> int:
        """The device's attributes by their CUDA names, as Numba's Device has
        them (`MULTIPROCESSOR_COUNT`, `MAX_THREADS_PER_BLOCK`, `WARP_SIZE`, ...)."""
        from .. import driver
        attribute = getattr(driver.device_attribute, name, None) if name.isupper() else None
        if attribute is None:
            raise AttributeError(f"a device has no attribute {name!r}")
        return int(driver.Device(self.id).get_attribute(attribute))

    def __repr__(self) -> str:
        return f"<Managed Device {self.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __enter__(self) -> "_Device":
        self._previous.append(_core.jit_current_device())
        _core.jit_select_device(self.id)
        return self

    def __exit__(self, *exc: Any) -> None:
        _core.jit_select_device(self._previous.pop())

    def select(self) -> "_Device":
        return select_device(self.id)

    def reset(self) -> None:
        synchronize()


def _device_ordinal(index: Any, who: str) -> int:
    """`index` as a device number in range; a clear error otherwise."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"{who}: a device number is an int, got {type(index).__name__} "
                        f"{index!r}")
    count = _core.jit_device_count()
    ordinal = int(index)
    if not 0 <= ordinal < count:
        what = ("the CPU backend has 1 device" if _core.jit_backend() == "cpu" else
                f"this machine has {count} device{'s' if count != 1 else ''}")
        numbers = "0" if count == 1 else f"0 to {count - 1}"
        raise ValueError(f"{who}: there is no device {ordinal}; {what} (numbered {numbers}); "
                         "cuda.list_devices() lists them")
    return ordinal


class _Gpus:
    """cuda.gpus: the devices (the CPU backend's one device without a GPU);
    len(), indexing, iteration, and `with cuda.gpus[i]:`."""

    def __len__(self) -> int:
        return _core.jit_device_count()

    def __getitem__(self, index: int) -> _Device:
        count = len(self)
        if isinstance(index, (int, np.integer)) and -count <= index < 0:
            index = count + int(index)  # a list's negative indices
        try:
            return _Device(_device_ordinal(index, f"cuda.gpus[{index!r}]"))
        except ValueError as error:
            raise IndexError(str(error)) from None

    def __iter__(self) -> Any:
        return iter([_Device(i) for i in range(len(self))])

    @property
    def current(self) -> _Device:
        return get_current_device()

    def __repr__(self) -> str:
        return "<Managed Device " + ">, <Managed Device ".join(
            str(i) for i in range(len(self))) + ">" if len(self) else "[]"

    def __str__(self) -> str:
        return repr(self)


gpus = _Gpus()


def list_devices() -> list[_Device]:
    """Every device (Numba's cuda.list_devices())."""
    return list(gpus)


def synchronize() -> None:
    """Waits for all work on the device."""
    _core.jit_synchronize()


def is_available() -> bool:
    try:
        return _core.jit_device_count() > 0
    except Exception:
        return False


def is_bfloat16_supported() -> bool:
    """bfloat16 in kernels (cuda.bf16): cudakit converts in software, so on
    every device and on the CPU backend (Numba needs compute capability 8.0)."""
    return True


def is_simulator() -> bool:
    return _core.jit_backend() == "cpu"


def detect() -> bool:
    count = _core.jit_device_count()
    print(f"Found {count} CUDA devices")
    for i in range(count):
        print(f"id {i}    {_core.jit_device_info(i)[0]}    [SUPPORTED]"
              + (" (cudakit CPU backend)" if _core.jit_backend() == "cpu" else ""))
    return count > 0


def select_device(ordinal: int) -> _Device:
    """Makes device `ordinal` current on this thread: later arrays, kernels
    and launches go to it (ValueError naming the devices for a bad number)."""
    number = _device_ordinal(ordinal, f"cuda.select_device({ordinal!r})")
    _core.jit_select_device(number)
    return _Device(number)


def get_current_device() -> _Device:
    return _Device(_core.jit_current_device())


def close() -> None:
    synchronize()


class _Context:
    __reduce_ex__ = refuse_pickle("a context belongs to the process that made it; use "
                                  "cuda.current_context() in the receiving process")

    def get_memory_info(self) -> tuple[int, int]:
        """(free, total) bytes of device memory."""
        from .. import driver
        return tuple(driver.mem_get_info())  # type: ignore[return-value]

    def synchronize(self) -> None:
        synchronize()

    def can_access_peer(self, peer_device: int) -> bool:
        """Whether the current device can access device `peer_device`'s memory
        directly (False for itself)."""
        from .. import driver
        current = driver.Device(_core.jit_current_device())
        return bool(current.can_access_peer(driver.Device(int(peer_device))))


    def get_ipc_handle(self, memory: Any) -> Any:
        """The IpcHandle of device memory (``array.gpu_data``), for another process."""
        from .ipc import memory_ipc_handle
        return memory_ipc_handle(memory)


def current_context() -> _Context:
    return _Context()


# ---- streams and events ---------------------------------------------------------------------

class Stream:
    """A stream (cuda.stream()) or the default one (handle 0). Kernels
    launched on it run in its order; copies of device arrays are made on the
    default stream, which waits for other (blocking) streams."""

    def __init__(self, handle: int = 0, native: Any = None, external: bool = False) -> None:
        self.handle = handle
        self._native = native  # a cudakit.driver.Stream that owns the handle
        self.external = external  # another library's stream (external_stream)

    def synchronize(self) -> None:
        if self._native is not None:
            self._native.synchronize()
            _core.jit_check_fault()  # a failed check of a kernel it ran (a GPU)
        else:
            synchronize()

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.synchronize()

    def auto_synchronize(self) -> "Stream":
        return self

    __reduce_ex__ = refuse_pickle(
        "a stream belongs to the context of the process that made it; make one with "
        "cuda.stream() in the receiving process (device arrays pickle as their values)")

    def __repr__(self) -> str:
        return f"<cudakit.cuda.Stream {self.handle:#x}>"


def stream() -> Stream:
    """A new stream (cudakit.driver.Stream underneath)."""
    from .. import driver
    native = driver.Stream()
    return Stream(int(native.handle), native)


def external_stream(ptr: int) -> Stream:
    """Another library's stream by its handle (cudaStream_t as an int), as
    Numba's: kernels launched on it run in its order; cudakit does not own or
    destroy it."""
    try:
        handle = int(ptr)
    except (TypeError, ValueError):
        raise TypeError(f"external_stream takes a stream handle (an int), got "
                        f"{type(ptr).__name__}") from None
    return Stream(handle, external=True)


def default_stream() -> Stream:
    return Stream(0)


legacy_default_stream = default_stream
per_thread_default_stream = default_stream


class Event:
    """Event timing measured on the host after a synchronize (the launch
    path orders everything on the default stream)."""

    def __init__(self, timing: bool = True) -> None:
        self._time: float | None = None

    def record(self, stream: Any = 0) -> None:
        synchronize()
        self._time = time.perf_counter()

    def synchronize(self) -> None:
        synchronize()

    def wait(self, stream: Any = 0) -> None:
        synchronize()

    def query(self) -> bool:
        return True

    def elapsed_time(self, end: "Event") -> float:
        return event_elapsed_time(self, end)

    __reduce_ex__ = refuse_pickle("an event belongs to the context of the process that made "
                                  "it; record one with cuda.event() in the receiving process")


def event(timing: bool = True) -> Event:
    return Event(timing)


def event_elapsed_time(start: Event, end: Event) -> float:
    if start._time is None or end._time is None:
        raise RuntimeError("record() both events before asking for the time between them")
    return (end._time - start._time) * 1000.0


def profile_start() -> None:
    pass


def profile_stop() -> None:
    pass


# ---- host memory ------------------------------------------------------------------------------

from .._layout import memory_order  # noqa: E402
from .device_array import contiguous_strides_like  # noqa: E402
from .mapped_memory import mapped_array, pinned_array  # noqa: E402,F401

managed_array = mapped_array


def pinned_array_like(ary: Any) -> np.ndarray:
    """An empty host array with `ary`'s shape and dtype, contiguous, its axes
    in `ary`'s order (a view's too)."""
    return pinned_array(ary.shape, ary.dtype, strides=contiguous_strides_like(ary),
                        order=memory_order(ary))


def mapped_array_like(ary: Any, stream: Any = 0, portable: bool = False,
                      wc: bool = False) -> np.ndarray:
    """An empty mapped host array with `ary`'s shape and dtype, contiguous,
    its axes in `ary`'s order (a view's too)."""
    return mapped_array(ary.shape, ary.dtype, strides=contiguous_strides_like(ary),
                        order=memory_order(ary), stream=stream, portable=portable, wc=wc)


class pinned:  # noqa: N801 (Numba's name)
    """`with cuda.pinned(a):` (host memory stays as it is)."""

    def __init__(self, *arrays: Any) -> None:
        pass

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        pass


mapped = pinned

# ---- kernel-only names (their meaning is in translate/intrinsics.py) ------------------------------
threadIdx = Intrinsic("threadIdx")  # noqa: N816
blockIdx = Intrinsic("blockIdx")  # noqa: N816
blockDim = Intrinsic("blockDim")  # noqa: N816
gridDim = Intrinsic("gridDim")  # noqa: N816
laneid = Intrinsic("laneid")
# Loads and stores with a cache policy: cuda.ldcg(array, i), cuda.stcs(array, i, v).
ldca, ldcg, ldcs, ldlu, ldcv = (Intrinsic(f"ld{m}") for m in ("ca", "cg", "cs", "lu", "cv"))
stcg, stcs, stwb, stwt = (Intrinsic(f"st{m}") for m in ("cg", "cs", "wb", "wt"))
warpsize = Intrinsic("warpsize")
grid = Intrinsic("grid")
gridsize = Intrinsic("gridsize")
shared = Intrinsic("shared")
local = Intrinsic("local")
const = Intrinsic("const")
atomic = Intrinsic("atomic")
syncthreads = Intrinsic("syncthreads")
cg = Intrinsic("cg")  # cooperative groups: cuda.cg.this_grid()
fp16 = Intrinsic("fp16")  # half-precision intrinsics: cuda.fp16.hadd(a, b) ...
syncthreads_count = Intrinsic("syncthreads_count")
syncthreads_and = Intrinsic("syncthreads_and")
syncthreads_or = Intrinsic("syncthreads_or")
syncwarp = Intrinsic("syncwarp")
threadfence = Intrinsic("threadfence")
threadfence_block = Intrinsic("threadfence_block")
threadfence_system = Intrinsic("threadfence_system")
shfl_sync = Intrinsic("shfl_sync")
shfl_up_sync = Intrinsic("shfl_up_sync")
shfl_down_sync = Intrinsic("shfl_down_sync")
shfl_xor_sync = Intrinsic("shfl_xor_sync")
ballot_sync = Intrinsic("ballot_sync")
all_sync = Intrinsic("all_sync")
any_sync = Intrinsic("any_sync")
activemask = Intrinsic("activemask")
lanemask_lt = Intrinsic("lanemask_lt")
eq_sync = Intrinsic("eq_sync")
match_any_sync = Intrinsic("match_any_sync")
match_all_sync = Intrinsic("match_all_sync")
popc = Intrinsic("popc")
brev = Intrinsic("brev")
clz = Intrinsic("clz")
ffs = Intrinsic("ffs")
fma = Intrinsic("fma")
cbrt = Intrinsic("cbrt")
selp = Intrinsic("selp")
nanosleep = Intrinsic("nanosleep")
