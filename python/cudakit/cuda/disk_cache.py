"""@cuda.jit(cache=True): translations kept on disk, so a fresh process skips
the Python -> C++ translation as well as the compile (the C++ compile cache
keeps the compiled code).

An entry is keyed by everything the translation depends on: the function's
source and where it is (the #line directives name the file and lines), the
values of the globals and closure variables it reads (frozen into the code),
the device functions it calls (recursively), the argument types, the
options, and the translator itself. Entries live in `python-kernels/` inside
the compile cache's directory (CUDAKIT_CACHE_DIR) and are written atomically;
an unreadable entry is translated again.
"""

from __future__ import annotations

import ast
import hashlib
import os
import pickle
import tempfile
import types
import warnings
from typing import Any, Callable

import numpy as np

from .. import _core
from .translate import types as t
from .translate.parse import ParsedFunction

_FORMAT = 1  # bump when KernelTranslation changes shape
_TRANSLATOR_DIGEST: list[str] = []


class NumbaWarning(UserWarning):
    """Something cudakit.cuda could not do as asked (Numba's name)."""


class _Uncacheable(Exception):
    """A value the key cannot describe (its identity would not survive the
    process): the function is translated every time."""


def _translator_digest() -> str:
    """The translator's files by size and modification time (a new or edited
    cudakit drops old entries; stat is a fraction of reading them)."""
    if not _TRANSLATOR_DIGEST:
        digest = hashlib.sha256()
        here = os.path.dirname(os.path.abspath(__file__))
        for folder in (here, os.path.join(here, "translate")):
            with os.scandir(folder) as entries:
                for entry in sorted(entries, key=lambda e: e.name):
                    if entry.name.endswith(".py"):
                        info = entry.stat()
                        digest.update(f"{entry.name}:{info.st_size}:{info.st_mtime_ns};"
                                      .encode())
        _TRANSLATOR_DIGEST.append(digest.hexdigest())
    return _TRANSLATOR_DIGEST[0]


