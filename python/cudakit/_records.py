"""GPUArrays of numpy structured dtypes: PyCUDA's arrays of ``gpuarray.vec``
types (``float3``, ``int2``, ...), of registered structs and of records.

Such an array is a ``RecordGPUArray`` (a ``GPUArray`` subclass, made by
``GPUArray(shape, dtype)``, ``empty``/``zeros``/``to_gpu``/... when the dtype
is structured). Its memory is held by a cudakit array of unsigned words (the
widest of 8, 4, 2, 1 bytes dividing the itemsize and the alignment) with one
more, last, axis: the words of one record. Storage, copies, transfers and
fills move those words, so every byte is kept exactly and nothing is written
outside the array's own records. Views (indexing, slicing, reshape,
transpose, view(dtype)) are computed by numpy on a stand-in array that is
never read, so they follow numpy's rules exactly. Arithmetic is a TypeError
naming the dtype (numpy has none on records either).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from ._layout import memory_order

_GPUArray = _core.GPUArray
_base_shape = _GPUArray.__dict__["shape"].__get__
_base_strides = _GPUArray.__dict__["strides"].__get__
_base_dtype = _GPUArray.__dict__["dtype"].__get__


def is_record_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a structured (or plain void) dtype, which cudakit
    stores as records."""
    if dtype is None or isinstance(dtype, _GPUArray):
        return False
    if isinstance(dtype, type) and issubclass(dtype, np.generic):  # np.float32, ...
        return issubclass(dtype, np.void)
    try:
        d = np.dtype(dtype)
    except (TypeError, ValueError):
        return False
    return d.kind == "V" and d.subdtype is None


def dtype_name(dtype: np.dtype) -> str:
    """The dtype as messages name it: its C name when it has one (float3)."""
    from .tools import _registered_names

    c_name = _registered_names.get(dtype)
    return f"{c_name} ({dtype!r})" if c_name else repr(dtype)


def refuse(array: Any, what: str = "this operation") -> Any:
    """The TypeError for arithmetic (and the like) on records."""
    raise TypeError(f"{what} is not defined for a GPUArray of the structured dtype "
                    f"{dtype_name(array.dtype)} (numpy has no arithmetic on records either): "
                    "records are stored, copied, filled, indexed and passed to kernels "
                    "(SourceModule, ElementwiseKernel); compute on their fields in a kernel")


def _record_dtype(dtype: Any) -> np.dtype:
    d = np.dtype(dtype)
    if d.itemsize == 0:
        raise TypeError(f"GPUArray: the structured dtype {d!r} has itemsize 0")
    if d.hasobject:
        raise TypeError(f"GPUArray: the structured dtype {d!r} holds Python objects, "
                        "which device memory cannot")
    return d


def _word_bytes(itemsize: int, *alignments: int) -> int:
    for word in (8, 4, 2, 1):
        if itemsize % word == 0 and all(a % word == 0 for a in alignments):
            return word
    return 1


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _contiguous_strides(shape: tuple[int, ...], itemsize: int, order: str) -> tuple[int, ...]:
    strides = []
    step = itemsize
    for extent in (reversed(shape) if order == "C" else shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides)) if order == "C" else tuple(strides)


