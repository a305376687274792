"""CUDA graphs: capture a loop of launches once, replay it for a fraction of
the launch cost.

``with graphs.capture() as g:`` records the work the block queues (PyCUDA-style
kernel calls and copies, GPUArray operations, ElementwiseKernels, ``@cuda.jit``
launches) without running it; ``g.replay()`` runs it, in order, with one
launch. ``graphed(fn)`` makes a function replay from a graph after its first
calls. Both backends capture: on the CPU backend the recorded operations are
replayed on the stream's thread, so graph code is tested without a GPU.

Inside a capture, work that this thread queues on the default stream goes to
the capturing stream; work queued on other streams runs as usual. What would
wait for the capture (synchronizing, reading results to the host, synchronous
copies) raises at once, naming the call, and leaves the capture open and
unchanged. Memory freed inside the block is kept by the graph; memory the
graph uses that is freed afterwards makes ``replay`` raise instead of writing
into memory handed to someone else. See docs/guide/graphs.md.
"""

from __future__ import annotations

import functools
import numbers
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

from . import _core

__all__ = ["capture", "CapturedGraph", "graphed", "NotReplayableError"]

_MODES = ("global", "thread_local", "relaxed")


class NotReplayableError(RuntimeError):
    """A function given to ``graphed`` does something a graph cannot replay."""


class CapturedGraph:
    """The work recorded by a ``capture`` block; replayable once the block ends."""

    __slots__ = ("_stream", "_graph", "_exec", "_owns_stream")

    def __init__(self, stream: Any, owns_stream: bool) -> None:
        self._stream = stream
        self._owns_stream = owns_stream
        self._graph = None
        self._exec = None

    @property
    def stream(self) -> Any:
        """The stream the work was captured on."""
        return self._stream

    @property
    def node_count(self) -> int:
        """Operations recorded (kernels, copies, fills, events, host functions)."""
        return self._ready("node_count")[0].node_count

    def replay(self, stream: Any = None) -> None:
        """Queues the recorded work on `stream` (None: the default stream)."""
        exec_ = self._exec
        if exec_ is None:
            self._ready("replay")
        exec_.launch(stream)

    def upload(self, stream: Any = None) -> None:
        """Prepares the device for the first replay (cuGraphUpload)."""
        self._ready("upload")[1].upload(stream)

    def update(self, other: "CapturedGraph") -> bool:
        """Takes `other`'s parameters (kernel arguments, addresses) when it
        recorded the same operations in the same order; returns False and
        stays as it was when it did not."""
        if not isinstance(other, CapturedGraph):
            raise TypeError(f"update() takes a CapturedGraph, not {type(other).__name__}")
        graph, exec_ = self._ready("update")
        other_graph = other._ready("update")[0]
        if not exec_.update(other_graph):
            return False
        self._graph = other_graph
        return True

    def _ready(self, what: str) -> tuple[Any, Any]:
        if self._exec is None:
            raise RuntimeError(
                f"CapturedGraph.{what}: the capture has not ended (use the graph after its "
                "`with graphs.capture()` block), or it failed")
        return self._graph, self._exec

    def _finish(self, graph: Any) -> None:
        self._graph = graph
        self._exec = graph.instantiate()

    def __repr__(self) -> str:
        state = f"{self._graph.node_count} operations" if self._exec is not None else "capturing"
        return f"<cudakit.graphs.CapturedGraph {state}>"


class capture:
    """``with capture(stream=None, mode="global") as g:`` records the block's
    work into `g` without running it.

    stream: the stream to capture on; None makes a new one (the legacy default
    stream cannot be captured). The capturing thread's default-stream work is
    captured too. mode: "global" (default: calls that may synchronize are
    refused on every thread while the capture is open), "thread_local" (on
    this thread) or "relaxed".
    """

    def __init__(self, stream: Any = None, mode: str = "global") -> None:
        if mode not in _MODES:
            raise ValueError(f"capture(mode={mode!r}): mode must be one of {', '.join(_MODES)}")
        if stream is not None and not isinstance(stream, _core.Stream):
            raise TypeError(
                "capture(stream=...) takes a cudakit.driver.Stream or None, not "
                f"{type(stream).__name__}")
        owns = stream is None
        if owns:
            stream = _core.Stream(1)  # non-blocking, as CuPy and PyTorch capture
        self._mode = mode
        self._graph = CapturedGraph(stream, owns)

    def __enter__(self) -> CapturedGraph:
        self._graph.stream.begin_capture(self._mode)
        return self._graph

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        try:
            graph = self._graph.stream.end_capture()
        except Exception:
            if exc_type is not None:
                return False  # the block's own error is the one to see
            raise
        if exc_type is None:
            self._graph._finish(graph)
        return False


# ---- graphed ---------------------------------------------------------------

_SCALARS = (numbers.Number, np.generic, str, bytes, type(None))


def _device_ndarray_key(value: Any) -> Any:
    return ("array", value._array.address, value.shape, value.dtype, value._strides_el)


def _gpuarray_key(value: Any) -> Any:
    return ("array", int(value.gpudata), value.shape, value.dtype, value.strides)


def _scalar_key(value: Any) -> Any:
    return ("scalar", type(value), value)