def _free_names(parsed: ParsedFunction) -> list[tuple[str, ...]]:
    """The global and closure names the function reads, with the attribute
    chains read from them (`np.float32` -> ('np', 'float32'))."""
    local = set(parsed.arg_names)
    for node in ast.walk(parsed.tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
    chains: set[tuple[str, ...]] = set()
    # (The decorators ran already; the body and the defaults are what count.)
    body = ast.Module(body=parsed.tree.body, type_ignores=[])
    for node in [*ast.walk(body), *ast.walk(parsed.tree.args)]:
        if isinstance(node, ast.Attribute):
            parts: list[str] = []
            base: ast.AST = node
            while isinstance(base, ast.Attribute):
                parts.insert(0, base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id not in local:
                chains.add((base.id, *parts))
        elif isinstance(node, ast.Name) and node.id not in local:
            chains.add((node.id,))
    return sorted(chains)


def _file_digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "missing"


def _code_digest(code: types.CodeType) -> str:
    digest = hashlib.sha256(code.co_code)
    for const in code.co_consts:  # (nested functions' code: by content, not address)
        digest.update((_code_digest(const) if isinstance(const, types.CodeType)
                       else repr(const)).encode())
    return digest.hexdigest()


def _describe(value: Any, seen: set[int]) -> str:
    """A text that changes exactly when `value` would change the translation."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, np.generic):
        return f"{value.dtype.str}:{value!r}"
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_describe(v, seen) for v in value) + ")"
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return (f"ndarray:{value.dtype.str}:{value.shape}:"
                f"{hashlib.sha256(data.tobytes()).hexdigest()}")
    if isinstance(value, np.dtype):
        return f"dtype:{value.str}:{value.descr!r}"
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if isinstance(value, (t.Type, t.Signature)):
        return f"type:{value!r}"
    name = getattr(value, "intrinsic_name", None)
    if isinstance(name, str):
        return f"intrinsic:{name}"
    if hasattr(value, "py_func") and hasattr(value, "_device_specialization"):
        # A @cuda.jit function called from the kernel: its own key.
        if id(value) in seen:
            return f"recursive:{value.__qualname__}"
        seen.add(id(value))
        return (f"dispatcher:{function_fingerprint(value.py_func, seen)}:"
                f"{sorted(value.options.items())!r}:{value._declared_signatures!r}")
    if hasattr(value, "link") and isinstance(getattr(value, "signature", None), t.Signature):
        files = ",".join(f"{p}={_file_digest(p)}" for p in value.link)
        return f"foreign:{value.name}:{value.signature!r}:{files}"
    if isinstance(value, types.FunctionType):
        # Plain Python functions are not translated (except through
        # `py_func`, above); their code object stands for them.
        return f"function:{value.__module__}.{value.__qualname__}:{_code_digest(value.__code__)}"
    if isinstance(value, (types.BuiltinFunctionType, np.ufunc, type)):
        return f"callable:{getattr(value, '__module__', '')}.{value.__qualname__}" \
            if hasattr(value, "__qualname__") else f"callable:{value!r}"
    if hasattr(value, "__cuda_array_interface__"):
        interface = value.__cuda_array_interface__
        return f"device-array:{interface['data'][0]}:{interface['typestr']}:{interface['shape']}"
    raise _Uncacheable(f"{type(value).__name__} {value!r:.60}")


def function_fingerprint(py_func: Any, seen: set[int] | None = None) -> str:
    """Source, place and the values of the names `py_func` reads."""
    from .translate.parse import parse_function
    parsed = parse_function(py_func)
    return _fingerprint(parsed, seen if seen is not None else set())


def _fingerprint(parsed: ParsedFunction, seen: set[int]) -> str:
    parts = [parsed.where.filename, str(parsed.where.first_line), parsed.source]
    for chain in _free_names(parsed):
        found, value = parsed.lookup(chain[0])
        if not found:
            parts.append(f"{chain[0]}=<undefined>")
            continue
        described = _describe(value, seen)
        for attr in chain[1:]:
            if not isinstance(value, types.ModuleType) and getattr(
                    value, "intrinsic_name", None) is None:
                break  # attributes of arrays and the like: the value covers them
            try:
                value = getattr(value, attr)
            except AttributeError:
                described += f".{attr}=<missing>"
                break
            described += f".{attr}={_describe(value, seen)}"
        parts.append(f"{'.'.join(chain)}={described}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _directory() -> str | None:
    enabled, directory = _core.jit_cache_directory()
    return os.path.join(directory, "python-kernels") if enabled else None


def entry_key(parsed: ParsedFunction, arg_types: tuple[t.Type, ...],
              options: dict[str, Any]) -> str | None:
    """The entry's name, or None (with a warning) when a name the function
    reads has a value that cannot be described across processes."""
    try:
        function = _fingerprint(parsed, set())
    except _Uncacheable as error:
        warnings.warn(NumbaWarning(
            f"cannot cache {parsed.py_func.__qualname__} on disk: it reads {error}, whose "
            "value cannot be compared across processes; it is translated in each process"),
            stacklevel=4)
        return None
    link = [f"{p}={_file_digest(p)}" for p in options.get("link") or ()]
    text = "\n".join([f"format {_FORMAT}", _translator_digest(), function, repr(arg_types),
                      repr(sorted((k, v) for k, v in options.items() if k != "link")),
                      repr(link), _core.jit_backend()])
    return hashlib.sha256(text.encode()).hexdigest()


def load_or_translate(parsed: ParsedFunction, arg_types: tuple[t.Type, ...],
                      options: dict[str, Any], translate: Callable[[], Any]) -> tuple[Any, bool]:
    """(translation, whether it came from disk)."""
    directory = _directory()
    key = entry_key(parsed, arg_types, options) if directory else None
    if key is None:
        return translate(), False
    path = os.path.join(directory, key[:2], key + ".pickle")  # type: ignore[arg-type]
    try:
        with open(path, "rb") as f:
            translation = pickle.load(f)
        translation.arg_types = tuple(t.intern(a) for a in translation.arg_types)
        return translation, True
    except FileNotFoundError:
        pass
    except Exception:  # noqa: BLE001 (a corrupt or foreign entry: translate again)
        pass
    translation = translate()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(translation, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temp, path)
    except OSError as error:
        warnings.warn(NumbaWarning(f"cannot write the kernel cache entry {path}: {error}"),
                      stacklevel=4)
    return translation, False