def _view(source: Any, dtype: np.dtype, shape: tuple[int, ...], strides: tuple[int, ...],
          offset: int = 0) -> Any:
    """A view of ``source``'s memory: records of ``dtype`` (a RecordGPUArray)
    or, for a plain dtype, a GPUArray; offset in bytes from source's element 0."""
    if not is_record_dtype(dtype):
        return _core._record_view(source, dtype, shape, strides, offset)
    word = _word_bytes(dtype.itemsize, int(source.ptr) + offset, *strides)
    return _core._record_view(source, np.dtype(f"u{word}"), shape + (dtype.itemsize // word,),
                              strides + (word,), offset, 0, RecordGPUArray, dtype)


def _stand_in(array: Any) -> np.ndarray:
    """A numpy array of ``array``'s shape, strides and dtype over one element:
    numpy computes views on it; it is never read."""
    one = np.zeros(1, array.dtype)
    return np.lib.stride_tricks.as_strided(one, array.shape, array.strides, writeable=False)


def _from_stand_in(array: Any, stand_in: np.ndarray, view: np.ndarray) -> Any:
    """The view of ``array`` that ``view`` is of ``stand_in``."""
    offset = view.__array_interface__["data"][0] - stand_in.__array_interface__["data"][0]
    return _view(array, view.dtype, tuple(view.shape), tuple(view.strides), offset)


def view_as(array: Any, dtype: Any) -> Any:
    """``array.view(dtype)`` (numpy's rules) for a structured ``dtype``."""
    stand_in = _stand_in(array)
    return _from_stand_in(array, stand_in, stand_in.view(_record_dtype(dtype)))


# ---- creation -------------------------------------------------------------------

def empty(shape: Any, dtype: Any, allocator: Any = None, order: str = "C",
          stream: Any = None) -> RecordGPUArray:
    """An uninitialised array of records (in ``allocator``'s memory when given)."""
    dtype = _record_dtype(dtype)
    shape = _shape(shape)
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F'")
    word = _word_bytes(dtype.itemsize)
    words_dtype = np.dtype(f"u{word}")
    # Fortran order: the records' axes reversed, the words of one record last.
    words_shape = (shape if order == "C" else shape[::-1]) + (dtype.itemsize // word,)
    if allocator is not None:
        words = _core._allocate(allocator, words_shape, words_dtype, "C", stream)
    else:
        words = _core._full(words_shape, words_dtype, None, "C")
    strides = _contiguous_strides(shape, dtype.itemsize, order)
    return _core._record_view(words, words_dtype, shape + (words_shape[-1],), strides + (word,),
                              0, 0, RecordGPUArray, dtype)


def full(shape: Any, dtype: Any, value: Any, allocator: Any = None,
         order: str = "C") -> RecordGPUArray:
    return empty(shape, dtype, allocator, order).fill(value)


def to_gpu(ary: Any, allocator: Any = None, stream: Any = None,
           async_: bool = False) -> RecordGPUArray:
    host = np.asarray(ary)
    out = empty(host.shape, host.dtype, allocator, memory_order(host), stream)
    out.set(host, async_=async_, stream=stream)
    return out


def from_pointer(shape: Any, dtype: Any, gpudata: Any, base: Any = None, strides: Any = None,
                 order: str = "C") -> RecordGPUArray:
    """GPUArray(shape, dtype, gpudata=..., strides=...) for records."""
    dtype = _record_dtype(dtype)
    shape = _shape(shape)
    if strides is None:
        strides = _contiguous_strides(shape, dtype.itemsize, "F" if order == "F" else "C")
    strides = tuple(int(s) for s in strides)
    word = _word_bytes(dtype.itemsize, int(gpudata), *strides)
    words = _GPUArray(shape + (dtype.itemsize // word,), np.dtype(f"u{word}"), None, base,
                      gpudata, strides + (word,))
    return _view(words, dtype, shape, strides)


# ---- host side ------------------------------------------------------------------

def _bytes(array: Any) -> Any:
    """The bytes of an array of records as a plain uint8 GPUArray (same memory)."""
    return _core._record_view(array, np.uint8, array.shape + (array.itemsize,),
                              array.strides + (1,))


def _copy_records(target: Any, source: Any) -> None:
    """target[...] = source for two arrays of records of one dtype (word by
    word where their words match, else byte by byte)."""
    target_words, source_words = target._words(), source._words()
    if target_words.itemsize != source_words.itemsize:
        target_words, source_words = _bytes(target), _bytes(source)
    target_words[...] = source_words


def _host_words(host: np.ndarray, word: int) -> np.ndarray:
    """The words of a C-contiguous host array of records: shape + (words per record,)."""
    flat = host.reshape(-1)
    if flat.size == 0:
        return np.empty(host.shape + (host.dtype.itemsize // word,), np.dtype(f"u{word}"))
    return flat.view(np.dtype(f"u{word}")).reshape(host.shape + (host.dtype.itemsize // word,))


def _host_records(value: Any, dtype: np.dtype, what: str) -> np.ndarray:
    """``value`` as host records of ``dtype``: an array or record of exactly
    this dtype, or what numpy turns into one record (a tuple, a number)."""
    if isinstance(value, (np.ndarray, np.void)) and value.dtype.kind == "V":
        if value.dtype != dtype:
            raise TypeError(f"{what}: the value's dtype {value.dtype!r} differs from the "
                            f"array's {dtype_name(dtype)}")
        return np.array(value, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
    if isinstance(value, np.ndarray):
        raise TypeError(f"{what}: a {value.dtype} array cannot be stored in an array of "
                        f"{dtype_name(dtype)}; pass records of that dtype")
    try:
        return np.array(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: {value!r} is not a record of {dtype_name(dtype)} ({e}); pass "
                        "a numpy record of that dtype (gpuarray.vec.make_float3(...)), a "
                        "tuple of its fields or a number") from None


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous", "forc", "writeable")

    def __init__(self, flags: Any, writeable: bool) -> None:
        self.c_contiguous = bool(flags.c_contiguous)
        self.f_contiguous = bool(flags.f_contiguous)
        self.forc = self.c_contiguous or self.f_contiguous
        self.writeable = writeable

    def __repr__(self) -> str:
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  WRITEABLE : {self.writeable}")


_BASIC_INDEX = (int, np.integer, slice, type(None), type(Ellipsis))


class RecordGPUArray(_GPUArray):
    """A GPUArray of a numpy structured dtype (see the module's text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Made complete by GPUArray.__new__ / _record_view.
        pass

    # ---- the words behind it --------------------------------------------------
    def _words(self) -> Any:
        """The words as a plain GPUArray (same memory)."""
        return _core._record_view(self, _base_dtype(self), _base_shape(self),
                                  _base_strides(self))

    def _stand_in(self) -> np.ndarray:
        return _stand_in(self)

    def _from_stand_in(self, stand_in: np.ndarray, view: np.ndarray) -> Any:
        return _from_stand_in(self, stand_in, view)

    # ---- what it is -----------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return _core._records_of(self)

    @property
    def shape(self) -> tuple[int, ...]:
        return _base_shape(self)[:-1]

    @property
    def strides(self) -> tuple[int, ...]:
        return _base_strides(self)[:-1]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    mem_size = size

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def flags(self) -> _Flags:
        return _Flags(self._stand_in().flags, self._words().flags.writeable)

    @property
    def is_pending(self) -> bool:
        return False

    def evaluate(self) -> RecordGPUArray:
        return self

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self) -> str:
        return repr(self.get())

    def __str__(self) -> str:
        return str(self.get())

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        cai = dict(self._words().__cuda_array_interface__)
        cai.update(shape=self.shape, strides=self.strides, typestr=self.dtype.str,
                   descr=self.dtype.descr)
        return cai

    # ---- transfers ------------------------------------------------------------
    def get(self, ary: Any = None, pagelocked: bool = False, async_: bool = False,
            stream: Any = None) -> np.ndarray:
        if ary is not None:
            if not isinstance(ary, np.ndarray) or ary.dtype != self.dtype:
                raise TypeError(f"get(): the host array's dtype "
                                f"{getattr(ary, 'dtype', type(ary).__name__)!r} differs from "
                                f"the GPUArray's {dtype_name(self.dtype)}")
            if ary.size != self.size:
                raise ValueError(f"get(): the host array has {ary.size} elements, the "
                                 f"GPUArray {self.size}")
            if not ary.flags.c_contiguous:
                np.copyto(ary, self.get(stream=stream).reshape(ary.shape))
                return ary
            out = ary
        elif pagelocked:
            from .driver import pagelocked_empty

            out = pagelocked_empty(self.shape, self.dtype)
        else:
            out = np.empty(self.shape, self.dtype)
        words = self._words()
        words.get(_host_words(out, words.itemsize), async_=async_, stream=stream)
        return out

    def get_async(self, stream: Any = None, ary: Any = None) -> np.ndarray:
        return self.get(ary, async_=True, stream=stream)

    def set(self, ary: Any, async_: bool = False, stream: Any = None) -> None:
        host = np.asarray(ary)
        if host.dtype != self.dtype:
            raise TypeError(f"set(): the host array is {host.dtype!r}, the GPUArray "
                            f"{dtype_name(self.dtype)} (the dtypes must be equal)")
        if host.size != self.size:
            raise ValueError(f"set(): the host array has shape {host.shape}, the GPUArray "
                             f"{self.shape} (the sizes must be equal)")
        words = self._words()
        host_words = _host_words(np.ascontiguousarray(host), words.itemsize)
        words.set(host_words.reshape(words.shape), async_=async_, stream=stream)

    def set_async(self, ary: Any, stream: Any = None) -> None:
        self.set(ary, async_=True, stream=stream)

    # ---- writes ---------------------------------------------------------------
    def fill(self, value: Any, stream: Any = None) -> RecordGPUArray:
        """Every record becomes ``value`` (a record of this dtype, a tuple of
        its fields, or a number numpy gives every field)."""
        record = _host_records(value, self.dtype, "fill()")
        if record.ndim != 0:
            raise TypeError(f"fill(): expected one record of {dtype_name(self.dtype)}, got an "
                            f"array of shape {record.shape}")
        words = self._words()
        if stream is not None:
            words = _core._on_stream(words, stream)
        words[...] = _host_words(record, words.itemsize)
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        target = self[key]
        if isinstance(value, RecordGPUArray):
            if value.dtype != self.dtype:
                raise TypeError(f"GPUArray.__setitem__: the value's dtype {value.dtype!r} "
                                f"differs from the array's {dtype_name(self.dtype)}")
            _copy_records(target, value)
            return
        if isinstance(value, _GPUArray):
            raise TypeError(f"GPUArray.__setitem__: a {value.dtype} GPUArray cannot be stored "
                            f"in an array of {dtype_name(self.dtype)}")
        host = _host_records(value, self.dtype, "GPUArray.__setitem__")
        words = target._words()
        words[...] = _host_words(host, words.itemsize)

    def copy(self, order: str = "K") -> RecordGPUArray:
        if order in ("K", "A"):
            order = memory_order(self)
        out = empty(self.shape, self.dtype, self.allocator, "F" if order == "F" else "C")
        _copy_records(out, self)
        return out

    def astype(self, dtype: Any, stream: Any = None) -> RecordGPUArray:
        if np.dtype(dtype) != self.dtype:
            refuse(self, f"astype({np.dtype(dtype)!r})")
        return self.copy()

    # ---- views ----------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            if isinstance(k, bool) or not isinstance(k, _BASIC_INDEX):
                raise IndexError(f"GPUArrays of {dtype_name(self.dtype)} take integers, slices "
                                 "(`:`), ellipsis (`...`) and None as indices")
        if not any(k is Ellipsis for k in keys):
            keys = keys + (Ellipsis,)  # a view even where every axis gets an integer
        stand_in = self._stand_in()
        return self._from_stand_in(stand_in, stand_in[keys])

    def _reshaped(self, shape: tuple[int, ...], order: str) -> Any:
        stand_in = self._stand_in()
        view = stand_in.view()
        try:
            if order == "F":
                view = view.T.view()
                view.shape = shape[::-1]
                view = view.T
            else:
                view.shape = shape
        except (AttributeError, ValueError):
            view = None
        if view is None or not (view.flags.f_contiguous if order == "F"
                                else view.flags.c_contiguous):
            # PyCUDA's rule: the result is order-contiguous (a copy where needed).
            return self.copy(order)._reshaped(shape, order)
        return self._from_stand_in(stand_in, view)

    def reshape(self, *shape: Any, order: str = "C") -> Any:
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        if order not in ("C", "F", "A"):
            raise ValueError("reshape: order must be 'C', 'F' or 'A'")
        if order == "A":
            flags = self.flags
            order = "F" if flags.f_contiguous and not flags.c_contiguous else "C"
        # numpy's -1 and size checks, on a stand-in of the right size
        target = np.empty(self.shape, np.bool_).reshape(tuple(int(s) for s in shape)).shape
        return self._reshaped(target, order)

    def ravel(self, order: str = "C") -> Any:
        return self.reshape(self.size, order="F" if order == "F" else "C")

    def view(self, dtype: Any = None) -> Any:
        stand_in = self._stand_in()
        if dtype is None:
            return self._from_stand_in(stand_in, stand_in.view())
        dtype = _record_dtype(dtype) if is_record_dtype(dtype) else np.dtype(dtype)
        return self._from_stand_in(stand_in, stand_in.view(dtype))

    @property
    def T(self) -> Any:
        stand_in = self._stand_in()
        return self._from_stand_in(stand_in, stand_in.T)

    def transpose(self, *axes: Any, **kwargs: Any) -> Any:
        stand_in = self._stand_in()
        if "axes" in kwargs:
            axes = (kwargs.pop("axes"),)
        if kwargs:
            raise TypeError(f"transpose(): unknown keyword arguments {sorted(kwargs)}")
        return self._from_stand_in(stand_in, stand_in.transpose(*axes))

    def swapaxes(self, axis1: int, axis2: int) -> Any:
        stand_in = self._stand_in()
        return self._from_stand_in(stand_in, stand_in.swapaxes(axis1, axis2))

    def squeeze(self, axis: Any = None) -> Any:
        stand_in = self._stand_in()
        return self._from_stand_in(stand_in, stand_in.squeeze(axis))

    # ---- kernels --------------------------------------------------------------
    def _kernel_elements(self) -> Any:
        """For an ElementwiseKernel: a GPUArray of one byte-sized element per
        record at the records' address, so that the kernel's index range is
        the record count and `float3 *x` reads records."""
        if not self.flags.c_contiguous:
            raise ValueError(f"ElementwiseKernel: the GPUArray of {dtype_name(self.dtype)} is "
                             "not contiguous; pass a contiguous copy (a.copy())")
        return _core._record_view(self, np.uint8, (self.size,), (1,), 0, max(self.nbytes, 1))


def kernel_arguments(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arguments of a generated kernel (ElementwiseKernel,
    ReductionKernel) with each array of records as its _kernel_elements()."""
    if not any(isinstance(a, RecordGPUArray) for a in args):
        return args
    return tuple(a._kernel_elements() if isinstance(a, RecordGPUArray) else a for a in args)


# Everything else GPUArray has (operators, math, reductions, conversions,
# DLPack) is refused with the dtype named: numpy has no arithmetic on records.
_SUPPORTED = set(RecordGPUArray.__dict__) | {
    "gpudata", "ptr", "base", "allocator", "stream", "__init_subclass__", "__subclasshook__",
    "__class__", "__new__", "__init__", "__getattribute__", "__setattr__", "__delattr__",
    "__dir__", "__doc__", "__module__", "__reduce__", "__reduce_ex__", "__sizeof__",
    "__format__", "__hash__", "__eq__", "__ne__", "__dict__", "__weakref__",
}


def _refusal(name: str) -> Any:
    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        refuse(self, name)

    refused.__name__ = name
    return refused


for _name, _member in list(vars(_GPUArray).items()) + [
        (n, getattr(_GPUArray, n)) for n in dir(_GPUArray) if n not in vars(_GPUArray)]:
    if _name in _SUPPORTED or _name in RecordGPUArray.__dict__:
        continue
    if isinstance(_member, property):
        setattr(RecordGPUArray, _name, property(_refusal(_name)))
    elif callable(_member) and (not _name.startswith("__") or _name in (
            "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
            "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
            "__rpow__", "__neg__", "__pos__", "__abs__", "__invert__", "__and__", "__rand__",
            "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__", "__rlshift__",
            "__rshift__", "__rrshift__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
            "__ifloordiv__", "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__",
            "__ilshift__", "__irshift__", "__lt__", "__le__", "__gt__", "__ge__", "__float__",
            "__int__", "__complex__", "__bool__", "__index__", "__dlpack__", "__dlpack_device__",
            "__array__", "__matmul__", "__rmatmul__", "__divmod__", "__rdivmod__", "__div__",
            "__rdiv__", "__idiv__")):
        setattr(RecordGPUArray, _name, _refusal(_name))


# ---- GPUArray(shape, dtype, ...) with a structured dtype ---------------------------

def construct(shape: Any, dtype: Any, allocator: Any = None, base: Any = None,
              gpudata: Any = None, strides: Any = None, order: str = "C") -> RecordGPUArray:
    """What GPUArray(shape, dtype, ...) gives for a structured dtype."""
    if gpudata is not None:
        return from_pointer(shape, dtype, gpudata, base, strides, order)
    if strides is not None:
        raise ValueError("strides= needs gpudata= (new arrays are contiguous; use order=)")
    return empty(shape, dtype, allocator, order)
