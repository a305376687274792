"""Collectives across devices and processes, NCCL's, on cudakit's arrays.

One process per device (on one machine or several)::

    from cudakit import distributed as dist
    uid = dist.get_unique_id()                  # in one process; send the bytes to the others
    comm = dist.Communicator(nranks, uid, rank)  # each process, on its current device
    comm.all_reduce(grad)                       # in place, summed over the ranks

One process, several devices: ``Communicator.local(devices)`` gives one rank
per device; its collectives take one array per device, as a list, and issue
them together (NCCL's group call)::

    ranks = dist.Communicator.local([0, 1])
    ranks.all_reduce([grad0, grad1], op="avg")

Arrays are cudakit GPUArrays, ``cudakit.cuda`` device arrays, or any array
with ``__cuda_array_interface__`` or DLPack (CuPy, PyTorch); they must be
C-contiguous and live on the rank's device. A numpy array is refused (host
memory: copy it to the device first). The collectives work in place unless
``out=`` is given; those whose result has another size (``all_gather``,
``reduce_scatter``) and ``all_to_all`` allocate their result on the rank's
device when no ``out`` is given. Every call is queued on ``stream`` (default:
the stream of the send array's pending work) and returns at once; read the
result after synchronizing, as with any queued work.

On a GPU the collectives are NCCL's (libnccl, loaded on first use:
``NcclNotFound`` says where it looked); on the CPU backend the same calls run
between virtual devices (``CUDAKIT_CPU_DEVICES=N``) and between processes
through a hub in the process that made the id. Ranks that disagree (counts,
dtypes, ops, roots) or never arrive are a ``CommunicatorError`` naming them,
raised when the stream is synchronized, after the communicator's ``timeout``
(seconds; ``CUDAKIT_COMM_TIMEOUT``, else 60); on a GPU, a collective not done
within it aborts the communicator (every later call on it raises too: make a
new one). Guide: docs/guide/multi-gpu.md.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

import numpy as np

from . import _core
from ._core import GPUArray

__all__ = ["get_unique_id", "Communicator", "LocalCommunicator", "group_start", "group_end",
           "group", "CommunicatorError", "NcclNotFound", "OPS"]

CommunicatorError = _core.CommunicatorError
NcclNotFound = _core.NcclNotFound

# NCCL's reduction ops.
OPS = ("sum", "prod", "max", "min", "avg")


def get_unique_id(backend: str | None = None) -> bytes:
    """A new communicator id: 128 bytes every rank passes to Communicator
    (NCCL's ncclGetUniqueId). On the CPU backend the calling process then
    hosts the ranks' hub, so it must live until the ranks are done."""
    return _core.get_unique_id(backend)


def group_start(backend: str | None = None) -> None:
    """Starts a group of collectives (per thread, nestable): they are issued
    together at the outer group_end(), as NCCL's ncclGroupStart."""
    _core.Communicator.group_start(backend)


def group_end(backend: str | None = None) -> None:
    """Issues the collectives of the group."""
    _core.Communicator.group_end(backend)


@contextlib.contextmanager
def group(backend: str | None = None) -> Iterator[None]:
    """``with dist.group():`` a group_start() / group_end() pair."""
    group_start(backend)
    try:
        yield
    finally:
        group_end(backend)


def _on_device(ordinal: int) -> Any:
    """``with _on_device(i):`` device i current (``cuda.gpus[i]``'s scope)."""
    from .cuda import gpus

    return gpus[ordinal]


_DLPACK_CUDA_DEVICES = (2, 13)  # kDLCUDA, kDLCUDAManaged


def _device_array(obj: Any, use: str, role: str, ordinal: int) -> Any:
    """What a collective reads or writes for ``obj``, without a copy: a
    GPUArray, or the array a cudakit.cuda device array holds; another
    library's array (``__cuda_array_interface__``, DLPack) is viewed as a
    GPUArray on the rank's device (DLPack names its device, which is checked)."""
    array = getattr(obj, "_array", None)
    if isinstance(obj, GPUArray):
        array = obj
    elif isinstance(array, _core.JitArray):  # cudakit.cuda's device arrays
        pass
    elif isinstance(obj, np.ndarray):
        raise TypeError(f"{use}: the {role} array is a numpy array, in host memory; collectives "
                        "move device memory: copy it to the device first (gpuarray.to_gpu, "
                        "cuda.to_device)")
    elif hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__"):
        from .gpuarray import as_gpuarray

        if hasattr(obj, "__dlpack_device__"):
            kind, device = obj.__dlpack_device__()
            if int(kind) in _DLPACK_CUDA_DEVICES and int(device) != ordinal:
                raise ValueError(f"{use}: the {role} array is on device {int(device)}, but this "
                                 f"rank's device is {ordinal}: each rank's arrays must live on "
                                 "its communicator's device")
        with _on_device(ordinal):
            array = as_gpuarray(obj)
    else:
        raise TypeError(f"{use}: the {role} array must be a device array (a cudakit GPUArray or "
                        "device array, or an array with __cuda_array_interface__ or DLPack), "
                        f"not {type(obj).__name__}")
    contiguous = (array.c_contiguous if isinstance(array, _core.JitArray)
                  else array.flags.c_contiguous)
    if not contiguous:
        raise ValueError(f"{use}: the {role} array is not C-contiguous (shape {tuple(obj.shape)}, "
                         f"strides {tuple(obj.strides)}); collectives read and write whole "
                         "buffers: pass a contiguous copy (.copy())")
    return array


def _check_op(op: Any, use: str) -> str:
    if op not in OPS:
        raise ValueError(f"{use}: op must be one of {', '.join(map(repr, OPS))}, got {op!r}")
    return op


class Communicator:
    """One rank of a group of ``nranks`` ranks, each on one device (NCCL's
    ncclComm): joins rank ``rank`` on ``device`` (a device ordinal; None: the
    current device) and returns once every rank has joined, or raises
    CommunicatorError naming the absent ranks after ``timeout`` seconds."""

    def __init__(self, nranks: int, unique_id: bytes, rank: int, device: Any = None, *,
                 timeout: float | None = None) -> None:
        if not isinstance(unique_id, (bytes, bytearray)):
            raise TypeError("Communicator: unique_id must be the bytes get_unique_id() returned "
                            f"(in one process, sent to the others), not {type(unique_id).__name__}")
        self._comm = _core.Communicator.create(nranks, bytes(unique_id), rank, device, timeout)

    @classmethod
    def _of(cls, comm: Any) -> "Communicator":
        self = cls.__new__(cls)
        self._comm = comm
        return self

    @staticmethod
    def local(devices: Sequence[Any] | None = None, *,
              timeout: float | None = None) -> "LocalCommunicator":
        """One rank per device of this process (rank i on devices[i]; default:
        every device), whose collectives take one array per device."""
        if devices is None:
            devices = range(_core.jit_device_count())
        return LocalCommunicator(_core.Communicator.local(list(devices), timeout))

    @property
    def rank(self) -> int:
        return self._comm.rank

    @property
    def size(self) -> int:
        return self._comm.size

    @property
    def device(self) -> Any:
        return self._comm.device

    @property
    def timeout(self) -> float:
        """Seconds a collective waits for the other ranks."""
        return self._comm.timeout

    def __repr__(self) -> str:
        return f"<cudakit.distributed.Communicator rank {self.rank} of {self.size}>"

    def __reduce_ex__(self, protocol: int) -> Any:
        raise TypeError("a Communicator cannot be pickled: it is one rank's connection; send "
                        "the unique id (bytes) and create a Communicator in the other process")

    # ---- helpers ----------------------------------------------------------------------
    def _ordinal(self) -> int:
        return int(self._comm.device.ordinal)

    def _stream(self, stream: Any, array: Any) -> Any:
        if stream is not None or not isinstance(array, GPUArray):
            return stream  # None: the device's default stream
        return array.stream

    def _new(self, shape: tuple[int, ...], dtype: Any, like: Any) -> tuple[Any, Any]:
        """A new result on this rank's device, of the kind of array ``like``
        is (a cudakit.cuda device array for one, else a GPUArray), and the
        buffer the collective writes."""
        with _on_device(self._ordinal()):
            if isinstance(getattr(like, "_array", None), _core.JitArray):
                from .cuda import device_array

                result = device_array(shape, dtype)
                return result, result._array
            from .gpuarray import empty

            result = empty(shape, dtype)
            return result, result

    def _result(self, x: Any, send: Any, out: Any, use: str,
                shape: tuple[int, ...] | None = None) -> tuple[Any, Any]:
        """The array returned and the buffer written: ``out`` when given,
        else ``x`` itself (``shape`` None: in place) or a new array of
        ``shape``."""
        if out is not None:
            return out, _device_array(out, use, "out", self._ordinal())
        if shape is None:
            return x, send
        return self._new(shape, send.dtype, x)

    # ---- collectives ------------------------------------------------------------------
    def all_reduce(self, x: Any, out: Any = None, op: str = "sum", stream: Any = None) -> Any:
        """Every rank gets the reduction (``op``) of every rank's ``x``; in
        ``x`` itself unless ``out`` is given. Returns the result array."""
        send = _device_array(x, "all_reduce", "send", self._ordinal())
        result, recv = self._result(x, send, out, "all_reduce")
        self._comm.all_reduce(send, recv, None, None, _check_op(op, "all_reduce"),
                              self._stream(stream, send))
        return result

    def reduce(self, x: Any, out: Any = None, op: str = "sum", root: int = 0,
               stream: Any = None) -> Any:
        """The reduction of every rank's ``x`` lands on rank ``root`` (in ``x``
        unless ``out`` is given); the other ranks' ``out`` is left as it was."""
        send = _device_array(x, "reduce", "send", self._ordinal())
        result, recv = self._result(x, send, out, "reduce")
        self._comm.reduce(send, recv, None, None, _check_op(op, "reduce"), root,
                          self._stream(stream, send))
        return result

    def broadcast(self, x: Any, out: Any = None, root: int = 0, stream: Any = None) -> Any:
        """Rank ``root``'s ``x`` is copied to every rank's ``x`` (or ``out``)."""
        send = _device_array(x, "broadcast", "send", self._ordinal())
        result, recv = self._result(x, send, out, "broadcast")
        self._comm.broadcast(send, recv, None, None, root, self._stream(stream, send))
        return result

    def all_gather(self, x: Any, out: Any = None, stream: Any = None) -> Any:
        """Every rank gets every rank's ``x``, stacked: shape ``(size,) +
        x.shape``, rank r's at ``[r]`` (a new array unless ``out`` is given:
        ``size * x.size`` elements)."""
        send = _device_array(x, "all_gather", "send", self._ordinal())
        result, recv = self._result(x, send, out, "all_gather", (self.size, *send.shape))
        self._comm.all_gather(send, recv, None, None, self._stream(stream, send))
        return result

    def reduce_scatter(self, x: Any, out: Any = None, op: str = "sum",
                       stream: Any = None) -> Any:
        """Rank r gets the reduction of every rank's block r of ``x`` (``x``
        splits into ``size`` equal blocks along its first axis): a new array
        of shape ``(x.shape[0] // size,) + x.shape[1:]`` unless ``out`` is
        given."""
        send = _device_array(x, "reduce_scatter", "send", self._ordinal())
        shape = None
        if out is None:
            if not send.shape or send.shape[0] % self.size:
                raise ValueError(f"reduce_scatter: x of shape {send.shape} does not split into "
                                 f"{self.size} equal blocks along its first axis; pass out= "
                                 f"with x.size // {self.size} elements, or pad x")
            shape = (send.shape[0] // self.size, *send.shape[1:])
        result, recv = self._result(x, send, out, "reduce_scatter", shape)
        self._comm.reduce_scatter(send, recv, None, None, _check_op(op, "reduce_scatter"),
                                  self._stream(stream, send))
        return result

    def all_to_all(self, x: Any, out: Any = None, stream: Any = None) -> Any:
        """Block p of ``x`` (``size`` equal blocks) goes to rank p; block p of
        the result comes from rank p (a new array of x's shape unless ``out``
        is given)."""
        send = _device_array(x, "all_to_all", "send", self._ordinal())
        result, recv = self._result(x, send, out, "all_to_all", tuple(send.shape))
        self._comm.all_to_all(send, recv, None, None, self._stream(stream, send))
        return result

    def send(self, x: Any, peer: int, stream: Any = None) -> None:
        """Sends ``x`` to rank ``peer``, which receives it with recv()."""
        array = _device_array(x, "send", "send", self._ordinal())
        self._comm.send(array, None, None, peer, self._stream(stream, array))

    def synchronize(self) -> None:
        """Waits for the work queued on this rank's device (a CommunicatorError
        a collective met is raised here)."""
        with _on_device(self._ordinal()):
            _core.jit_synchronize()

    def recv(self, x: Any, peer: int, stream: Any = None) -> Any:
        """Receives into ``x`` what rank ``peer`` sends; returns ``x``."""
        array = _device_array(x, "recv", "recv", self._ordinal())
        self._comm.recv(array, None, None, peer, self._stream(stream, array))
        return x


def _per_rank(values: Any, count: int, use: str, what: str) -> list[Any]:
    if values is None:
        return [None] * count
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{use}: {what} must be a list with one entry per device ({count}), "
                        f"not {type(values).__name__}")
    if len(values) != count:
        raise ValueError(f"{use}: {what} has {len(values)} entries; this communicator has "
                         f"{count} ranks (one entry per device, in rank order)")
    return list(values)


class LocalCommunicator(Sequence[Communicator]):
    """The ranks of ``Communicator.local(devices)``, one per device of this
    process: ``comms[i]`` is rank i; its collectives take one array per rank,
    as a list in rank order, and issue them in one group call."""

    def __init__(self, ranks: Sequence[Any]) -> None:
        self._ranks = [Communicator._of(r) for r in ranks]

    def __len__(self) -> int:
        return len(self._ranks)

    def __getitem__(self, index: Any) -> Any:
        return self._ranks[index]

    def __repr__(self) -> str:
        devices = [int(r.device.ordinal) for r in self._ranks]
        return f"<cudakit.distributed.LocalCommunicator devices {devices}>"

    def _each(self, use: str, method: str, xs: Any, out: Any, streams: Any,
              **kwargs: Any) -> list[Any]:
        count = len(self._ranks)
        xs = _per_rank(xs, count, use, "the arrays")
        outs = _per_rank(out, count, use, "out")
        streams = _per_rank(streams, count, use, "streams")
        results = []
        with group():
            for rank, x, o, s in zip(self._ranks, xs, outs, streams):
                results.append(getattr(rank, method)(x, out=o, stream=s, **kwargs))
        return results

    def all_reduce(self, xs: Sequence[Any], out: Sequence[Any] | None = None, op: str = "sum",
                   streams: Sequence[Any] | None = None) -> list[Any]:
        return self._each("all_reduce", "all_reduce", xs, out, streams, op=op)

    def reduce(self, xs: Sequence[Any], out: Sequence[Any] | None = None, op: str = "sum",
               root: int = 0, streams: Sequence[Any] | None = None) -> list[Any]:
        return self._each("reduce", "reduce", xs, out, streams, op=op, root=root)

    def broadcast(self, xs: Sequence[Any], out: Sequence[Any] | None = None, root: int = 0,
                  streams: Sequence[Any] | None = None) -> list[Any]:
        return self._each("broadcast", "broadcast", xs, out, streams, root=root)

    def all_gather(self, xs: Sequence[Any], out: Sequence[Any] | None = None,
                   streams: Sequence[Any] | None = None) -> list[Any]:
        return self._each("all_gather", "all_gather", xs, out, streams)

    def reduce_scatter(self, xs: Sequence[Any], out: Sequence[Any] | None = None,
                       op: str = "sum", streams: Sequence[Any] | None = None) -> list[Any]:
        return self._each("reduce_scatter", "reduce_scatter", xs, out, streams, op=op)

    def all_to_all(self, xs: Sequence[Any], out: Sequence[Any] | None = None,
                   streams: Sequence[Any] | None = None) -> list[Any]:
        return self._each("all_to_all", "all_to_all", xs, out, streams)

    def synchronize(self) -> None:
        """Waits for every rank's queued work (raising a CommunicatorError a
        collective met)."""
        for rank in self._ranks:
            rank.synchronize()
