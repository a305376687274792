"""GPU ufuncs: `cuda.vectorize` (Numba's `@vectorize(..., target='cuda')`).

The scalar function becomes a device function; each call runs ONE generated
kernel, a grid-stride loop over the broadcast output that calls it per
element. Arrays whose shapes equal the output's and share its C (or F)
order are flattened and indexed by the loop counter alone; otherwise the
counter is unravelled into the output's indices and an input axis of extent
1 is read at index 0 (NumPy's broadcasting, without copying the input).
Numbers are kernel parameters, converted to the signature's types.

Numba's rules: with signatures, array arguments must have a signature's
exact dtypes (NumPy's casting='no'); numbers match first by their own
dtype, then convert to the one signature the arrays leave. Without
signatures the ufunc compiles for the argument dtypes of each call (the
result dtype is what the function returns for them). Results are NumPy
arrays for host inputs and device arrays when any input is one; `out=`
receives the result; `stream=` orders the launch.
"""

from __future__ import annotations

import itertools
import linecache
import warnings
from typing import Any, Callable

import numpy as np

from .. import _core
from . import api
from .device_array import DeviceNDArray, device_array, to_device
from .dispatcher import Dispatcher
from .translate import types as t
from .translate.program import Program
from .translate.typing import translate_device

_THREADS = 256
_GENERATED = itertools.count()


# ---- shared with guvectorize ------------------------------------------------------------------

def numpy_dtype(scalar: t.Type) -> np.dtype:
    return np.dtype("bool" if scalar.name == "boolean" else scalar.name)  # type: ignore[attr-defined]


def signature_list(spec: Any) -> list[t.Signature]:
    """Numba's forms: one signature (string or object) or a list of them."""
    if spec is None:
        return []
    specs = [spec] if isinstance(spec, (str, t.Signature)) else list(spec)
    return [api._signature(s) for s in specs]


def check_target(target: Any, who: str) -> None:
    if target not in ("cuda", "gpu", None):
        raise ValueError(f"{who}: target={target!r} is not supported; cudakit makes CUDA "
                         "ufuncs (target='cuda'). For CPU ufuncs use numba.vectorize or "
                         "numpy.vectorize")


def core_function(py_func: Callable[..., Any]) -> Dispatcher:
    """The ufunc's scalar function as a device function (typed per call)."""
    if isinstance(py_func, Dispatcher):
        return py_func
    return api.jit(device=True)(py_func)


def return_type_of(core: Dispatcher, arg_types: tuple[t.Type, ...]) -> t.Type:
    """What the core returns for `arg_types` (a typing pass, nothing compiled)."""
    parsed = core.parsed
    _, returned = translate_device(parsed, arg_types, Program(dict(core.options)),
                                   ("ufunc-typing", arg_types), parsed.where, parsed.tree)
    return returned


def make_kernel(source: str, name: str, names: dict[str, Any]) -> Dispatcher:
    """A @cuda.jit kernel from generated Python source (kept in linecache so
    the translator, and tracebacks, can read it)."""
    filename = f"<cudakit-ufunc-{next(_GENERATED)}-{name}>"
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    namespace: dict[str, Any] = {"api": api, **names}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (our generated code)
    return Dispatcher(namespace[name])


