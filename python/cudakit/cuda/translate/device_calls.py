"""Calls of device functions from kernels: the arguments' types pick (or
make) the callee's specialization, as Numba's dispatch does. Compile-time
objects (cuda.atomic.add, a dtype, a function) specialize the callee; tuples
of numbers travel as structs; a call that fails to type is retried with its
known numbers as literals (Numba's literal dispatch)."""

from __future__ import annotations

import ast
import types
from typing import TYPE_CHECKING, Any

from . import types as t
from .errors import TypingError
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


def device_call(tr: "FunctionTranslator", dispatcher: Any, args: list[Val],
                node: ast.AST) -> Val:
    """A call of a @cuda.jit device function: its specialization for the
    arguments' types (and compile-time values), then the C++ call."""
    arg_types: list[t.Type] = []
    codes = []
    vararg = getattr(dispatcher.parsed, "vararg", "")
    if vararg:  # f(a, *rest): the arguments past the named ones as one tuple
        fixed = len(dispatcher.parsed.arg_names) - 1
        rest = args[fixed:]
        args = args[:fixed] + [tr.tuple_value(rest) if rest else Val(None, "", ())]
    assigned = _assigned_names(dispatcher)
    for a, arg_name in zip(args, dispatcher.parsed.arg_names + [""] * len(args)):
        if a.type is None and not isinstance(a.py, types.ModuleType) \
                and arg_name not in assigned:
            # A compile-time object (cuda.atomic.add, a dtype, a function):
            # the callee is specialized for it, as Numba's does.
            arg_types.append(t.ConstT(a.py))
            continue
        if isinstance(a.type, t.StringT) and a.known and arg_name not in assigned:
            # A string constant: the callee is specialized for it (Numba's literal).
            arg_types.append(t.ConstT(a.py))
            continue
        if a.items is not None and a.items and all(isinstance(i.type, t.Scalar)
                                                   for i in a.items):
            # A tuple of numbers travels as a struct, as a kernel's tuple argument.
            tuple_type = t.TupleT(tuple(i.type for i in a.items))  # type: ignore[misc]
            arg_types.append(tuple_type)
            codes.append(f"{tr.program.tuple_struct(tuple_type)}{{"
                         f"{', '.join(i.code for i in a.items)}}}")
            continue
        if a.type is None or isinstance(a.type, (t.StringT, t.NoneT, t.TupleT)):
            raise tr.typing_error(f"cannot pass {a.describe()} to a device function", node)
        ty = a.type
        code = a.code
        if isinstance(ty, t.ArrayT) and ty.static_shape is not None:
            # A shared/local array travels as a view of its storage.
            strides, stride = [], 1
            for n in reversed(ty.static_shape):
                strides.insert(0, stride)
                stride *= n
            shape = ", ".join(f"{n}LL" for n in ty.static_shape)
            code = (f"{ty.view_ctype}{{{a.code}, {{{shape}}}, "
                    f"{{{', '.join(f'{s}LL' for s in strides)}}}}}")
            ty = t.ArrayT(ty.dtype, ty.ndim, "C")
        if isinstance(ty, t.RecordT):
            code = f"&({a.code})"  # records travel by reference, as in Numba
        arg_types.append(ty)
        codes.append(code)
    try:
        name, return_type = dispatcher._device_specialization(
            tr.program, tuple(arg_types), tr.where, node)
    except TypingError as error:
        # Numba's literal dispatch: again with the known numbers as
        # literals (a shared array's shape, a flag whose dead branch is
        # then pruned); the first error stands if that fails too.
        literal = [i for i, a in enumerate(args) if _known_number_or_tuple(a)
                   and i < len(dispatcher.parsed.arg_names)
                   and dispatcher.parsed.arg_names[i] not in assigned]
        if not literal:
            raise
        codes = [c for i, c in enumerate(_codes_by_arg(args, arg_types, codes))
                 if i not in literal and c is not None]
        for i in literal:
            if args[i].items is not None:
                arg_types[i] = t.ConstT(tuple(v.py for v in args[i].items))
            else:
                arg_types[i] = t.ConstT(args[i].py, args[i].type)  # type: ignore[arg-type]
        try:
            name, return_type = dispatcher._device_specialization(
                tr.program, tuple(arg_types), tr.where, node)
        except TypingError:
            raise error from None
    call = f"{name}({', '.join(codes)})"
    if isinstance(return_type, t.TupleT):
        # The call runs once, into a temporary the items are read from.
        temp = tr.fresh("ret")
        tr.emit(f"const {tr.ctype(return_type)} {temp} = {call};")
        return tr.tuple_value([tr.value(it, f"{temp}.f{i}")
                               for i, it in enumerate(return_type.items)])
    return tr.value(return_type, call)


def _known_number_or_tuple(a: Val) -> bool:
    if a.items is not None:
        return bool(a.items) and all(isinstance(v.type, t.Scalar) and v.known for v in a.items)
    return isinstance(a.type, t.Scalar) and a.known


def _assigned_names(dispatcher: Any) -> set[str]:
    """The names a device function assigns to (its arguments among them
    stay run-time values)."""
    return {node.id for node in ast.walk(dispatcher.parsed.tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _codes_by_arg(args: list[Val], arg_types: list[t.Type], codes: list[str]
                  ) -> list[str | None]:
    """`codes` (the C++ arguments passed) spread over the call's arguments:
    None where an argument has no parameter."""
    spread: list[str | None] = []
    remaining = iter(codes)
    for ty in arg_types:
        spread.append(None if isinstance(ty, t.ConstT) else next(remaining))
    return spread
