"""`numba.cuda.cudaimpl`: Numba's registry of lowering functions. `lower`
records a program's constructor for its own struct type (see
cudakit.cuda.extending); the implementation is run with cgutils' struct
proxy, whose members become the C struct's."""

from __future__ import annotations

from typing import Any, Callable

from .translate import extensions as _registry


def lower(func: Any, *arg_types: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """@lower(func, *arg_types): how a call of func with these types is built."""
    def decorate(impl: Callable[..., Any]) -> Callable[..., Any]:
        _registry.LOWERINGS.setdefault(func, []).append((tuple(arg_types), impl))
        return impl
    return decorate