def launch_shape(count: int) -> tuple[int, int]:
    """(blocks, threads) for a grid-stride loop over `count` items."""
    blocks = max(1, (count + _THREADS - 1) // _THREADS)
    cap = 64 if _core.jit_backend() == "cpu" else 16384
    return min(blocks, cap), _THREADS


def is_device(value: Any) -> bool:
    return isinstance(value, DeviceNDArray) or hasattr(value, "__cuda_array_interface__")


def as_device(value: Any) -> DeviceNDArray:
    if isinstance(value, DeviceNDArray):
        return value
    from . import as_cuda_array
    return as_cuda_array(value)


def with_shape(array: DeviceNDArray, shape: tuple[int, ...]) -> DeviceNDArray:
    """A view of `array` with `shape` (the same elements, axes of extent 1
    added in front or dropped)."""
    if array.shape == shape:
        return array
    try:
        return array.reshape(shape)
    except Exception:  # noqa: BLE001 (a strided view: describe it by its strides)
        pass
    kept = [(n, s) for n, s in zip(array.shape, array.strides) if n != 1]
    strides = []
    for n in reversed(shape):
        strides.append(kept.pop()[1] if n != 1 and kept else 0)
    from .device_array import from_cuda_array_interface
    desc = dict(array.__cuda_array_interface__)
    desc.update(shape=shape, strides=tuple(reversed(strides)))
    return from_cuda_array_interface(desc, owner=array)  # type: ignore[return-value]


def format_signature(sig: t.Signature) -> str:
    args = ", ".join(str(a) for a in sig.args)
    return f"{sig.return_type}({args})" if sig.return_type is not None else f"({args})"


# ---- the ufunc ---------------------------------------------------------------------------------

def _flat_source(name: str, scalars: tuple[bool, ...]) -> str:
    params = [f"a{k}" for k in range(len(scalars))]
    items = ", ".join(p if s else f"{p}[i]" for p, s in zip(params, scalars))
    return (f"def {name}({', '.join(params + ['out'])}):\n"
            "    i = api.grid(1)\n"
            "    stride = api.gridsize(1)\n"
            "    n = out.shape[0]\n"
            "    while i < n:\n"
            f"        out[i] = core({items})\n"
            "        i += stride\n")


def _strided_source(name: str, scalars: tuple[bool, ...], ndim: int) -> str:
    params = [f"a{k}" for k in range(len(scalars))]
    lines = [f"def {name}({', '.join(params + ['out'])}):",
             "    i = api.grid(1)",
             "    stride = api.gridsize(1)",
             "    n = out.size"]
    for axis in range(1, ndim):
        lines.append(f"    e{axis} = out.shape[{axis}]")
    for p, s in zip(params, scalars):
        if not s:
            lines.extend(f"    {p}_last{axis} = {p}.shape[{axis}] - 1" for axis in range(ndim))
    lines += ["    while i < n:", "        r = i"]
    for axis in range(ndim - 1, 0, -1):
        lines += [f"        j{axis} = r % e{axis}", f"        r = r // e{axis}"]
    lines.append("        j0 = r")
    items = []
    for p, s in zip(params, scalars):
        if s:
            items.append(p)
        else:
            index = ", ".join(f"min(j{axis}, {p}_last{axis})" for axis in range(ndim))
            items.append(f"{p}[{index}]")
    out_index = ", ".join(f"j{axis}" for axis in range(ndim))
    lines += [f"        out[{out_index}] = core({', '.join(items)})",
              "        i += stride"]
    return "\n".join(lines) + "\n"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, complex, np.number, np.bool_)) and not isinstance(
        value, np.ndarray)


