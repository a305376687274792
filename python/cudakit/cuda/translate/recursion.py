"""Device functions that call themselves (or each other): the call uses the
function being translated, whose return type comes from its signature or,
as Numba infers it, from the return statements that do not recurse; C++
then compiles the recursion as written (never inlined)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import types as t
from .errors import TypingError

if TYPE_CHECKING:
    from .codegen import FunctionTranslator
    from .program import Program


class PendingRecursion(Exception):
    """A recursive call met before any return statement gave the function's
    type: the typing pass skips the statement holding it and tries again on
    the next pass (not a TypingError: literal dispatch must not retry it)."""


def call_in_progress(program: "Program", key: Any, declared_return: t.Type | None
                     ) -> tuple[str, t.Type]:
    """The C++ name and return type of a device function called while it is
    being translated."""
    callee: "FunctionTranslator" = program.in_progress[key]
    callee.recursive = True
    return_type = declared_return or callee.return_type
    if return_type is None:
        callee.pending_recursion = True
        raise PendingRecursion(callee.c_function_name)
    return callee.c_function_name, return_type


def check_settled(tr: "FunctionTranslator") -> None:
    """After the typing passes: a function whose every path calls itself
    before returning has no type to give its calls."""
    if tr.pending_recursion and tr.return_type is None:
        raise TypingError(f"cannot type infer runaway recursion: every path of "
                          f"{tr.where.function} calls it again before returning a value, so "
                          "its return type is unknown (give it a base case that returns)",
                          tr.where, tr.parsed.tree)


def prototype(tr: "FunctionTranslator") -> str:
    """The declaration that lets functions translated before this one (in a
    cycle of calls) call it."""
    return tr.signature() + ";"
