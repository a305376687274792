"""`numba.cuda.extending`: the parts of Numba's extension API that a kernel
translated to CUDA C++ can honour.

- `@overload(func)`: a kernel calling `func` gets the implementation the
  template returns for the arguments' types, translated as a device
  function (`register_jitable` makes a function its own overload).
- `@overload_attribute(TypeClass, "name")`: `value.name` in a kernel is the
  implementation the template gives for the value's type.
- A program's own type with a struct data model: `typeof_impl.register`,
  `register_model(TypeClass)` of a `core_models.StructModel`,
  `make_attribute_wrapper`, `type_callable` and `cudaimpl.lower` are recorded
  (cudakit.cuda.translate.extensions), so modules that define such types
  import; kernels do not translate values of those types yet (a TypingError
  names the type).
- `@intrinsic` generates LLVM IR, which a kernel compiled from C++ source
  cannot contain: defining one works, calling it in a kernel is an
  UnsupportedError.
"""

from __future__ import annotations

from typing import Any, Callable

from .translate import extensions as _registry
from .translate.errors import UnsupportedError
from .translate.types import Type


# --- @overload -----------------------------------------------------------------------

def overload(func: Any, jit_options: dict | None = None, strict: bool = True,
             inline: str = "never", prefer_literal: bool = False, target: str = "cuda",
             **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """@overload(func): `template(*arg_types)` returns the implementation
    of `func` for those types (a Python function), or None. Kernels use the
    target="cuda" overloads (the default) before the "generic" ones."""
    def decorate(template: Callable[..., Any]) -> Callable[..., Any]:
        _registry.OVERLOADS.setdefault(func, []).append((target, template))
        return template
    return decorate


def overload_attribute(typ: Any, attr: str, target: str = "cuda",
                       **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """@overload_attribute(TypeClass, "name"): `value.name` of a value whose
    type is a TypeClass is `template(value_type)(value)`, translated as a
    device function."""
    def decorate(template: Callable[..., Any]) -> Callable[..., Any]:
        _registry.ATTRIBUTE_OVERLOADS.setdefault((typ, attr), []).append((target, template))
        return template
    return decorate


def register_jitable(*args: Any, **kwargs: Any) -> Any:
    """@register_jitable: the function is callable from kernels as it is
    (and from Python)."""
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        overload(fn)(lambda *arg_types, **kw: fn)
        return fn
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return wrap(args[0])
    return wrap


# --- @intrinsic ----------------------------------------------------------------------

class _Intrinsic:
    """An @intrinsic: its code generator writes LLVM IR."""

    def __init__(self, definition: Callable[..., Any]) -> None:
        self._definition = definition
        self.__name__ = getattr(definition, "__name__", "intrinsic")
        self.__doc__ = definition.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise UnsupportedError(
            f"@intrinsic {self.__name__} generates LLVM IR, which cudakit's kernels (compiled "
            "from CUDA C++) cannot contain: write it as a @cuda.jit(device=True) function, "
            "or in CUDA C++ with cuda.declare_device(..., link=...)")


def intrinsic(*args: Any, **kwargs: Any) -> Any:
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return _Intrinsic(args[0])
    return _Intrinsic


# --- a program's own types -------------------------------------------------------------

class _TypeofRegistry:
    """typeof_impl: `@typeof_impl.register(cls)` gives values of cls a type."""

    def register(self, cls: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            _registry.TYPEOF[cls] = fn
            return fn
        return decorate

    def __call__(self, value: Any, context: Any = None) -> Any:
        for cls in type(value).__mro__:
            if cls in _registry.TYPEOF:
                return _registry.TYPEOF[cls](value, context)
        return None


typeof_impl = _TypeofRegistry()


class _StructModel:
    """core_models.StructModel(dmm, fe_type, members): the type is a C
    struct of `members` [(name, type), ...] in order."""

    def __init__(self, dmm: Any, fe_type: Any, members: list[tuple[str, Any]]) -> None:
        self.fe_type = fe_type
        self._members = list(members)


class core_models:  # noqa: N801 (Numba's module name)
    StructModel = _StructModel


def register_model(type_class: type) -> Callable[[type], type]:
    """@register_model(TypeClass) class M(core_models.StructModel): values of
    TypeClass's types are C structs of M's members."""
    def decorate(model: type) -> type:
        if not (isinstance(model, type) and issubclass(model, _StructModel)):
            raise TypeError(f"register_model({type_class.__name__}): cudakit translates "
                            "struct data models only (core_models.StructModel subclasses)")
        instance = model(None, type_class.__new__(type_class))
        _registry.STRUCT_MODELS[type_class] = _registry.StructLayout(instance._members)
        return model
    return decorate


def make_attribute_wrapper(typeclass: type, struct_attr: str, python_attr: str) -> None:
    """`value.python_attr` reads (and writes) the struct member struct_attr."""
    layout = _registry.STRUCT_MODELS.get(typeclass)
    if layout is None:
        raise TypeError(f"make_attribute_wrapper: register the data model of "
                        f"{typeclass.__name__} first (@register_model)")
    if struct_attr not in [name for name, _ in layout.members]:
        raise TypeError(f"make_attribute_wrapper: {typeclass.__name__}'s model has no member "
                        f"{struct_attr!r}")
    layout.attributes[python_attr] = struct_attr


def type_callable(func: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """@type_callable(cls): `typer_maker(context)` returns typer(*arg_types)
    giving the type of `cls(...)` called in a kernel."""
    def decorate(typer_maker: Callable[..., Any]) -> Callable[..., Any]:
        _registry.CALLABLE_TYPERS[func] = typer_maker
        return typer_maker
    return decorate


__all__ = ["Type", "core_models", "intrinsic", "make_attribute_wrapper", "overload",
           "overload_attribute",
           "register_jitable", "register_model", "type_callable", "typeof_impl"]
