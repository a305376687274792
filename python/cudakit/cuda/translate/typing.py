"""Typing a specialization: the local variables' types found by repeated
passes over the body until Numba's unification settles, then the emission
pass. Entry points for kernels and device functions."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import recursion
from . import types as t
from .codegen import FunctionTranslator
from .errors import TranslationError, TypingError, UnsupportedError
from .parse import ParsedFunction
from .program import Program

MAX_PASSES = 8


def _run(parsed: ParsedFunction, arg_types: tuple[t.Type, ...], program: Program,
         is_kernel: bool, name: str, key: Any = None) -> FunctionTranslator:
    if len(arg_types) != len(parsed.arg_names):
        raise TypingError(f"{parsed.where.function}() takes {len(parsed.arg_names)} "
                          f"argument{'s' if len(parsed.arg_names) != 1 else ''}, "
                          f"{len(arg_types)} given", parsed.where, parsed.tree)
    tr = FunctionTranslator(parsed, arg_types, program, is_kernel, name)
    if key is not None:
        program.in_progress[key] = tr  # (its recursive calls use it)
    for _ in range(MAX_PASSES):
        before = (dict(tr.locals), tr.return_type, len(tr.maybe_negative))
        tr.counter = 0
        tr.pending_recursion = False
        tr.translate_body()
        if (dict(tr.locals), tr.return_type, len(tr.maybe_negative)) == before:
            break
    else:
        raise TypingError("the local variables' types do not settle", parsed.where,
                          parsed.tree)
    recursion.check_settled(tr)
    tr.emitting = True
    tr.counter = 0
    tr.lines = []
    tr.translate_body()
    program.local_array_bytes += sum(
        int(np.prod(spec.shape)) * (spec.dtype.itemsize if isinstance(spec.dtype, t.RecordT)
                                    else t.field_size(spec.dtype))
        for spec in tr.static_arrays.values() if spec.space == "local")
    return tr


def _function_text(tr: FunctionTranslator) -> str:
    path = tr.where.filename.replace("\\", "\\\\").replace('"', '\\"')
    signature = tr.signature()
    if tr.is_kernel and tr.program.uses_dynamic_shared:
        signature = signature[:-1] + f"{', ' if not signature.endswith('(') else ''}" \
            f"unsigned long long {DYNAMIC_SHARED_PARAM})"
    out = [f'#line {tr.where.line_of(tr.parsed.tree)} "{path}"', signature + " {"]
    if tr.is_kernel and tr.program.uses_dynamic_shared:
        out.append(f"  ck_dynamic_shared_size = {DYNAMIC_SHARED_PARAM};")
    out.extend("  " + d for d in tr.declarations())
    out.extend(tr.lines)
    out.append("}")
    return "\n".join(out)


# The hidden last parameter of a kernel using dynamic shared memory: its bytes.
DYNAMIC_SHARED_PARAM = "ck_dynamic_shared_bytes"


@dataclass
class KernelTranslation:
    source: str
    kernel_name: str
    arg_types: tuple[t.Type, ...]
    local_types: dict[str, t.Type]
    uses_barrier: bool
    linked_files: tuple[str, ...] = ()  # CUDA C/C++ sources joined to the kernel's
    cooperative: bool = False  # waits for the grid (this_grid().sync()): a cooperative launch
    # The program's own exception classes its `raise` statements name (debug=True).
    user_exceptions: dict[str, type] = field(default_factory=dict)
    # The kernel takes the launch's dynamic shared bytes as a last parameter.
    takes_dynamic_shared_bytes: bool = False
    # Bytes of its __constant__ data, and of the cuda.local.array arrays the
    # kernel and its device functions declare (per thread).
    constant_bytes: int = 0
    local_array_bytes: int = 0


def translate_kernel(parsed: ParsedFunction, arg_types: tuple[t.Type, ...],
                     options: dict[str, Any]) -> KernelTranslation:
    if parsed.vararg:
        raise UnsupportedError("kernels take plain positional parameters (no *args, "
                               "**kwargs or keyword-only parameters); *args is for device "
                               "functions", parsed.where, parsed.tree)
    program = Program(options)
    name = program.unique_name(f"{parsed.py_func.__name__}")
    tr = _run(parsed, arg_types, program, True, name)
    source = program.source(_function_text(tr))
    return KernelTranslation(source, name, arg_types, dict(tr.locals), tr.uses_barrier,
                             tuple(program.linked_files), program.uses_grid_sync,
                             dict(program.user_exceptions), program.uses_dynamic_shared,
                             program.constant_bytes, program.local_array_bytes)


def translate_device(parsed: ParsedFunction, arg_types: tuple[t.Type, ...],
                     program: Program, key: Any, where: Any, node: ast.AST,
                     declared_return: t.Type | None = None) -> tuple[str, t.Type]:
    """Adds the device function for `arg_types` to `program` (once) and returns
    its C++ name and return type (`declared_return`: its signature's, which
    a recursive call uses)."""
    entry = program.device_functions.get(key)
    if entry is not None:
        return entry
    if key in program.in_progress:
        return recursion.call_in_progress(program, key, declared_return)
    try:
        name = program.unique_name(getattr(parsed, "function_name", parsed.py_func.__name__))
        tr = _run(parsed, arg_types, program, False, name, key)
    except TranslationError as error:
        # Where the device function was called from (Numba's words for it).
        if where is not None and node is not None and error.args:
            error.args = (f"{error.args[0]}\n\nDuring: resolving callee type: "
                          f"type(CUDADispatcher({parsed.py_func!r})), called at "
                          f'File "{where.filename}", line {where.line_of(node)}, in '
                          f"{where.function}",)
        raise
    finally:
        program.in_progress.pop(key, None)
    return_type = tr.return_type or t.none
    program.device_functions[key] = (name, return_type)
    if tr.recursive:  # functions translated while it was (a cycle) may call it
        program.device_sources.insert(0, recursion.prototype(tr))
    program.device_sources.append(_function_text(tr))
    return name, return_type