class CUDAUFunc:
    """What cuda.vectorize returns: call it like a NumPy ufunc."""

    def __init__(self, py_func: Callable[..., Any], signatures: list[t.Signature],
                 identity: Any = None) -> None:
        self.py_func = getattr(py_func, "py_func", py_func)
        self.__name__ = self.py_func.__name__
        self.__doc__ = self.py_func.__doc__
        self.identity = identity
        self._signatures = list(signatures)  # what pickle sends, with the function
        self._core = core_function(py_func)
        self.nin = len(self._core.parsed.arg_names)
        self.nout = 1
        self.nargs = self.nin + 1
        # input dtypes -> result dtype, in the order given (Numba's kernelmap)
        self.types_map: dict[tuple[np.dtype, ...], np.dtype] = {}
        for sig in signatures:
            if len(sig.args) != self.nin:
                raise TypeError(f"vectorize {self.__name__}: the signature "
                                f"{format_signature(sig)} has {len(sig.args)} argument(s); "
                                f"the function takes {self.nin}")
            for arg in sig.args:
                if not isinstance(arg, t.Scalar):
                    raise TypeError(f"vectorize {self.__name__}: signatures take numbers, "
                                    f"as in 'float32(float32, float32)'; got {arg}")
            returned = sig.return_type
            if returned is None or returned is t.none:
                returned = return_type_of(self._core, tuple(sig.args))
            else:
                return_type_of(self._core, tuple(sig.args))  # typing errors now, as Numba
            self.types_map[tuple(numpy_dtype(a) for a in sig.args)] = self._result_dtype(
                returned, sig.args)
        self.lazy = not signatures
        self._kernels: dict[Any, Dispatcher] = {}
        self._no_numbers = (False,) * self.nin
        self._result_names: dict[tuple[np.dtype, ...], tuple[np.dtype, str]] = {}

    def _result_dtype(self, returned: t.Type, args: Any) -> np.dtype:
        if not isinstance(returned, t.Scalar):
            raise TypeError(f"vectorize {self.__name__}({', '.join(map(str, args))}): the "
                            f"function returns {returned}; a ufunc returns one number")
        return numpy_dtype(returned)

    @property
    def types(self) -> list[str]:
        return ["".join(d.char for d in k) + "->" + v.char for k, v in self.types_map.items()]

    @property
    def ntypes(self) -> int:
        return len(self.types_map)

    def __repr__(self) -> str:
        return f"<cudakit CUDA ufunc '{self.__name__}'>"

    def __reduce__(self) -> Any:
        """As @cuda.jit kernels pickle (see kernel_pickling): by reference, or
        as its function and signatures."""
        from .kernel_pickling import rebuild_ufunc, reduce_kernel_object
        return reduce_kernel_object(self, rebuild_ufunc, (
            type(self), self._core, self._signatures, self.identity))

    # ---- type resolution ------------------------------------------------------------------
    def _resolve(self, dtypes: list[np.dtype | None], values: tuple[Any, ...]
                 ) -> tuple[tuple[np.dtype, ...], np.dtype]:
        """The input dtypes to run with and the result dtype; None in
        `dtypes` marks a number."""
        own = [d if d is not None else np.asarray(v).dtype for d, v in zip(dtypes, values)]
        if self.lazy:
            key = tuple(own)
            if key not in self.types_map:
                arg_types = tuple(t.from_dtype(d) for d in key)
                self.types_map[key] = self._result_dtype(
                    return_type_of(self._core, arg_types), arg_types)
            return key, self.types_map[key]
        if tuple(own) in self.types_map:
            return tuple(own), self.types_map[tuple(own)]
        matches = [k for k in self.types_map
                   if all(d is None or d == want for d, want in zip(dtypes, k))]
        if len(matches) == 1:
            return matches[0], self.types_map[matches[0]]
        given = ", ".join(str(d) if d is not None else f"{type(v).__name__} {v!r}"
                          for d, v in zip(dtypes, values))
        available = "; ".join(f"{', '.join(map(str, k))} -> {v}"
                              for k, v in self.types_map.items())
        if matches:
            raise TypeError(f"{self.__name__}: the numbers in ({given}) fit several "
                            f"signatures ({available}); give them a dtype "
                            "(np.float32(x)) to choose")
        raise TypeError(f"{self.__name__}: no signature for arguments of dtypes ({given}); "
                        f"it was compiled for: {available}. A CUDA ufunc needs arrays of "
                        "exactly a signature's dtypes (Numba's rule, NumPy's casting='no'): "
                        "convert with a.astype(...), or add a signature")

    # ---- call -------------------------------------------------------------------------------
    def __call__(self, *args: Any, out: Any = None, stream: Any = 0, **kwargs: Any) -> Any:
        if out is None and not kwargs and len(args) == self.nin:
            result = self._call_contiguous_device(args, stream)
            if result is not None:
                return result
        if kwargs:
            raise TypeError(f"{self.__name__}() got unexpected keyword argument(s) "
                            f"{', '.join(sorted(kwargs))} (a CUDA ufunc takes out= and stream=)")
        if len(args) == self.nin + 1 and out is None:
            args, out = args[:-1], args[-1]
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} input argument"
                            f"{'s' if self.nin != 1 else ''} (and optionally the output), "
                            f"{len(args)} given")
        numbers = tuple(_is_number(a) for a in args)
        inputs: list[Any] = []
        for value, number in zip(args, numbers):
            if number:
                inputs.append(value)
            elif is_device(value):
                inputs.append(as_device(value))
            else:
                inputs.append(np.asarray(value))
        any_device = any(isinstance(a, DeviceNDArray) for a in inputs)
        dtypes = [None if n else a.dtype for a, n in zip(inputs, numbers)]
        in_dtypes, result_dtype = self._resolve(dtypes, args)
        shapes = [a.shape for a, n in zip(inputs, numbers) if not n]
        try:
            shape = tuple(np.broadcast_shapes(*shapes)) if shapes else (1,)
        except ValueError:
            raise ValueError(f"{self.__name__}: the argument shapes "
                             f"{', '.join(map(str, shapes))} do not broadcast together "
                             "(NumPy's rule: axes match from the right, or one is 1)") from None
        if out is not None and is_device(out):
            out = as_device(out)  # another library's array: a view of it (Numba returns that)
        if out is not None:
            out_shape = tuple(out.shape)
            if not _broadcastable(shape, out_shape):
                raise ValueError(f"{self.__name__}: out= has shape {out_shape}; the result "
                                 f"has shape {shape}")
            shape = out_shape
            if np.dtype(out.dtype) != result_dtype:
                raise TypeError(f"{self.__name__}: out= has dtype {np.dtype(out.dtype)}; the "
                                f"result of these arguments is {result_dtype} (pass an out "
                                f"array of {result_dtype})")
        # Inputs on the device, in the signature's dtypes.
        staged: list[Any] = []
        for value, number, want in zip(inputs, numbers, in_dtypes):
            if number:
                staged.append(want.type(value))
            elif isinstance(value, DeviceNDArray):
                staged.append(value)
            else:
                host = value if value.dtype == want else value.astype(want)
                staged.append(to_device(host, stream))
        if out is not None and is_device(out):
            device_out = as_device(out)
        else:
            device_out = device_array(shape, result_dtype, stream=stream)
        self._launch(staged, numbers, device_out, stream)
        if out is not None:
            if is_device(out):
                return out
            device_out.copy_to_host(out)
            return out
        return device_out if any_device else device_out.copy_to_host()

    def _call_contiguous_device(self, args: tuple[Any, ...], stream: Any) -> Any:
        """The common call, without the general path's work: device arrays
        of one shape, all C-contiguous, of a signature's dtypes, after the
        first such call compiled the kernel. None where that does not hold
        (the general path then handles the call, errors included)."""
        kernel = self._kernels.get(("flat", self._no_numbers))
        first = args[0]
        if kernel is None or type(first) is not DeviceNDArray:
            return None
        shape = first.shape
        for value in args:
            if (type(value) is not DeviceNDArray or value.shape != shape
                    or value._type.layout != "C"):  # type: ignore[attr-defined]
                return None
        result = self._result_of.get(tuple(value.dtype for value in args))
        if result is None or not shape:
            return None
        result_dtype, result_name = result
        if result_dtype.names is not None:
            return None
        out = DeviceNDArray(_core.JitArray.empty(list(shape), result_name, False), result_dtype,
                            stream)
        count = out.size
        if count == 0:
            return out
        if len(shape) == 1:
            call_args = [*args, out]
        else:
            call_args = [value.reshape(count) for value in (*args, out)]
        blocks, threads = launch_shape(count)
        kernel[blocks, threads, stream](*call_args)
        return out

    @property
    def _result_of(self) -> dict[tuple[np.dtype, ...], tuple[np.dtype, str]]:
        """types_map with each result's dtype name (read once, not per call)."""
        if len(self._result_names) != len(self.types_map):
            self._result_names = {key: (value, value.name)
                                  for key, value in self.types_map.items()}
        return self._result_names

    def _launch(self, staged: list[Any], numbers: tuple[bool, ...], out: DeviceNDArray,
                stream: Any) -> None:
        count = out.size
        if count == 0:
            return
        arrays = [a for a, n in zip(staged, numbers) if not n]
        shape = out.shape
        order = None
        if all(a.shape == shape for a in arrays):
            if out.is_c_contiguous() and all(a.is_c_contiguous() for a in arrays):
                order = "C"
            elif out.is_f_contiguous() and all(a.is_f_contiguous() for a in arrays):
                order = "F"
        if order is not None or len(shape) <= 1:
            flat = (lambda a: a if a.shape == (count,) else a.reshape(count, order=order)
                    ) if order else (
                lambda a: with_shape(a, (count,)))
            key = ("flat", numbers)
            call_args = [a if n else flat(a) for a, n in zip(staged, numbers)] + [flat(out)]
        else:
            ndim = len(shape)
            key = ("strided", numbers, ndim)
            call_args = [a if n else with_shape(a, (1,) * (ndim - a.ndim) + a.shape)
                         for a, n in zip(staged, numbers)] + [out]
        kernel = self._kernels.get(key)
        if kernel is None:
            name = "ufunc_" + "".join(c if c.isalnum() else "_" for c in self.__name__)
            source = (_flat_source(name, numbers) if key[0] == "flat"
                      else _strided_source(name, numbers, key[2]))
            kernel = self._kernels[key] = make_kernel(source, name, {"core": self._core})
        blocks, threads = launch_shape(count)
        kernel[blocks, threads, stream](*call_args)

    # ---- reduce ------------------------------------------------------------------------------
    def reduce(self, arg: Any, stream: Any = 0) -> Any:
        """Folds a 1-d array with the (binary) function: one kernel (a tree
        in each block, the blocks' partials folded on the host), as
        numba-cuda's ufunc.reduce gives (the array's dtype)."""
        if self.nin != 2:
            raise TypeError(f"{self.__name__}.reduce: only binary ufuncs reduce; this one takes "
                            f"{self.nin} input(s)")
        values = as_device(arg) if is_device(arg) else None
        host = None if values is not None else np.asarray(arg)
        ndim = values.ndim if values is not None else host.ndim  # type: ignore[union-attr]
        if ndim != 1:
            raise ValueError(f"{self.__name__}.reduce: takes a 1-d array, got a {ndim}-d one "
                             "(ravel() it first)")
        dtype = values.dtype if values is not None else host.dtype  # type: ignore[union-attr]
        size = values.size if values is not None else host.size  # type: ignore[union-attr]
        if size == 0:
            raise TypeError("Reduction on an empty array.")
        self._resolve([dtype, dtype], (None, None))
        if size == 1:
            return values[0] if values is not None else host[0]  # type: ignore[index]
        if values is None:
            values = to_device(host, stream)
        from .reduction import _THREADS as reduce_threads, _make_kernel
        kernel = self._kernels.get(("reduce", dtype))
        if kernel is None:
            kernel = self._kernels[("reduce", dtype)] = _make_kernel(self._core, dtype.type)
        blocks = max(1, min(64, (size + reduce_threads - 1) // reduce_threads))
        partials = device_array(blocks, dtype, stream=stream)
        flags = device_array(blocks, np.int32, stream=stream)
        kernel[blocks, reduce_threads, stream](values, partials, flags)
        result = None
        for value, flag in zip(partials.copy_to_host(), flags.copy_to_host()):
            if flag:
                result = value if result is None else dtype.type(self.py_func(result, value))
        return result


def _broadcastable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return tuple(np.broadcast_shapes(shape, target)) == tuple(target)
    except ValueError:
        return False


def vectorize(ftylist_or_function: Any = (), target: str = "cuda", identity: Any = None,
              cache: bool = False, **options: Any) -> Any:
    """@vectorize(['float32(float32, float32)', ...]) or @vectorize (lazy):
    a CUDA ufunc (Numba's cuda.vectorize / vectorize(..., target='cuda'))."""
    check_target(target, "vectorize")
    if cache:
        raise TypeError("caching is not supported")
    if "nopython" in options:  # (kernels are always compiled without Python objects)
        options.pop("nopython")
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning,
                      stacklevel=2)
    if options:
        raise KeyError("Unrecognized options. cuda vectorize target does not support option: "
                       f"'{next(iter(options))}'")
    if callable(ftylist_or_function) and not isinstance(ftylist_or_function,
                                                        (str, t.Signature, t.Type)):
        return CUDAUFunc(ftylist_or_function, [], identity)
    signatures = signature_list(ftylist_or_function)

    def decorate(func: Callable[..., Any]) -> CUDAUFunc:
        return CUDAUFunc(func, signatures, identity)

    return decorate
