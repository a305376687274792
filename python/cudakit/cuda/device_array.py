"""DeviceNDArray: Numba's device array on cudakit's C++ Array (the same
memory pool and streams as the C++ layer and cudakit.gpuarray)."""

from __future__ import annotations

import ctypes
import math
import operator
from typing import Any

import numpy as np

from .. import _core
from .._host_memory import _strides
from .._layout import memory_order
from .._pickling import host_values, refuse_pickle
from .translate import types as t


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


def _storage(dtype: np.dtype) -> str:
    """The C++ array's dtype holding `dtype`'s values (datetime64 and
    timedelta64: their int64 counts)."""
    return "int64" if dtype.kind in "Mm" else dtype.name


# (dtype, aligned, ndim, layout) -> the kernel type of such an array (made once: the
# type is part of every launch's dispatch key).
_ARRAY_TYPES: dict[tuple[np.dtype, bool, int, str], t.Type] = {}


class DeviceNDArray:
    """An array in device memory (numba.cuda.cudadrv.devicearray.DeviceNDArray)."""

    __slots__ = ("_array", "dtype", "shape", "_strides_el", "stream", "_type", "__weakref__")

    def __init__(self, array: "_core.JitArray", dtype: np.dtype, stream: Any = 0) -> None:
        self._array = array
        self.dtype = np.dtype(dtype)
        if self.dtype.names is not None:
            # Records: the C++ array holds their bytes on a last axis.
            self.shape = tuple(array.shape)[:-1]
            self._strides_el = tuple(s // self.dtype.itemsize for s in array.strides[:-1])
        else:
            self.shape = tuple(array.shape)
            self._strides_el = tuple(array.strides)
        self.stream = stream
        if self.dtype.names is None:
            layout = ("C" if array.c_contiguous else "F" if array.f_contiguous
                      else t.layout_from(self.shape, self.strides, self.dtype.itemsize))
        else:
            layout = t.layout_from(self.shape, self.strides, self.dtype.itemsize)
        # (Equal record dtypes may differ in align=True, which the type keeps.)
        key = (self.dtype, self.dtype.isalignedstruct, len(self.shape), layout)
        found = _ARRAY_TYPES.get(key)
        if found is None:
            found = _ARRAY_TYPES[key] = t.intern(
                t.ArrayT(t.from_dtype(self.dtype), len(self.shape), layout))
        self._type = found

    # ---- attributes -------------------------------------------------------------------
    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(s * self.dtype.itemsize for s in self._strides_el)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def alloc_size(self) -> int:
        return self.nbytes

    @property
    def device_ctypes_pointer(self) -> ctypes.c_void_p:
        """The first element's address as Numba gives it (a c_void_p; its
        .value is None for an empty array)."""
        return ctypes.c_void_p(self._array.address if self.size else 0)

    @property
    def gpu_data(self) -> "DeviceMemory":
        """The device memory this array's first element is in (Numba's
        MemoryPointer: `device_pointer`, `size`)."""
        return DeviceMemory(self._array.address, self.nbytes, self)

    @property
    def flags(self) -> "ArrayFlags":
        """NumPy's contiguity flags: flags["C_CONTIGUOUS"], flags.f_contiguous."""
        return ArrayFlags(C_CONTIGUOUS=self.is_c_contiguous(),
                          F_CONTIGUOUS=self.is_f_contiguous())

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        strides = None if self.is_c_contiguous() else self.strides
        interface = {"shape": self.shape, "strides": strides, "typestr": self.dtype.str,
                     # The protocol's null pointer for no elements, as Numba's.
                     "data": (self._array.address if self.size else 0, False), "version": 3,
                     "stream": _interface_stream(self.stream)}
        if self.dtype.names is not None:  # records: their fields, as the protocol allows
            interface["descr"] = self.dtype.descr
        return interface

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"<cudakit.cuda.DeviceNDArray shape={self.shape} dtype={self.dtype}>"

    def is_c_contiguous(self) -> bool:
        return bool(self._array.c_contiguous)

    def is_f_contiguous(self) -> bool:
        return bool(self._array.f_contiguous)

    # ---- copies ------------------------------------------------------------------------
    def _check_copy_shape(self, other_shape: tuple[int, ...]) -> None:
        """Numba's shape rule for copies between a device array and another
        array (check_array_compatibility): the same shape once axes of extent
        1 are dropped, else ValueError "incompatible shape: A vs. B". (3, 4)
        takes (1, 3, 4) but not (4, 3) or (12,)."""
        if (tuple(n for n in self.shape if n != 1)
                != tuple(int(n) for n in other_shape if n != 1)):
            raise ValueError(f"incompatible shape: {self.shape} vs. {tuple(other_shape)}")

    def copy_to_host(self, ary: np.ndarray | None = None, stream: Any = 0) -> np.ndarray:
        """The data as a NumPy array (into `ary` when given, which must have
        this dtype and this shape, axes of extent 1 aside, as in Numba)."""
        source = self if self.is_c_contiguous() else DeviceNDArray(self._array.copy(),
                                                                  self.dtype)
        if ary is None:
            out = np.empty(self.shape, self.dtype)
            if out.nbytes:
                source._array.copy_to_host(out.ctypes.data, out.nbytes)
            _core.jit_check_fault()  # a failed check of a kernel that wrote it (a GPU)
            return out
        if not isinstance(ary, np.ndarray):
            raise TypeError(f"copy_to_host(ary): ary must be a numpy array, got "
                            f"{type(ary).__name__}")
        if ary.dtype != self.dtype:
            raise ValueError(f"copy_to_host: the host array is {ary.dtype} {ary.shape}, the "
                             f"device array {self.dtype} {self.shape}")
        self._check_copy_shape(ary.shape)
        if not ary.flags.writeable:
            raise ValueError("copy_to_host: the host array is read-only")
        if ary.flags.c_contiguous:
            if ary.nbytes:
                source._array.copy_to_host(ary.ctypes.data, ary.nbytes)
            _core.jit_check_fault()
        else:
            ary[...] = self.copy_to_host().reshape(ary.shape)
        return ary

    def copy_to_device(self, ary: Any, stream: Any = 0) -> None:
        """Overwrites the contents with `ary` (a host array or a device
        array of this shape, axes of extent 1 aside, as in Numba), converted
        to this dtype."""
        if isinstance(ary, DeviceNDArray):
            self._check_copy_shape(ary.shape)
            host = ary.copy_to_host()
        else:
            host = np.asarray(ary)
            self._check_copy_shape(host.shape)
        host = np.ascontiguousarray(host.astype(self.dtype, copy=False).reshape(self.shape))
        if self.is_c_contiguous():
            if host.nbytes:
                self._array.copy_from_host(host.ctypes.data, host.nbytes)
        elif host.nbytes:
            # Into a strided view: the data goes up contiguous, then one
            # device-side copy writes it through the view's strides.
            staged = _core.JitArray.from_host(host.ctypes.data, list(self._array.shape),
                                              self._array.dtype)
            self._array.assign(staged)

    def copy(self) -> "DeviceNDArray":
        return DeviceNDArray(self._array.copy(), self.dtype, self.stream)

    # ---- views -------------------------------------------------------------------------
    def reshape(self, *newshape: Any, order: str = "C") -> "DeviceNDArray":
        shape = _shape_tuple(newshape[0] if len(newshape) == 1 else newshape)
        if -1 in shape:
            known = int(np.prod([n for n in shape if n != -1]))
            shape = tuple(self.size // max(known, 1) if n == -1 else n for n in shape)
        if self.dtype.names is not None:
            if order == "F":
                raise NotImplementedError("record arrays reshape in C order only")
            shape = (*shape, self.dtype.itemsize)
        return DeviceNDArray(self._array.reshape(list(shape), order == "F"), self.dtype,
                             self.stream)

    def view(self, dtype: Any) -> "DeviceNDArray":
        """The same memory read as `dtype` (no copy), as NumPy's view: a
        dtype of another size rescales the last axis, which must then be
        contiguous."""
        dt = np.dtype(dtype)
        t.from_dtype(dt)  # TypeError for dtypes kernels cannot use
        if self.dtype.names is not None or dt.names is not None:
            raise NotImplementedError("views of device arrays of records")
        shape, strides = list(self.shape), list(self.strides)
        if dt.itemsize != self.dtype.itemsize:
            if not shape or strides[-1] != self.dtype.itemsize \
                    or shape[-1] * self.dtype.itemsize % dt.itemsize:
                raise ValueError(f"view({dt}): a {self.dtype} array's last axis must be "
                                 f"contiguous and its bytes a multiple of {dt.itemsize} to "
                                 "change the itemsize")
            shape[-1] = shape[-1] * self.dtype.itemsize // dt.itemsize
            strides[-1] = dt.itemsize
        array = _core.JitArray.from_pointer(self._array.address, shape, strides, _storage(dt),
                                            self)
        return DeviceNDArray(array, dt, self.stream)

    def ravel(self, order: str = "C") -> "DeviceNDArray":
        return self.reshape(self.size, order=order)

    @property
    def T(self) -> "DeviceNDArray":  # noqa: N802 (NumPy's name)
        return self.transpose()

    def transpose(self) -> "DeviceNDArray":
        if self.dtype.names is not None:
            raise NotImplementedError("transposing a device array of records")
        return DeviceNDArray(self._array.transpose(), self.dtype, self.stream)

    def __getitem__(self, key: Any) -> Any:
        keys = key if isinstance(key, tuple) else (key,)
        if len(keys) > self.ndim:
            raise IndexError(f"too many indices for a {self.ndim}-d device array")
        array = self._array
        axis = 0
        for k in keys:
            if isinstance(k, slice):
                extent = array.shape[axis]
                start, stop, step = k.indices(extent)
                if step < 0 and stop < 0:  # "before index 0", which -1 would wrap to the end
                    stop -= extent
                array = array.slice(axis, start, stop, step)
                axis += 1
            elif isinstance(k, (int, np.integer)):
                index = int(k)
                extent = array.shape[axis]
                if index < 0:
                    index += extent
                if not 0 <= index < extent:
                    raise IndexError(f"index {int(k)} is out of bounds for axis {axis} with "
                                     f"size {extent}")
                array = array.take(axis, index)
            else:
                raise TypeError(f"device arrays take integers and slices as indices, got "
                                f"{type(k).__name__}")
        if len(array.shape) == (self.dtype.names is not None):  # one element left
            value = np.empty((), self.dtype)
            flat = [1, self.dtype.itemsize] if self.dtype.names is not None else [1]
            DeviceNDArray(array.reshape(flat, False), self.dtype).copy_to_host(
                value.reshape(1))
            return value[()]
        return DeviceNDArray(array, self.dtype, self.stream)

    def __setitem__(self, key: Any, value: Any) -> None:
        host = self.copy_to_host()
        host[key] = value
        self.copy_to_device(host)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype)

    def split(self, section: int, stream: Any = 0) -> list["DeviceNDArray"]:
        if self.ndim != 1:
            raise ValueError("split works on 1-d arrays")
        return [self[i:i + section] for i in range(0, self.size, section)]

    def get_ipc_handle(self) -> Any:
        """An IpcArrayHandle to send to another process (cuda/ipc.py)."""
        from .ipc import array_ipc_handle
        return array_ipc_handle(self)

    def __reduce_ex__(self, protocol: int) -> Any:
        """Pickled as its values (numpy's pickle of the host copy: out of
        band with protocol 5), copied to the unpickling process's current
        device; its stream stays behind."""
        fortran = self.is_f_contiguous() and not self.is_c_contiguous()
        return _rebuild_device_ndarray, (host_values(self.copy_to_host(), fortran),)


def _rebuild_device_ndarray(values: np.ndarray) -> DeviceNDArray:
    return to_device(values)


# Launches of SourceModule functions take these arrays through their C++ object.
_core._set_device_ndarray_type(DeviceNDArray)


class ArrayFlags(dict):
    """A device array's flags, by key (NumPy's names) or attribute."""

    @property
    def c_contiguous(self) -> bool:
        return bool(self["C_CONTIGUOUS"])

    @property
    def f_contiguous(self) -> bool:
        return bool(self["F_CONTIGUOUS"])


class DeviceMemory:
    """Device memory as Numba's MemoryPointer shows it: the address
    (`device_pointer`, an int) and the size in bytes; it keeps its owner
    alive."""

    def __init__(self, address: int, size: int, owner: Any) -> None:
        self.device_pointer = int(address)
        self.size = int(size)
        self.owner = owner

    def __int__(self) -> int:
        return self.device_pointer

    def __eq__(self, other: object) -> bool:
        """The same memory (a view's and its base's, as Numba's views share
        their base's MemoryPointer)."""
        if not isinstance(other, DeviceMemory):
            return NotImplemented
        return (self.device_pointer, self.size) == (other.device_pointer, other.size)

    def __hash__(self) -> int:
        return hash((self.device_pointer, self.size))

    def __repr__(self) -> str:
        return f"<device memory at {self.device_pointer:#x}, {self.size} bytes>"

    __reduce_ex__ = refuse_pickle(
        "it is a device address only this process can use; pickle the device array, which "
        "travels as its values")


def _interface_stream(stream: Any) -> int | None:
    """The protocol's "stream" of an array made on `stream`: None for the
    default stream (nothing to wait for), else the stream's handle, which a
    consumer waits on before it reads, as Numba's arrays give it."""
    handle = getattr(stream, "handle", stream)
    handle = getattr(handle, "value", handle)
    try:
        return int(handle) or None
    except (TypeError, ValueError):
        return None


def _kernel_dtype(dt: np.dtype) -> None:
    """A TypeError for dtypes kernels cannot use (records off their alignment too)."""
    if getattr(t.from_dtype(dt), "misaligned", ""):
        raise TypeError(t.from_dtype(dt).misaligned)


def contiguous_strides_like(ary: Any) -> tuple[int, ...] | None:
    """Byte strides of a new contiguous array that keeps `ary`'s axis order
    (Numba's and NumPy's `*_like` rule: the axes sorted by `ary`'s strides),
    or None where C or F order says it (`ary` contiguous, or 1-d)."""
    flags = getattr(ary, "flags", None)
    shape, strides = tuple(ary.shape), tuple(getattr(ary, "strides", ()) or ())
    if (len(shape) <= 1 or len(strides) != len(shape) or flags is None
            or flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"]):
        return None
    order = sorted(range(len(shape)), key=lambda axis: strides[axis])
    new = [0] * len(shape)
    step = np.dtype(ary.dtype).itemsize
    for axis in order:
        new[axis] = step
        step *= shape[axis]
    return tuple(new)


def _strided_extent(shape: tuple[int, ...], strides: Any, itemsize: int, what: str
                    ) -> tuple[tuple[int, ...], int]:
    """`strides` as a tuple of ints checked against `shape`, and the bytes an
    array of that shape and those strides spans."""
    try:
        strides = tuple(operator.index(st) for st in
                        ((strides,) if isinstance(strides, (int, np.integer)) else strides))
    except TypeError:
        raise TypeError(f"{what}: strides must be integers (bytes per step along each "
                        f"axis), got {strides!r}") from None
    if len(strides) != len(shape):
        raise ValueError(f"{what}: {len(strides)} strides {strides} for a "
                         f"{len(shape)}-d shape {shape}: give one stride (in bytes) per axis")
    if any(st < 0 for st in strides):
        raise ValueError(f"{what}: negative strides {strides} reach before the allocation; "
                         "make the array with positive strides and take a reversed view of it")
    if 0 in shape:
        return strides, 0
    return strides, sum((n - 1) * st for n, st in zip(shape, strides)) + itemsize


def device_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C",
                 stream: Any = 0) -> DeviceNDArray:
    """Uninitialised device memory (Numba's cuda.device_array); `strides`
    (bytes per step along each axis) wins over `order`, as in Numba."""
    dt = np.dtype(dtype)
    _kernel_dtype(dt)
    shape = _shape_tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    if strides is not None:
        strides, extent = _strided_extent(shape, strides, dt.itemsize, "device_array")
        size = math.prod(shape)
        if size and strides == _strides(shape, dt.itemsize, "C"):
            order = "C"
        elif size and strides == _strides(shape, dt.itemsize, "F"):
            order = "F"
        else:
            if dt.names is not None:
                raise NotImplementedError("device arrays of records take C-order strides only")
            memory = _core.JitArray.empty([max(extent, 1)], "uint8", False)
            array = _core.JitArray.from_pointer(memory.address, list(shape), list(strides),
                                                _storage(dt), memory)
            return DeviceNDArray(array, dt, stream)
    if dt.names is not None:  # records: their bytes on a last axis
        if order == "F":
            raise NotImplementedError("device arrays of records are C-ordered")
        return DeviceNDArray(_core.JitArray.empty([*shape, dt.itemsize], "uint8", False), dt,
                             stream)
    return DeviceNDArray(_core.JitArray.empty(list(shape), _storage(dt), order == "F"), dt, stream)


def device_array_like(ary: Any, stream: Any = 0) -> DeviceNDArray:
    """An uninitialised device array of `ary`'s shape and dtype, contiguous,
    its axes in `ary`'s order (a view's too, as NumPy's empty_like)."""
    if np.dtype(ary.dtype).names is not None:
        # record arrays on the device are C-ordered (same shape and values)
        return device_array(ary.shape, ary.dtype, order="C", stream=stream)
    return device_array(ary.shape, ary.dtype, strides=contiguous_strides_like(ary),
                        order=memory_order(ary), stream=stream)


def to_device(obj: Any, stream: Any = 0, copy: bool = True, to: DeviceNDArray | None = None
              ) -> DeviceNDArray:
    """A device copy of a host array (or `to` overwritten with it)."""
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj
    host = np.asarray(obj)
    _kernel_dtype(host.dtype)
    if host.dtype.names is not None:  # records: copied as their bytes
        contiguous = np.ascontiguousarray(host).reshape(host.shape)
        if contiguous.size == 0:
            return device_array(host.shape, host.dtype, stream=stream)
        array = _core.JitArray.from_host(contiguous.ctypes.data,
                                         [*host.shape, host.dtype.itemsize], "uint8")
        return DeviceNDArray(array, host.dtype, stream)
    if memory_order(host) == "F":
        contiguous = np.ascontiguousarray(host.T)
        array = _core.JitArray.from_host(contiguous.ctypes.data, list(contiguous.shape),
                                         _storage(host.dtype))
        return DeviceNDArray(array.transpose(), host.dtype, stream)
    # (ascontiguousarray makes a 0-d array 1-d: keep the shape.)
    host = np.ascontiguousarray(host).reshape(host.shape)
    if host.size == 0:
        return device_array(host.shape, host.dtype, stream=stream)
    array = _core.JitArray.from_host(host.ctypes.data, list(host.shape), _storage(host.dtype))
    return DeviceNDArray(array, host.dtype, stream)


def is_cuda_array(obj: Any) -> bool:
    return hasattr(obj, "__cuda_array_interface__")


class _Owned:
    """Keeps another library's array alive while a view of it exists."""

    def __init__(self, owner: Any) -> None:
        self.owner = owner


def wait_for_interface_stream(desc: dict[str, Any]) -> None:
    """Waits for the stream a producer's __cuda_array_interface__ names (its
    work on the memory may still run there), unless
    config.CUDA_ARRAY_INTERFACE_SYNC is off, as Numba's consumers do."""
    from . import config
    stream = desc.get("stream")
    if stream is not None and config.CUDA_ARRAY_INTERFACE_SYNC:
        from .api import Stream
        Stream(int(stream)).synchronize()


def from_cuda_array_interface(desc: dict[str, Any], owner: Any = None
                              ) -> "DeviceNDArray | ForeignDeviceArray":
    """A DeviceNDArray viewing memory described by __cuda_array_interface__
    (no copy; `owner` is kept alive while the view exists), as Numba's: it has
    copy_to_host, slicing and the rest, and kernels take it by its C++ object.
    Layouts a cudakit array cannot describe (strides that are not a multiple
    of the itemsize, dtypes cudakit does not know) give a plain view that
    kernels still accept."""
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported: the CUDA array interface "
                                  "gives a mask cudakit's kernels would not apply; pass the data "
                                  "and the mask as two arrays")
    if owner is None:
        owner = desc  # (something to hold: the view needs no other owner)
    dtype = np.dtype(desc["typestr"])
    if "descr" in desc and dtype.kind == "V":
        try:  # the fields of a record typestr ("|V8"), padding included
            described = np.lib.format.descr_to_dtype(desc["descr"])
            if described.itemsize == dtype.itemsize:
                dtype = described
        except (TypeError, ValueError):
            pass
    shape = _shape_tuple(desc["shape"])
    address = int(desc["data"][0]) if desc.get("data") else 0
    readonly = bool(desc["data"][1]) if desc.get("data") else False
    strides = desc.get("strides")
    itemsize = dtype.itemsize
    if strides is None:
        strides_bytes: list[int] = []
    else:
        strides_bytes = [int(s) for s in strides]
    if (desc.get("mask") is None and itemsize > 0
            and all(s % itemsize == 0 for s in strides_bytes)):
        name, extra_shape, extra_strides = _storage(dtype), [], []
        if dtype.names is not None:  # records: their bytes on a last axis
            name, extra_shape, extra_strides = "uint8", [itemsize], [1]
            if not strides_bytes:
                strides_bytes = list(np.empty(shape, dtype=dtype).strides) if shape else []
        try:
            array = _core.JitArray.from_pointer(
                address, list(shape) + extra_shape,
                strides_bytes + extra_strides if strides_bytes else [], name,
                owner, readonly)
        except Exception:  # noqa: BLE001 (a dtype or layout cudakit cannot hold)
            array = None
        if array is not None:
            # Its default stream is the producer's (Numba's consumers do the same).
            stream = desc.get("stream")
            if stream is not None:
                from .api import external_stream
                stream = external_stream(stream)
            return DeviceNDArray(array, dtype, stream or 0)
    return ForeignDeviceArray(desc, owner)


def from_gpuarray(array: Any) -> "DeviceNDArray | ForeignDeviceArray":
    """A DeviceNDArray viewing a cudakit GPUArray (no copy; pending results
    are evaluated first), for the CPU backend, where a GPUArray has no
    __cuda_array_interface__ (its memory is not GPU memory)."""
    shape = tuple(array.shape)
    data = (int(array.ptr), False) if array.size else None
    return from_cuda_array_interface(
        {"shape": shape, "typestr": array.dtype.str, "data": data,
         "strides": tuple(array.strides), "version": 3}, owner=array)


class ForeignDeviceArray:
    """Another library's device memory, passed to kernels as a view."""

    def __init__(self, desc: dict[str, Any], owner: Any) -> None:
        self.__cuda_array_interface__ = dict(desc)
        self._owner = owner
        self.dtype = np.dtype(desc["typestr"])
        self.shape = tuple(desc["shape"])

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)
