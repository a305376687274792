"""What numba.cuda.extending registers, where the translator reads it:
overloads of Python functions, the types of a program's own classes and
their struct layouts (data models), attributes and constructors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

# @overload(func, target=...): func -> (target, template) pairs; a template
# is called with the argument types and returns an implementation (a Python
# function) or None.
OVERLOADS: dict[Any, list[tuple[str, Callable[..., Any]]]] = {}
# @overload_attribute(TypeClass, attr, target=...): (TypeClass, attr) -> pairs.
ATTRIBUTE_OVERLOADS: dict[tuple[Any, str], list[tuple[str, Callable[..., Any]]]] = {}
# Kernels use the "cuda" overloads first, then the "generic" ones (Numba's order).
KERNEL_TARGETS = ("cuda", "generic")
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


def attribute_implementation(value_type: Any, attr: str) -> Any:
    """The implementation an @overload_attribute gives `value.attr` in a
    kernel (a function of the value), or None."""
    for cls in type(value_type).__mro__:
        templates = ATTRIBUTE_OVERLOADS.get((cls, attr))
        for target in KERNEL_TARGETS if templates else ():
            for template_target, template in templates:  # type: ignore[union-attr]
                impl = template(value_type) if template_target == target else None
                if impl is not None:
                    return impl
    return None


def literal_types(args: list[Any]) -> tuple[Any, ...] | None:
    """The types of a call's arguments (Vals) with Numba's literal types for
    the integers and booleans known when compiling; None when none is."""
    from . import types as t
    types, literal = [], False
    for arg in args:
        value = arg.py if arg.known and isinstance(arg.type, t.Scalar) else None
        if isinstance(value, bool):
            types.append(t.BooleanLiteral(value, arg.type))
        elif isinstance(value, int):
            types.append(t.IntegerLiteral(value, arg.type))
        else:
            types.append(arg.type)
            continue
        literal = True
    return tuple(types) if literal else None


def overload_implementation(func: Any, arg_types: tuple[Any, ...],
                            kwarg_types: dict[str, Any] | None = None,
                            literal_arg_types: tuple[Any, ...] | None = None) -> Any:
    """The implementation an @overload of `func` gives a kernel for these
    argument types: the first template of the "cuda" target that gives one,
    else of the "generic" target; None when none does. As in Numba, the
    templates are asked again with the literal types (literal_types) when
    none gave one for the plain types."""
    impl = _first_implementation(func, arg_types, kwarg_types)
    if impl is None and literal_arg_types is not None:
        impl = _first_implementation(func, literal_arg_types, kwarg_types)
    return impl


def _first_implementation(func: Any, arg_types: tuple[Any, ...],
                          kwarg_types: dict[str, Any] | None) -> Any:
    for target in KERNEL_TARGETS:
        for template_target, template in OVERLOADS.get(func, []):
            if template_target != target:
                continue
            try:
                impl = template(*arg_types, **(kwarg_types or {}))
            except TypeError:  # a template for another number of arguments
                continue
            if impl is not None:
                return impl
    return None
