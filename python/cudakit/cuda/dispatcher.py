"""@cuda.jit: a Python function, its specializations by argument types, and
the launch `kernel[grid, block, stream, sharedmem](args)`."""

from __future__ import annotations

import ast
import enum
import re
import warnings
from collections import Counter
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from .. import _core
from .._core import KernelFault
from .._pickling import refuse_pickle
from . import config, launchconfig, overload_resolution
from . import config as cuda_config  # (where a parameter named config hides it)
from .args import ArgHint
from .cudadrv.driver import CudaAPIError
from .device_array import (DeviceNDArray, from_cuda_array_interface, from_gpuarray, to_device,
                           wait_for_interface_stream)
from .launch_parameters import _dim3, _shared_bytes, _stream_handle
from .mapped_memory import MappedNDArray
from .specialization import _Specialization
from .translate import types as t
from .translate.errors import SourceLocation, TypingError
from .translate.parse import ParsedFunction, parse_function
from .translate.program import Program
from .translate.typing import KernelTranslation, translate_device, translate_kernel

_FAST_TYPES: dict[type, t.Type] = {int: t.intern(t.int64), float: t.intern(t.float64),
                                   bool: t.intern(t.boolean)}
# NumPy scalars keep their type (np.float32(2.5) is a float32 argument).
for _name, _scalar in t.SCALARS.items():
    _FAST_TYPES[np.dtype("bool" if _name == "boolean" else _name).type] = t.intern(_scalar)


_FAST_TYPE_IDS = {py_type: id(ty) for py_type, ty in _FAST_TYPES.items()}


class BlockTooLarge(CudaAPIError, ValueError):
    """A launch of more threads per block than the kernel allows: what the
    driver's launch reports (CUDA_ERROR_INVALID_VALUE), raised before it."""


class NumbaPerformanceWarning(UserWarning):
    """Work that runs but costs more than it needs to (Numba's name)."""


class _RecordCopyBack:
    """Writes a record's device copy back into the NumPy record (a view
    into its array) after the launch, field by field."""

    def __init__(self, record: np.void) -> None:
        self.record = record

    def copy_to_host(self, device_copy: Any) -> None:
        result = device_copy.copy_to_host()[0]
        for name in self.record.dtype.names or ():
            self.record[name] = result[name]


def _record_argument(record: np.void, copy_back: list[Any]) -> int:
    """A single record passed to a kernel, as Numba passes it: by reference
    to a copy on the device, whose changes come back after the launch."""
    host = np.empty(1, dtype=record.dtype)
    host[0] = record
    device_copy = to_device(host)
    copy_back.append((_RecordCopyBack(record), device_copy))
    return int(device_copy.__cuda_array_interface__["data"][0])


_RAISED = re.compile(r'(\w+)(?:\((.*?)\))? raised in (\w+) \(File "([^"]*)", line (\d+)\) '
                     r"in block \((\d+),(\d+),(\d+)\), thread \((\d+),(\d+),(\d+)\)")


def _user_exception(fault: Exception, classes: dict[str, type]) -> BaseException | None:
    """The program's own exception a debug kernel raised, with Numba's
    message ("In function 'f', file F, line N: tid=[x, y, z] ctaid=[x, y, z]:
    args"), or None when the fault is not one."""
    found = _RAISED.search(str(fault))
    if found is None or found.group(1) not in classes:
        return None
    name, args, function, filename, line = found.groups()[:5]
    block, thread = found.groups()[5:8], found.groups()[8:11]
    message = (f"In function '{function}', file {filename}, line {line}: "
               f"tid=[{', '.join(thread)}] ctaid=[{', '.join(block)}]")
    if args:
        try:
            args = str(ast.literal_eval(args))
        except (ValueError, SyntaxError):
            pass
        message += f": {args}"
    try:
        return classes[name](message)
    except Exception:  # a class whose constructor takes other arguments
        return None


def _on_cpu_backend(measured: int, translated: int) -> int:
    """The driver's measure on a GPU; the translation's count on the CPU."""
    return translated if _core._backend() == "cpu" else measured


