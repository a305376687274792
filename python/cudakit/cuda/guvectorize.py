"""Generalized GPU ufuncs: `cuda.guvectorize` (Numba's
`@guvectorize(sigs, '(m,n),(n)->(m)', target='cuda')`).

The layout names the core dimensions of each argument; the dimensions in
front of them are the loop. Each call runs ONE generated kernel, a
grid-stride loop over the loop dimensions (flattened) that hands the
function the core views of its arguments (`a[i]`); an input whose loop
dimensions have one element (or none) is read by every iteration, as in
Numba. Outputs are allocated for the schedule, or given (`out=` or as the
trailing positional arguments); results are NumPy arrays for host inputs
and device arrays when any input is one.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

import numpy as np

from .device_array import DeviceNDArray, device_array, to_device
from .translate import types as t
from .vectorize import (
    as_device, check_target, core_function, format_signature, is_device, launch_shape,
    make_kernel, numpy_dtype, signature_list)

_GROUP = re.compile(r"\(([A-Za-z_]\w*(?:,[A-Za-z_]\w*)*)?,?\)")


def parse_layout(layout: Any) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """'(m,n),(n)->(m)' as ([('m','n'), ('n',)], [('m',)]); ValueError naming
    what is wrong, NameError for an output dimension no input has (Numba)."""
    if not isinstance(layout, str):
        raise TypeError(f"guvectorize: the layout is a string such as '(m,n),(n)->(m)', got "
                        f"{type(layout).__name__} {layout!r}")
    text = "".join(layout.split())
    sides = text.split("->")
    if len(sides) != 2:
        raise ValueError(f"guvectorize: bad layout {layout!r}: it needs one '->' between the "
                         "inputs and the outputs, as in '(m,n),(n)->(m)'")

    def groups(side: str, what: str) -> list[tuple[str, ...]]:
        found: list[tuple[str, ...]] = []
        at = 0
        while at < len(side):
            match = _GROUP.match(side, at)
            if match is None:
                raise ValueError(f"guvectorize: bad layout {layout!r}: the {what} must be "
                                 "groups of dimension names in parentheses separated by "
                                 f"commas, as in '(m,n),(n)' (stuck at {side[at:]!r})")
            found.append(tuple(match.group(1).split(",")) if match.group(1) else ())
            at = match.end()
            if at < len(side):
                if side[at] != ",":
                    raise ValueError(f"guvectorize: bad layout {layout!r}: expected ',' "
                                     f"between groups at {side[at:]!r}")
                at += 1
        if not found:
            raise ValueError(f"guvectorize: bad layout {layout!r}: no {what}")
        return found

    inputs, outputs = groups(sides[0], "inputs"), groups(sides[1], "outputs")
    known = {name for group in inputs for name in group}
    undefined = sorted({name for group in outputs for name in group} - known)
    if undefined:
        raise NameError(f"undefined output symbols: {','.join(undefined)} (in the layout "
                        f"{layout!r}, every output dimension must be an input's too)")
    return inputs, outputs


def _kernel_source(name: str, kinds: tuple[str, ...], nin: int) -> str:
    """kinds: 'array' (core view a[i]), 'scalar' (a[i] is a number) or
    'element' (a 1-element view a[i:i+1] for a '()' argument typed as an
    array, Numba's old style)."""
    params = [f"a{k}" for k in range(len(kinds))]
    lines = [f"def {name}({', '.join(params)}):",
             "    i = api.grid(1)",
             "    stride = api.gridsize(1)",
             f"    n = a{nin}.shape[0]"]
    lines += [f"    a{k}_last = a{k}.shape[0] - 1" for k in range(nin)]
    lines += ["    while i < n:"]
    items = []
    for k, kind in enumerate(kinds):
        j = f"j{k}" if k < nin else "i"
        if k < nin:
            lines.append(f"        j{k} = min(i, a{k}_last)")
        items.append(f"a{k}[{j}:{j} + 1]" if kind == "element" else f"a{k}[{j}]")
    lines += [f"        core({', '.join(items)})", "        i += stride"]
    return "\n".join(lines) + "\n"


class _Variant:
    """One signature: its input and output dtypes and how each argument is indexed."""

    def __init__(self, in_dtypes: tuple[np.dtype, ...], out_dtypes: tuple[np.dtype, ...],
                 kinds: tuple[str, ...], text: str) -> None:
        self.in_dtypes = in_dtypes
        self.out_dtypes = out_dtypes
        self.kinds = kinds
        self.text = text


class CUDAGUFunc:
    """What cuda.guvectorize returns: call it like a NumPy generalized ufunc."""

    def __init__(self, py_func: Callable[..., Any], signatures: list[t.Signature],
                 layout: str, identity: Any = None) -> None:
        self.py_func = getattr(py_func, "py_func", py_func)
        self.__name__ = self.py_func.__name__
        self.__doc__ = self.py_func.__doc__
        self.layout = layout
        self.identity = identity
        self._signatures = list(signatures)  # what pickle sends, with the function
        self.inputsig, self.outputsig = parse_layout(layout)
        self.nin, self.nout = len(self.inputsig), len(self.outputsig)
        self._core = core_function(py_func)
        nparams = len(self._core.parsed.arg_names)
        if nparams != self.nin + self.nout:
            raise TypeError(f"guvectorize {self.__name__}: the layout {layout!r} has "
                            f"{self.nin} input(s) and {self.nout} output(s); the function "
                            f"takes {nparams} argument(s)")
        self.variants = [self._variant(sig) for sig in signatures]
        self.lazy = not signatures
        self._kernels: dict[tuple[str, ...], Any] = {}

    def __reduce__(self) -> Any:
        """As @cuda.jit kernels pickle (see kernel_pickling): by reference, or
        as its function, signatures and layout."""
        from .kernel_pickling import rebuild_ufunc, reduce_kernel_object
        return reduce_kernel_object(self, rebuild_ufunc, (
            type(self), self._core, self._signatures, self.layout, self.identity))

    def _variant(self, sig: t.Signature) -> _Variant:
        text = format_signature(sig)
        if sig.return_type not in (None, t.none):
            raise TypeError(f"guvectorized functions cannot return values: signature {text} "
                            f"specifies {sig.return_type} return type")
        if len(sig.args) != self.nin + self.nout:
            raise TypeError(f"guvectorize {self.__name__}: the signature {text} has "
                            f"{len(sig.args)} argument(s); the layout {self.layout!r} has "
                            f"{self.nin + self.nout}")
        kinds = []
        for k, (arg, dims) in enumerate(zip(sig.args, self.inputsig + self.outputsig)):
            if isinstance(arg, t.ArrayT):
                if arg.ndim == len(dims):
                    kinds.append("array")
                elif arg.ndim == 1 and not dims:
                    kinds.append("element")
                else:
                    raise TypeError(f"guvectorize {self.__name__}: argument {k} of {text} is "
                                    f"{arg.ndim}-d; the layout gives it {len(dims)} core "
                                    f"dimension(s) {dims}")
            elif isinstance(arg, t.Scalar):
                if dims:
                    raise ValueError("gufunc signature mismatch: ndim>0 for scalar (argument "
                                     f"{k} of {text} is a number, the layout gives it {dims})")
                if k >= self.nin:
                    raise TypeError(f"guvectorize {self.__name__}: output {k} of {text} is a "
                                    "number; outputs are arrays (write '()' outputs as "
                                    "float32[:] and set out[0])")
                kinds.append("scalar")
            else:
                raise TypeError(f"guvectorize {self.__name__}: argument {k} of {text}: {arg} "
                                "is neither an array nor a number")
        dtypes = [numpy_dtype(a.dtype if isinstance(a, t.ArrayT) else a) for a in sig.args]
        described = (f"({', '.join(map(str, dtypes[:self.nin]))}) -> "
                     f"({', '.join(map(str, dtypes[self.nin:]))})")
        return _Variant(tuple(dtypes[:self.nin]), tuple(dtypes[self.nin:]), tuple(kinds),
                        described)

    def __repr__(self) -> str:
        return f"<cudakit CUDA gufunc '{self.__name__}' {self.layout}>"

    # ---- arguments ---------------------------------------------------------------------
    def _arguments(self, args: tuple[Any, ...], out: Any) -> tuple[list[Any], list[Any]]:
        nin, nout = self.nin, self.nout
        if out is None and len(args) not in (nin, nin + nout):
            def count(n: int) -> str:
                return f"{n} positional argument{'s' * (n != 1)}"
            raise TypeError(f"This gufunc accepts {count(nin)} (when providing input only) or "
                            f"{count(nin + nout)} (when providing input and output). Got "
                            f"{count(len(args))}.")
        if out is not None and len(args) > nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        if out is None:
            outputs = list(args[nin:]) or [None] * nout
        elif nout > 1 and isinstance(out, tuple):
            outputs = list(out)
        else:
            outputs = [out] * nout if nout == 1 else [out] + [None] * (nout - 1)
        inputs = [as_device(a) if is_device(a) else np.asarray(a) for a in args[:nin]]
        outputs = [as_device(o) if o is not None and is_device(o) else o for o in outputs]
        return inputs, outputs

    def _schedule(self, inputs: list[Any]) -> tuple[tuple[int, ...], list[tuple[int, ...]],
                                                   list[tuple[int, ...]]]:
        sizes: dict[str, tuple[int, int, int]] = {}  # name -> (extent, argument, axis)
        outers = []
        for k, (value, dims) in enumerate(zip(inputs, self.inputsig)):
            shape = tuple(value.shape)
            if len(shape) < len(dims):
                raise ValueError(f"{self.__name__}: argument {k} has shape {shape}; the layout "
                                 f"{self.layout!r} gives it the core dimensions "
                                 f"({','.join(dims)}), so it needs at least {len(dims)} "
                                 "dimension(s)")
            outer = shape[:len(shape) - len(dims)]
            for axis, (name, extent) in enumerate(zip(dims, shape[len(outer):])):
                seen = sizes.get(name)
                if seen is not None and seen[0] != extent:
                    raise ValueError(f"{self.__name__}: dimension '{name}' of the layout "
                                     f"{self.layout!r} is {seen[0]} in argument {seen[1]} (axis "
                                     f"{seen[2]}) but {extent} in argument {k} (axis "
                                     f"{len(outer) + axis})")
                sizes.setdefault(name, (extent, k, len(outer) + axis))
            outers.append(outer)
        loop = max(outers, key=lambda s: math.prod(s))
        for k, outer in enumerate(outers):
            if outer != loop and math.prod(outer) != 1:
                raise ValueError(f"{self.__name__}: argument {k} has loop dimensions {outer}; "
                                 f"they must be {loop} (as the largest argument's) or hold one "
                                 "element")
        core_out = [tuple(sizes[name][0] for name in dims) for dims in self.outputsig]
        return loop, outers, core_out

    def _choose(self, in_dtypes: tuple[np.dtype, ...], outputs: list[Any]) -> _Variant:
        if self.lazy:
            if any(o is None for o in outputs):
                raise TypeError(f"{self.__name__}: a guvectorize without signatures needs its "
                                "output arrays (out= or trailing arguments) to know their "
                                "dtypes; pass them, or give signatures")
            kinds = tuple(["scalar" if not dims else "array" for dims in self.inputsig]
                          + ["element" if not dims else "array" for dims in self.outputsig])
            return _Variant(in_dtypes, tuple(np.dtype(o.dtype) for o in outputs), kinds,
                            "(lazy)")
        for variant in self.variants:
            if variant.in_dtypes == in_dtypes:
                return variant
        for variant in self.variants:
            if all(np.can_cast(d, want, "same_kind")
                   for d, want in zip(in_dtypes, variant.in_dtypes)):
                return variant
        available = "; ".join(v.text for v in self.variants)
        raise TypeError(f"{self.__name__}: no signature for inputs of dtypes "
                        f"({', '.join(map(str, in_dtypes))}); it was compiled for: "
                        f"{available}. Convert the inputs with a.astype(...) or add a signature")

    # ---- call ------------------------------------------------------------------------------
    def __call__(self, *args: Any, out: Any = None, stream: Any = 0, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"{self.__name__}() got unexpected keyword argument(s) "
                            f"{', '.join(sorted(kwargs))} (a CUDA gufunc takes out= and "
                            "stream=)")
        inputs, outputs = self._arguments(args, out)
        any_device = any(isinstance(a, DeviceNDArray) for a in inputs)
        to_host = not any_device and not any(isinstance(o, DeviceNDArray) for o in outputs)
        loop, outers, core_out = self._schedule(inputs)
        variant = self._choose(tuple(np.dtype(a.dtype) for a in inputs), outputs)
        loopn = math.prod(loop)
        staged = []
        for k, (value, outer, want) in enumerate(zip(inputs, outers, variant.in_dtypes)):
            rows = loopn if outer == loop else 1
            core_shape = tuple(value.shape[len(outer):])
            if isinstance(value, DeviceNDArray):
                if value.dtype != want:
                    raise TypeError(f"{self.__name__}: argument {k} is a device array of "
                                    f"{value.dtype} and the signature {variant.text} takes "
                                    f"{want}; compatible signature is possible by casting but "
                                    f"{type(value).__name__} does not support .astype(): "
                                    f"convert it before the copy to the device")
                staged.append(_rows(value, rows, core_shape))
            else:
                host = np.ascontiguousarray(value, dtype=want).reshape((rows, *core_shape))
                staged.append(to_device(host, stream))
        results = []
        for k, (given, core_shape, want) in enumerate(zip(outputs, core_out,
                                                          variant.out_dtypes)):
            shape = tuple(loop) + core_shape
            if given is not None:
                if tuple(given.shape) != shape:
                    raise ValueError(f"{self.__name__}: output {k} has shape "
                                     f"{tuple(given.shape)}; the layout {self.layout!r} with "
                                     f"these inputs gives {shape}")
                if np.dtype(given.dtype) != want:
                    raise TypeError(f"{self.__name__}: output {k} has dtype {given.dtype}; the "
                                    f"signature {variant.text} writes {want}")
            device = given if isinstance(given, DeviceNDArray) else device_array(
                shape, want, stream=stream)
            results.append(device)
        if loopn > 0:
            call = staged + [_rows(r, loopn, core) for r, core in zip(results, core_out)]
            kernel = self._kernels.get(variant.kinds)
            if kernel is None:
                name = f"gufunc_{self.__name__}"
                kernel = self._kernels[variant.kinds] = make_kernel(
                    _kernel_source(name, variant.kinds, self.nin), name, {"core": self._core})
            blocks, threads = launch_shape(loopn)
            kernel[blocks, threads, stream](*call)
        final = []
        for given, device in zip(outputs, results):
            if isinstance(given, np.ndarray):
                device.copy_to_host(given)
                final.append(given)
            elif to_host:
                final.append(device.copy_to_host())
            else:
                final.append(device)
        return final[0] if len(final) == 1 else tuple(final)


def _rows(value: DeviceNDArray, rows: int, core_shape: tuple[int, ...]) -> DeviceNDArray:
    """`value` as (rows, *core_shape): its loop dimensions flattened (a copy
    when its strides cannot be flattened)."""
    shape = (rows, *core_shape)
    if tuple(value.shape) == shape:
        return value
    try:
        return value.reshape(shape)
    except Exception:  # noqa: BLE001 (strided: flatten a contiguous copy)
        return to_device(np.ascontiguousarray(value.copy_to_host()).reshape(shape))


def guvectorize(*args: Any, target: str = "cuda", identity: Any = None, cache: bool = False,
                **options: Any) -> Any:
    """@guvectorize(signatures, layout) or @guvectorize(layout) (lazy: outputs
    passed): a CUDA generalized ufunc."""
    check_target(target, "guvectorize")
    if cache:
        raise TypeError("caching is not supported")
    if not options.pop("nopython", True):
        raise TypeError("nopython flag must be True")
    options.pop("is_dynamic", None)
    options.pop("writable_args", None)
    if options:
        raise TypeError("The following target options are not supported: "
                        + ", ".join(repr(k) for k in options))
    if len(args) == 1:
        signatures, layout = [], args[0]
    elif len(args) == 2:
        signatures, layout = signature_list(args[0]), args[1]
    else:
        raise TypeError("guvectorize() takes one or two positional arguments")
    parse_layout(layout)

    def decorate(func: Callable[..., Any]) -> CUDAGUFunc:
        return CUDAGUFunc(func, signatures, layout, identity)

    return decorate
