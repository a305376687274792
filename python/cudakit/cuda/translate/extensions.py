"""What numba.cuda.extending registers, where the translator reads it:
overloads of Python functions, the types of a program's own classes and
their struct layouts (data models), attributes and constructors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

# @overload(func): func -> the templates, each called with the argument
# types and returning an implementation (a Python function) or None.
OVERLOADS: dict[Any, list[Callable[..., Any]]] = {}
# typeof_impl.register(cls): cls -> fn(value, context) giving its type.
TYPEOF: dict[type, Callable[..., Any]] = {}
# type_callable(cls): cls -> fn(context) giving a typer(*arg_types).
CALLABLE_TYPERS: dict[Any, Callable[..., Any]] = {}
# cudaimpl.lower(cls, *arg_types): cls -> [(arg types, impl)].
LOWERINGS: dict[Any, list[tuple[tuple[Any, ...], Callable[..., Any]]]] = {}


@dataclass
class StructLayout:
    """A type's data model as a C struct: its members in order, and the
    Python attributes (make_attribute_wrapper) naming them."""

    members: list[tuple[str, Any]]
    attributes: dict[str, str] = field(default_factory=dict)  # python name -> member


# register_model(TypeClass): the type class -> its struct layout.
STRUCT_MODELS: dict[type, StructLayout] = {}


def struct_layout(ty: object) -> StructLayout | None:
    """The struct layout registered for `ty`'s class (or a base class)."""
    for cls in type(ty).__mro__:
        if cls in STRUCT_MODELS:
            return STRUCT_MODELS[cls]
    return None


def overload_implementation(func: Any, arg_types: tuple[Any, ...]) -> Any:
    """The implementation an @overload of `func` gives for these argument
    types (the first template that gives one), or None."""
    for template in OVERLOADS.get(func, []):
        impl = template(*arg_types)
        if impl is not None:
            return impl
    return None