def _warn_on_low_occupancy(grid: tuple[int, int, int]) -> None:
    """Numba's NumbaPerformanceWarning for a grid of fewer than 128 blocks
    (config.CUDA_LOW_OCCUPANCY_WARNINGS): Numba's fixed threshold, about
    twice the multiprocessors of a large GPU, the same on every device."""
    blocks = grid[0] * grid[1] * grid[2]
    if blocks < 128:
        warnings.warn(NumbaPerformanceWarning(
            f"Grid size {blocks} will likely result in GPU under-utilization due to low "
            "occupancy."), stacklevel=3)  # (the kernel[grid, block] line)


def _flattened(args: tuple[Any, ...], arg_types: tuple[t.Type, ...]
               ) -> tuple[tuple[Any, ...], tuple[t.Type, ...]]:
    """The launch's arguments with each tuple replaced by its items, nested
    tuples too (as t.tuple_leaves orders the kernel's parameters)."""
    if not any(isinstance(ty, t.TupleT) for ty in arg_types):
        return args, arg_types
    values: list[Any] = []
    types: list[t.Type] = []

    def add(value: Any, ty: t.Type) -> None:
        if isinstance(ty, t.TupleT):
            for item, item_type in zip(value, ty.items):
                add(item, item_type)
        else:
            values.append(value)
            types.append(ty)

    for value, ty in zip(args, arg_types):
        add(value, ty)
    return tuple(values), tuple(types)


_DEVICE_COUNT: list[int] = []


def _several_devices() -> bool:
    if not _DEVICE_COUNT:
        _DEVICE_COUNT.append(_core.jit_device_count())
    return _DEVICE_COUNT[0] > 1


class _OnDevice:
    """A dispatcher's compiled kernels on one device (a module belongs to the
    device it was loaded on; the translations are shared by all devices)."""

    def __init__(self) -> None:
        self.specializations: dict[tuple[t.Type, ...], _Specialization] = {}
        # (id of each argument's interned type) -> specialization: the hot path.
        self.by_type_ids: dict[tuple[int, ...], _Specialization] = {}
        # The same keys -> the compiled JitKernel, read by the C++ launcher.
        self.kernel_table: dict[tuple[int, ...], Any] = {}
        self.launchers: dict[Any, Any] = {}