# The common argument types, keyed without the general path's questions.
_FAST_KEYS: dict[type, Callable[[Any], Any]] = {
    _core.GPUArray: _gpuarray_key, int: _scalar_key, float: _scalar_key, bool: _scalar_key}


def _fast_keys() -> dict[type, Callable[[Any], Any]]:
    from .cuda.device_array import DeviceNDArray  # (imports cudakit.cuda only when used)
    _FAST_KEYS.setdefault(DeviceNDArray, _device_ndarray_key)
    return _FAST_KEYS


def _arg_key(value: Any, name: str, position: Any) -> Any:
    """What a call's argument contributes to the graph's key: arrays by
    address, shape, dtype and strides (the graph bakes their addresses in),
    numbers by type and value, tuples element by element."""
    fast = _FAST_KEYS.get(type(value))
    if fast is not None:
        return fast(value)
    return _general_arg_key(value, f"graphed({name}): argument {position}")


def _general_arg_key(value: Any, where: str) -> Any:
    if isinstance(value, np.ndarray):
        raise NotReplayableError(
            f"{where} is a host (numpy) array: a graph cannot replay its copy to and from "
            "the device; pass a device array (gpuarray.to_gpu, cuda.to_device)")
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return ("array", interface["data"][0], tuple(interface["shape"]), interface["typestr"],
                tuple(interface["strides"]) if interface.get("strides") else None)
    if isinstance(value, _SCALARS):
        return ("scalar", type(value), value)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_general_arg_key(v, f"{where}[{i}]")
                                   for i, v in enumerate(value)))
    if isinstance(value, _core.GPUArray):
        return ("array", int(value.gpudata), value.shape, value.dtype.str, value.strides)
    if isinstance(value, _core.DeviceAllocation):
        return ("allocation", int(value))
    return ("object", id(value))


class _Graphed:
    """What ``graphed(fn)`` returns."""

    def __init__(self, fn: Callable[..., Any], max_graphs: int) -> None:
        functools.update_wrapper(self, fn)
        _fast_keys()
        self._fn = fn
        self._name = getattr(fn, "__name__", "function")
        self._max_graphs = max_graphs
        # key -> ("warm", None) after the first call, ("graph", (CapturedGraph, result, args))
        self._entries: OrderedDict[Any, tuple[str, Any]] = OrderedDict()

    @property
    def graph_count(self) -> int:
        """Graphs captured so far (one per distinct argument key)."""
        return sum(1 for kind, _ in self._entries.values() if kind == "graph")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = self._name
        key = (tuple([_arg_key(a, name, i) for i, a in enumerate(args)]),
               tuple(sorted((k, _arg_key(v, name, k)) for k, v in kwargs.items()))
               if kwargs else ())
        entry = self._entries.get(key)
        if entry is None:
            # First call: run it directly, so compiles, allocations and lazy
            # set-up happen outside any capture and this call's effects are
            # exactly one call's.
            result = self._fn(*args, **kwargs)
            self._remember(key, ("warm", None))
            return result
        kind, value = entry
        self._entries.move_to_end(key)
        if kind == "graph":
            graph, result, _ = value
            graph.replay()
            return result
        # Second call with these arguments: capture (nothing runs), then replay once.
        try:
            with capture() as graph:
                result = self._fn(*args, **kwargs)
        except _core.Error as e:
            raise NotReplayableError(
                f"graphed({name}) cannot replay this function from a graph: {e}\n"
                "A graphed function may only queue device work: no synchronize(), no reads "
                "to the host (.get(), copy_to_host, float(x)), no host arrays.") from e
        _check_result(result, name)
        # The arguments are kept: the graph uses their memory.
        self._remember(key, ("graph", (graph, result, (args, kwargs))))
        graph.replay()
        return result

    def _remember(self, key: Any, entry: tuple[str, Any]) -> None:
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_graphs:
            self._entries.popitem(last=False)


def _check_result(result: Any, name: str) -> None:
    values = result if isinstance(result, (tuple, list)) else (result,)
    for v in values:
        if isinstance(v, np.ndarray) or (isinstance(v, numbers.Number)
                                         and not isinstance(v, bool)):
            raise NotReplayableError(
                f"graphed({name}) returned a host value ({type(v).__name__}): it was computed "
                "while capturing, so a replay could not recompute it; return device arrays")


def graphed(fn: Callable[..., Any] | None = None, *, max_graphs: int = 8) -> Any:
    """Wraps `fn` so that its calls replay from a CUDA graph.

    The first call with a given argument key runs `fn` directly (compiling
    and allocating what it needs); the second captures it into a graph and
    replays it; later calls only replay. The key is each array argument's
    address, shape, dtype and strides and each other argument's value: a
    graph replays the very buffers it captured. Results are the arrays the
    captured call returned, refreshed by each replay (the same objects every
    time). Up to `max_graphs` keys are kept (least recently used dropped).
    `fn` may only queue device work: synchronizing or reading results to the
    host inside it raises NotReplayableError. Usable as ``@graphed`` or
    ``@graphed(max_graphs=...)``.
    """
    if max_graphs < 1:
        raise ValueError(f"graphed(max_graphs={max_graphs}): keep at least 1 graph")
    if fn is None:
        return lambda f: graphed(f, max_graphs=max_graphs)
    if not callable(fn):
        raise TypeError(f"graphed() takes a function, not {type(fn).__name__}")
    return _Graphed(fn, max_graphs)
