"""@cuda.jit kernels, device functions and CUDA ufuncs across processes.

A kernel is its Python function plus the decorator's arguments; it is
translated and compiled again (or taken from the caches) where it is
unpickled. The function travels

* by reference (module and qualified name) when it is defined at the top
  level of an importable module: the receiving process imports it, as
  pickle does for functions;
* as its source text and the globals and closure variables it reads, when
  it is defined in ``__main__``, in a function (a closure) or by exec():
  cudakit keeps that source to translate it anyway. Modules among those
  values travel by name, the rest as pickle sends them.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import pickle
import sys
from types import CodeType, FunctionType, ModuleType
from typing import Any

import numpy as np

from .._pickling import NotPicklableError
from .translate import types as t
from .translate.errors import UnsupportedError


def attribute_at(module: str, qualname: str) -> Any:
    """`module`.`qualname` (imported); AttributeError/ImportError when absent."""
    value: Any = importlib.import_module(module)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def _found_at(module: str | None, qualname: str) -> Any:
    if not module or module == "__main__" or "<locals>" in qualname:
        return None
    try:
        return attribute_at(module, qualname)
    except Exception:  # noqa: BLE001 (not importable here: it travels by value)
        return None


def reference_to(obj: Any, py_func: FunctionType) -> tuple[str, str] | None:
    """(module, qualname) naming `obj` itself, when an import finds it there."""
    module, qualname = py_func.__module__, py_func.__qualname__
    return (module, qualname) if _found_at(module, qualname) is obj else None


def reduce_function(py_func: FunctionType) -> tuple[Any, tuple[Any, ...]]:
    """How pickle rebuilds the plain function `py_func`: by reference when
    its module holds it (or a kernel or ufunc made of it), else by source."""
    module, qualname = py_func.__module__, py_func.__qualname__
    found = _found_at(module, qualname)
    if found is py_func or (found is not None and getattr(found, "py_func", None) is py_func):
        return _function_at, (module, qualname)
    return _function_from_source, _source_payload(py_func)


class TravellingFunction:
    """A plain function among the arguments of a pickled kernel or ufunc: it
    unpickles as the function itself (see reduce_function)."""

    def __init__(self, py_func: FunctionType) -> None:
        self.py_func = py_func

    def __reduce__(self) -> Any:
        return reduce_function(self.py_func)


def reduce_kernel_object(obj: Any, rebuild: Any, args: tuple[Any, ...]) -> Any:
    """`obj` (a kernel, device function or ufunc) by reference when an import
    of its function's module and name finds it, else `rebuild`(*args)."""
    reference = reference_to(obj, obj.py_func)
    if reference is not None:
        return attribute_at, reference
    return rebuild, args


def _function_at(module: str, qualname: str) -> FunctionType:
    found = attribute_at(module, qualname)
    return getattr(found, "py_func", found)


class _ModuleByName:
    """A module among a kernel's globals: sent as its name, imported on arrival."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __reduce__(self) -> Any:
        return importlib.import_module, (self.name,)


class _AttributeOf:
    """A value among a kernel's globals that a module holds (cuda's float32,
    an intrinsic): sent as that module's attribute, since the translator
    knows some of them by identity."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __reduce__(self) -> Any:
        return attribute_at, (self.module, self.name)


_PLAIN = (int, float, complex, str, bytes, tuple, type(None), np.ndarray, np.generic)


def _home_of(name: str, value: Any) -> _AttributeOf | None:
    """cudakit.cuda's or the value's own module's attribute that is `value`."""
    if isinstance(value, _PLAIN) or hasattr(value, "py_func"):
        return None
    for module_name in ("cudakit.cuda", getattr(type(value), "__module__", None)):
        module = sys.modules.get(module_name) if module_name else None
        if module is None:
            continue
        if getattr(module, name, None) is value:
            return _AttributeOf(module_name, name)
        for attribute, candidate in vars(module).items():
            if candidate is value:
                return _AttributeOf(module_name, attribute)
    return None