class Dispatcher:
    """What @cuda.jit returns: a kernel (launch with [grid, block]) or, with
    device=True, a device function callable from kernels."""

    def __init__(self, py_func: Callable[..., Any], signatures: list[t.Signature] | None = None,
                 device: bool = False, **options: Any) -> None:
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self.device = device
        self.options = options
        self._signatures = list(signatures or [])  # the explicit ones
        # Numba's kernel extensions: objects whose prepare_args(ty, val,
        # stream=, retr=) may replace each argument before a launch.
        self.extensions: list[Any] = list(options.get("extensions") or [])
        self._devices: dict[int, _OnDevice] = {}  # by device ordinal
        # With one device: its launchers, which kernel[config] looks up first.
        self._warm_launchers: dict[Any, Any] = {}
        self._translations: dict[tuple[t.Type, ...], KernelTranslation] = {}
        self._parsed: ParsedFunction | None = None
        # Numba's kernel.stats: disk cache hits and misses by argument types.
        self.stats = SimpleNamespace(cache_hits=Counter(), cache_misses=Counter())
        # Once a compilation is marked launch-config sensitive: the (griddim,
        # blockdim, sharedmem) its kernels are for; other configurations
        # launch kernels of their own dispatchers (launch_config_variants).
        self._launch_config_key: tuple[Any, ...] | None = None
        self._launch_config_variants: dict[tuple[Any, ...], Dispatcher] = {}
        # Numba's: specialize()'s dispatchers by argument types; a dispatcher
        # given signatures, or made by specialize(), is itself specialized.
        self.specializations: dict[tuple[t.Type, ...], Dispatcher] = {}
        self._specialized = False
        if signatures and not device:
            for sig in signatures:
                self.compile(sig.args)

    def _on_device(self) -> _OnDevice:
        """The kernels of the device current on this thread."""
        # (One device, the common case: no need to ask which is current.)
        ordinal = _core.jit_current_device() if _several_devices() else 0
        state = self._devices.get(ordinal)
        if state is None:
            state = self._devices[ordinal] = _OnDevice()
        return state

    @property
    def overloads(self) -> dict[tuple[t.Type, ...], _Specialization]:
        """The compiled kernels by argument types (on the current device)."""
        return self._on_device().specializations

    @property
    def signatures(self) -> list[Any]:
        """The signatures given to cuda.jit, else the argument types of the
        kernels compiled so far (as Numba lists them)."""
        return list(self._signatures) if self._signatures else list(self.overloads)

    @property
    def specialized(self) -> bool:
        """Whether this dispatcher is for fixed argument types (made with
        signatures, or by specialize())."""
        return self._specialized

    # ---- translation ------------------------------------------------------------------
    @property
    def parsed(self) -> ParsedFunction:
        if self._parsed is None:
            self._parsed = parse_function(self.py_func)  # type: ignore[arg-type]
        return self._parsed

    def compile(self, arg_types: tuple[t.Type, ...]) -> _Specialization:
        state = self._on_device()
        spec = state.specializations.get(arg_types)
        if spec is None:
            translation = self._translations.get(arg_types)
            # Globals and closure variables are read now and frozen into
            # this specialization, as Numba does at compile time.
            if translation is not None:
                pass  # translated for another device already
            elif self.options.get("cache"):
                from .disk_cache import load_or_translate
                translation, from_disk = load_or_translate(
                    self.parsed, arg_types, self.options,
                    lambda: translate_kernel(self.parsed, arg_types, self.options))
                (self.stats.cache_hits if from_disk else self.stats.cache_misses)[
                    arg_types] += 1
            else:
                translation = translate_kernel(self.parsed, arg_types, self.options)
            self._translations[arg_types] = translation
            spec = _Specialization(translation, self.options)
            state.specializations[arg_types] = spec
        return spec

    def _device_specialization(self, program: Program, arg_types: tuple[t.Type, ...],
                               where: SourceLocation, node: ast.AST) -> tuple[str, t.Type]:
        declared_return = None
        if self._signatures:
            sigs = self._signatures
            best = overload_resolution.best_signatures(arg_types, sigs)
            if not best:
                raise TypingError(
                    f"Invalid use of type(device function {self.__name__}, compiled for "
                    f"{' or '.join(overload_resolution.types_text(s.args) for s in sigs)})"
                    f" with parameters ({', '.join(str(a) for a in arg_types)}): no signature "
                    "takes these types; convert the arguments or add a signature for them",
                    where, node)
            arg_types = tuple(best[0].args)  # (a tie: the first, as Numba)
            declared_return = best[0].return_type
        return translate_device(self.parsed, arg_types, program, (id(self), arg_types),
                                where, node, declared_return)

    # ---- launch -----------------------------------------------------------------------
    def __getitem__(self, config: Any) -> Any:
        # The warm path of kernel[grid, block](...) in a loop: a launcher made
        # before, when nothing asks for more (extensions, occupancy warnings).
        try:
            launcher = self._warm_launchers[config]
        except (KeyError, TypeError):  # (TypeError: an unhashable stream object)
            return self._configured(config)
        if self.extensions or cuda_config.CUDA_LOW_OCCUPANCY_WARNINGS:
            return self._configured(config)
        return launcher

    def _configured(self, config: Any) -> Any:
        if cuda_config.CUDA_LOW_OCCUPANCY_WARNINGS and not self.device \
                and not cuda_config.DISABLE_PERFORMANCE_WARNINGS \
                and isinstance(config, tuple) and config:
            _warn_on_low_occupancy(_dim3(config[0], "griddim"))
        if self.extensions:  # every launch goes through their prepare_args
            return self._configure(config)
        launchers = self._on_device().launchers
        try:
            launcher = launchers.get(config)
        except TypeError:  # an unhashable stream object
            launcher = None
        if launcher is not None:
            return launcher
        launcher = self._configure(config)
        if len(launchers) < 64:
            try:
                launchers[config] = launcher
            except TypeError:
                pass
        if not _several_devices():
            self._warm_launchers = launchers
        return launcher

    def _configure(self, config: Any) -> Any:
        if self.device:
            # Numba's class and words.
            raise RuntimeError(f"Cannot compile a device function as a kernel: "
                               f"{self.__name__} is a device function; call it from a kernel")
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("a launch takes kernel[griddim, blockdim] or kernel[griddim, "
                             f"blockdim, stream, sharedmem], got kernel[{config!r}]")
        grid = _dim3(config[0], "griddim")
        block = _dim3(config[1], "blockdim")
        stream = config[2] if len(config) > 2 else 0
        shared = _shared_bytes(config[3]) if len(config) > 3 else 0
        return self._launcher(grid, block, stream, shared)

    def _launcher(self, grid: tuple[int, int, int], block: tuple[int, int, int], stream: Any,
                  shared: int) -> Any:
        # The launcher holds the dispatcher, so `cuda.jit(f)[1, 1](...)`
        # works with no other reference to it; the dispatcher caches its
        # launchers, a cycle the garbage collector sees through the launcher's
        # traverse slot (bind_jit.cpp) and collects.
        def fallback(args: tuple[Any, ...]) -> None:
            self.launch(args, grid, block, stream, shared)

        if self.extensions or self.options.get("debug"):
            return lambda *args: fallback(args)

        table = self._on_device().kernel_table
        return _core.make_jit_launcher(fallback, table, DeviceNDArray, _FAST_TYPE_IDS,
                                       grid, block, shared, _stream_handle(stream))

    def __call__(self, *args: Any) -> Any:
        if self.device:
            return self.py_func(*args)  # host call of a device function: plain Python
        raise ValueError(f"{self.__name__} is a kernel and its launch configuration was not "
                         f"specified: launch it with {self.__name__}[griddim, blockdim](...)")

    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0,
               sharedmem: int = 0) -> Any:
        if int(ntasks) < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks} (the "
                             "number of threads to launch, 0 or more)")
        block = tpb or 128
        grid = max(1, (int(ntasks) + block - 1) // block)
        return self._launcher((grid, 1, 1), (block, 1, 1), stream, sharedmem)

    def specialize(self, *args: Any) -> "Dispatcher":
        """A dispatcher compiled for the types of `args` (values, or types
        such as float32[::1]) only, the same one for the same types."""
        types = tuple(a if isinstance(a, t.Type) else self._arg_type(a, i)
                      for i, a in enumerate(args))
        if self._specialized:
            raise RuntimeError(f"Dispatcher already specialized: {self.__name__} is compiled "
                               "for fixed argument types; specialize the dispatcher it came "
                               "from, or one without signatures")
        special = self.specializations.get(types)
        if special is None:
            special = Dispatcher(self.py_func, [t.Signature(t.none, types)], self.device,
                                 **self.options)
            special._specialized = True
            self.specializations[types] = special
        return special

    def _arg_type(self, value: Any, index: int) -> t.Type:
        if isinstance(value, ArgHint):  # cuda.In(a), cuda.Out(a): typed as `a`
            value = value.value
        if isinstance(value, DeviceNDArray):
            return value._type
        ty = t.typeof_value(value)
        if ty is None:
            raise TypingError(f"argument {index} of {self.__name__}: cannot pass "
                              f"{type(value).__name__} {value!r:.60} to a kernel (arrays, "
                              "device arrays and numbers are accepted)")
        return ty

    def _match_signature(self, arg_types: tuple[t.Type, ...]) -> tuple[t.Type, ...]:
        """With explicit signatures, the one the arguments fit best (Numba's
        overload resolution: overload_resolution's docstring)."""
        best = overload_resolution.best_signatures(arg_types, self._signatures)
        if len(best) == 1:
            return tuple(best[0].args)
        if best:
            raise TypeError(
                f"Ambiguous overloading for {self.py_func} "
                f"{overload_resolution.types_text(arg_types)}:\n" + "\n".join(
                    f"{overload_resolution.types_text(sig.args)} -> none" for sig in best[:2])
                + "\n  hint: pass arguments of one signature's exact types (e.g. "
                "np.float32(x)), or give signatures that do not tie")
        wanted = " or ".join("(" + ", ".join(str(a) for a in s.args) + ")"
                             for s in self._signatures)
        raise TypeError(f"No matching definition for argument type(s) "
                        f"{', '.join(str(a) for a in arg_types)} in {self.__name__}: it was "
                        f"compiled for {wanted}\n  hint: convert the data to the signature's "
                        f"types before the copy to the device (e.g. "
                        f"a.astype(np.float32): numpy makes float64 unless told), or add a "
                        f"signature for these types, or leave out the signature so the kernel "
                        f"compiles for the types it is called with")

    def launch(self, args: tuple[Any, ...], grid: tuple[int, int, int],
               block: tuple[int, int, int], stream: Any, shared: int) -> None:
        if any(type(a) is _core.GPUArray for a in args) and _core._backend() == "cpu":
            # cudakit's GPUArrays as kernel arguments on the CPU backend too
            # (on a GPU they are taken through __cuda_array_interface__).
            args = tuple(from_gpuarray(a) if type(a) is _core.GPUArray else a for a in args)
        if self.extensions:
            retr: list[Any] = []
            args = tuple(self._prepared(value, i, stream, retr) for i, value in enumerate(args))
            self._launch(args, grid, block, stream, shared)
            for work in retr:
                work()
            return
        self._launch(args, grid, block, stream, shared)

    def _prepared(self, value: Any, index: int, stream: Any, retr: list[Any]) -> Any:
        ty = self._arg_type(value, index)
        for extension in self.extensions:
            ty, value = extension.prepare_args(ty, value, stream=stream, retr=retr)
        return value

    def _compile_for_args(self, *args: Any) -> _Specialization:
        """The kernel for these arguments' types, compiled if needed (a
        launch calls it with its launch configuration current)."""
        arg_types = tuple(self._arg_type(a, i) for i, a in enumerate(args))
        if self._signatures:
            arg_types = self._match_signature(arg_types)
        spec = self.compile(arg_types)
        current = launchconfig.current_launch_config()
        if current is not None and current.dispatcher is self \
                and current._kernel_launch_config_sensitive:
            spec.launch_config_sensitive = True
            if self._launch_config_key is None:
                self._launch_config_key = current.key
                self._on_device().kernel_table.clear()  # (launches check their config)
        return spec

    def mark_launch_config_sensitive(self) -> None:
        """Marks the kernel being compiled for the current launch as valid for
        that launch configuration only (launchconfig's docstring)."""
        current = launchconfig.ensure_current_launch_config()
        if current.dispatcher is not self:
            raise RuntimeError("mark_launch_config_sensitive() must be called on the "
                               "dispatcher of the launch being compiled "
                               f"({current.dispatcher.__name__}, not {self.__name__})")
        current._kernel_launch_config_sensitive = True

    def _launch_config_variant(self, key: tuple[Any, ...]) -> "Dispatcher":
        variant = self._launch_config_variants.get(key)
        if variant is None:
            variant = Dispatcher(self.py_func, self._signatures, self.device, **self.options)
            variant._launch_config_key = key
            self._launch_config_variants[key] = variant
        return variant

    def _launch(self, args: tuple[Any, ...], grid: tuple[int, int, int],
                block: tuple[int, int, int], stream: Any, shared: int) -> None:
        if self._launch_config_key is not None and self._launch_config_key != (grid, block,
                                                                               shared):
            self._launch_config_variant((grid, block, shared))._launch(args, grid, block,
                                                                       stream, shared)
            return
        # The common case first: device arrays and Python numbers whose types
        # are known without inspection, an existing specialization.
        try:
            key = tuple([id(a._type) if type(a) is DeviceNDArray else id(_FAST_TYPES[type(a)])
                         for a in args])
            spec = self._on_device().by_type_ids.get(key)
        except KeyError:
            key = None
            spec = None
        if spec is None:
            nparams = len(self.parsed.arg_names)
            if len(args) != nparams:
                raise TypeError(f"{self.__name__}() takes {nparams} argument"
                                f"{'s' if nparams != 1 else ''}, {len(args)} given")
            with launchconfig.compiling_for(launchconfig.LaunchConfig(
                    self, grid, block, stream, shared, args)):
                spec = self._compile_for_args(*args)
            if key is not None:
                state = self._on_device()
                state.by_type_ids[key] = spec
                # (A launch-config-sensitive kernel: every launch checks its config.)
                # (The C++ launcher checks the block against the kernel's own
                # limit: not a launch_bounds the CPU backend does not know.)
                if not spec.translation.takes_dynamic_shared_bytes \
                        and self._launch_config_key is None \
                        and spec.max_threads == spec.kernel.max_threads_per_block:
                    state.kernel_table[key] = spec.kernel  # (its launch adds one)
        arg_types = spec.arg_types
        threads = block[0] * block[1] * block[2]
        if threads > spec.max_threads > 0:
            raise BlockTooLarge(1, f"CUDA_ERROR_INVALID_VALUE: {self.__name__}[{grid}, "
                                f"{block}]: a block of {threads} threads; this kernel on this "
                                f"device allows at most {spec.max_threads} per block (its "
                                "registers, or its launch_bounds)")
        # Host arrays are copied to the device for the launch and back after
        # it, as Numba does; everything else goes to the one converter as it is.
        # A tuple argument's items are parameters of their own.
        args, arg_types = _flattened(args, arg_types)
        staged = list(args)
        copy_back = []
        after_launch: list[Any] = []
        for i, value in enumerate(args):
            if isinstance(value, ArgHint):  # the copies its direction asks for
                staged[i] = value.to_device(after_launch, stream)
            elif isinstance(value, MappedNDArray) and isinstance(arg_types[i], t.ArrayT):
                # Mapped host memory: the kernel addresses it in place.
                staged[i] = from_cuda_array_interface(value.__cuda_array_interface__,
                                                      owner=value)
            elif isinstance(value, np.ndarray) and isinstance(arg_types[i], t.ArrayT):
                if config.CUDA_WARN_ON_IMPLICIT_COPY and not config.DISABLE_PERFORMANCE_WARNINGS:
                    warnings.warn(NumbaPerformanceWarning(
                        "Host array used in CUDA kernel will incur copy overhead to/from "
                        "device."), stacklevel=3)
                device_copy = to_device(value)
                if value.flags.writeable:
                    copy_back.append((device_copy, value))
                staged[i] = device_copy
            elif isinstance(value, enum.Enum):
                staged[i] = value.value  # an Enum member travels as its number
            elif isinstance(value, (np.datetime64, np.timedelta64)):
                staged[i] = int(value.astype(np.int64))  # its count of the unit
            elif type(value) is not DeviceNDArray and isinstance(arg_types[i], t.ArrayT):
                interface = getattr(value, "__cuda_array_interface__", None)
                if interface is not None:  # another library's array: its stream first
                    wait_for_interface_stream(interface)
            elif isinstance(value, np.void) and isinstance(arg_types[i], t.RecordT):
                staged[i] = _record_argument(value, copy_back)
        if spec.translation.takes_dynamic_shared_bytes:
            staged.append(shared)  # the extent of cuda.shared.array(0, ...)
        spec.kernel.launch(grid, block, shared, _stream_handle(stream), tuple(staged))
        if self.options.get("debug"):
            # As Numba's: a debug kernel's launch waits for it, so an exception
            # it raises is raised by the launch.
            try:
                if hasattr(stream, "synchronize"):
                    stream.synchronize()
                else:
                    _core.jit_synchronize()
                spec.kernel.check_fault()  # (a GPU: the text a failing thread left)
            except KernelFault as fault:
                user = _user_exception(fault, spec.translation.user_exceptions)
                if user is None:
                    raise
                raise user from fault
        for device_copy, host in copy_back:  # a _RecordCopyBack: (record, device copy)
            device_copy.copy_to_host(host)
        for work in after_launch:
            work()
        if copy_back or after_launch:  # (copied back: the kernel has finished)
            _core.jit_check_fault()

    # ---- pickling ---------------------------------------------------------------------
    def __reduce__(self) -> Any:
        """By reference when its module holds it; else its function (by
        reference, or as its source and the values it reads) and the
        decorator's arguments, translated and compiled again on arrival."""
        from .kernel_pickling import TravellingFunction, reduce_kernel_object
        return reduce_kernel_object(self, _rebuild_dispatcher, (
            TravellingFunction(self.py_func), self._signatures, self.device, self.options,
            self._specialized))

    # ---- inspection --------------------------------------------------------------------
    def _select(self, signature: Any) -> dict[tuple[t.Type, ...], _Specialization]:
        if signature is None:
            return dict(self.overloads)
        key = tuple(signature.args) if isinstance(signature, t.Signature) else tuple(signature)
        return {key: self.overloads[key]}

    def inspect_cuda_source(self, signature: Any = None) -> Any:
        """The generated CUDA C++ (a dict by argument types, or one string)."""
        chosen = self._select(signature)
        sources = {k: s.translation.source for k, s in chosen.items()}
        return sources if signature is None else next(iter(sources.values()))

    def inspect_asm(self, signature: Any = None) -> Any:
        """The PTX (NVRTC for compute_90 where the loaded code kept none, as
        on the CPU backend, with this function's fastmath/debug/lineinfo
        options; the generated C++ when NVRTC is missing). A device
        function's is compiled for its signatures (or the one given)."""
        if self.device:
            from .compiler import compile_ptx_for_current_device
            signatures = [signature] if signature is not None else self._signatures
            asm = {}
            for sig in signatures:
                ptx, _ = compile_ptx_for_current_device(
                    self.py_func, sig, device=True, fastmath=bool(self.options.get("fastmath")),
                    debug=bool(self.options.get("debug")),
                    lineinfo=bool(self.options.get("lineinfo")))
                asm[tuple(sig.args) if isinstance(sig, t.Signature) else tuple(sig)] = ptx
            return asm if signature is None else next(iter(asm.values()))
        chosen = self._select(signature)
        asm = {k: s.kernel.ptx or _ptx_of(s.translation.source, self.options)
               for k, s in chosen.items()}
        return asm if signature is None else next(iter(asm.values()))

    def _per_kernel(self, signature: Any, value: Callable[[_Specialization], int]) -> Any:
        """Numba's get_* of kernel resources: for one signature, for the one
        kernel of a specialized dispatcher, else a dict by argument types."""
        if signature is not None:
            return value(next(iter(self._select(signature).values())))
        if self._specialized:
            return value(next(iter(self.overloads.values())))
        return {key: value(spec) for key, spec in self.overloads.items()}

    def get_regs_per_thread(self, signature: Any = None) -> Any:
        """Registers per thread (0 on the CPU backend, which has none)."""
        return self._per_kernel(signature, lambda s: int(s.kernel.attributes["registers"]))

    def get_const_mem_size(self, signature: Any = None) -> Any:
        """Bytes of constant memory the kernel uses (CPU backend: of the
        __constant__ data it holds, cuda.const.array_like's arrays)."""
        return self._per_kernel(signature, lambda s: _on_cpu_backend(
            int(s.kernel.attributes["const_bytes"]), s.translation.constant_bytes))

    def get_shared_mem_per_block(self, signature: Any = None) -> Any:
        """Bytes of static shared memory per block."""
        return self._per_kernel(signature,
                                lambda s: int(s.kernel.attributes["static_shared_bytes"]))

    def get_local_mem_per_thread(self, signature: Any = None) -> Any:
        """Bytes of local memory per thread (CPU backend: of the kernel's and
        its device functions' cuda.local.array arrays, a lower bound)."""
        return self._per_kernel(signature, lambda s: _on_cpu_backend(
            int(s.kernel.attributes["local_bytes"]), s.translation.local_array_bytes))

    def get_max_threads_per_block(self, signature: Any = None) -> Any:
        """The most threads a block of this kernel may have on this device."""
        return self._per_kernel(signature, lambda s: int(s.max_threads))

    def compile_device(self, args: Any, return_type: Any = None) -> SimpleNamespace:
        """Numba's compile_device: types this device function for `args` and
        gives what Numba's CompileResult tells of it: `signature`,
        `fndesc.mangled_name` (the name it is exported under in the PTX of
        inspect_asm, this function's own) and `fndesc.qualname`."""
        if not self.device:
            raise RuntimeError(f"compile_device: {self.__name__} is a kernel; compile it with "
                               f"{self.__name__}.compile(argtypes) or launch it")
        from .compiler import _signature_of
        arg_types = tuple(_signature_of(tuple(args)).args)
        _, inferred = translate_device(self.parsed, arg_types, Program(self.options),
                                       ("compile_device", arg_types), self.parsed.where,
                                       self.parsed.tree)
        signature = t.Signature(return_type or inferred, arg_types)
        return SimpleNamespace(signature=signature, fndesc=SimpleNamespace(
            mangled_name=self.py_func.__name__, qualname=self.__qualname__))

    def inspect_sass(self, signature: Any = None) -> Any:
        """Numba disassembles the cubin with nvdisasm; cudakit keeps no SASS
        (nor does the CPU backend have any): a clear error either way."""
        if self.device:
            raise RuntimeError("Cannot inspect SASS of a device function")
        raise NotImplementedError(
            "inspect_sass: cudakit does not disassemble kernels; inspect_asm() gives the PTX "
            "and inspect_cuda_source() the generated CUDA C++")

    def inspect_lto_ptx(self, signature: Any = None) -> Any:
        """Numba's PTX after link-time optimisation: a kernel here is one
        NVRTC program with its device functions, so it is inspect_asm's."""
        return self.inspect_asm(signature)

    def inspect_types(self, file: Any = None) -> None:
        import sys
        out = file or sys.stdout
        for key, spec in self.overloads.items():
            print(f"{self.__name__} ({', '.join(str(a) for a in key)})", file=out)
            print("-" * 60, file=out)
            for name, ty in spec._type_annotation.typemap.items():
                print(f"  {name} = {ty}", file=out)


def _rebuild_dispatcher(py_func: Callable[..., Any], signatures: list[t.Signature], device: bool,
                        options: dict[str, Any], specialized: bool = False) -> Dispatcher:
    from .kernel_pickling import canonical_signatures, rebind_self
    dispatcher = Dispatcher(py_func, canonical_signatures(signatures), device, **options)
    dispatcher._specialized = specialized
    rebind_self(dispatcher)
    return dispatcher


# Numba's configured launch's `args`: those of the launch compiling on this thread.
_core.JitLauncher.args = property(  # type: ignore[attr-defined]
    lambda launcher: launchconfig.current_launch_args(),
    doc="The arguments of this thread's launch while it compiles the kernel, else None.")

# A configured launch (kernel[grid, block]) stays in its process.
_core.JitLauncher.__reduce_ex__ = refuse_pickle(  # type: ignore[method-assign]
    "a configured launch (kernel[griddim, blockdim]) does not travel; pickle the kernel and "
    "configure the launch in the receiving process")


def _ptx_of(source: str, options: dict[str, Any]) -> str:
    from .compiler import _nvrtc_ptx
    flags = {"fastmath": bool(options.get("fastmath")), "debug": bool(options.get("debug")),
             "lineinfo": bool(options.get("lineinfo"))}
    try:
        return _nvrtc_ptx(source, "compute_90", False, flags)
    except Exception:  # noqa: BLE001 (no NVRTC here: show what ran)
        return source