def _names_read(code: CodeType) -> set[str]:
    names = set(code.co_names) | set(code.co_freevars)
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            names |= _names_read(constant)
    return names


def _source_payload(py_func: FunctionType) -> tuple[Any, ...]:
    what = f"the kernel function {py_func.__module__}.{py_func.__qualname__}"
    if py_func.__name__ == "<lambda>":
        raise NotPicklableError(
            f"cannot pickle {what}: a lambda defined in __main__ or in a function cannot be "
            "sent (pickle sends functions by reference). Define it with def at the top level "
            "of an importable module (or with def in __main__: cudakit then sends its source)")
    from .translate.parse import parse_function

    try:
        parsed = parse_function(py_func)
    except UnsupportedError as error:
        raise NotPicklableError(
            f"cannot pickle {what}: it is defined in __main__, in a function or by exec(), so "
            f"it travels as its source, and {error}. Define it at the top level of an "
            "importable module (it then travels by reference)") from None
    tree = ast.parse(parsed.source)
    definition = tree.body[0]
    lines = parsed.source.splitlines(keepends=True)
    # The decorators stay behind (the rebuilt function is wrapped again); the
    # def keeps its line number, so messages name the lines of the original.
    def_line = parsed.where.first_line + definition.lineno - 1
    text = "\n" * (def_line - 1) + "".join(lines[definition.lineno - 1:])
    values: dict[str, Any] = {}
    code = py_func.__code__
    cells = dict(zip(code.co_freevars, py_func.__closure__ or ()))
    for name in sorted(_names_read(code)):
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:  # an empty cell
                continue
        elif name in py_func.__globals__:
            value = py_func.__globals__[name]
        else:
            continue
        if getattr(value, "py_func", None) is py_func:
            continue  # the kernel itself (recursion): bound again on arrival
        if isinstance(value, ModuleType):
            values[name] = _ModuleByName(value.__name__)
            continue
        home = _home_of(name, value)
        if home is not None:
            values[name] = home
            continue
        try:
            pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # noqa: BLE001 (said with the name that holds it)
            raise NotPicklableError(
                f"cannot pickle {what}: it is sent as its source with the values it reads, "
                f"and {name!r} ({type(value).__name__}) cannot be pickled: {error}") from None
        values[name] = value
    filename = f"<pickled {py_func.__qualname__} from {parsed.where.filename}>"
    return (py_func.__name__, py_func.__qualname__, py_func.__module__, text, filename, values)


def _function_from_source(name: str, qualname: str, module: str, text: str, filename: str,
                          values: dict[str, Any]) -> FunctionType:
    from .translate import sources

    sources.install()  # keeps `text`, which the translator reads the function from
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": module}
    namespace.update(values)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 (the sender's kernel)
    function = namespace[name]
    function.__qualname__ = qualname
    return function


def rebuild_ufunc(cls: type, core: Any, signatures: list[t.Signature], *rest: Any) -> Any:
    """A CUDA ufunc or gufunc unpickled: `cls`(core, signatures, *rest)."""
    return cls(core, canonical_signatures(signatures), *rest)


def rebind_self(dispatcher: Any) -> None:
    """Names in a rebuilt kernel's globals that referred to the kernel itself."""
    py_func = dispatcher.py_func
    for name in _names_read(py_func.__code__):
        if name == py_func.__name__ and name not in py_func.__globals__:
            py_func.__globals__[name] = dispatcher


def canonical_signatures(signatures: list[t.Signature]) -> list[t.Signature]:
    """Signatures unpickled: their types as the shared instances."""
    def canonical(ty: Any) -> Any:
        if ty is None:
            return None
        if isinstance(ty, t.NoneT):
            return t.none
        return t.intern(ty)

    return [t.Signature(canonical(s.return_type), tuple(canonical(a) for a in s.args))
            for s in signatures]

