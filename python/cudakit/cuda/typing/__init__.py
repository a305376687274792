"""`numba.cuda.typing`: building signatures (`signature(return_type,
*args)`) and the kernel type of a Python value (`typeof`)."""

from __future__ import annotations

from typing import Any

from ..translate import types as t
from .typeof import Purpose, typeof  # noqa: F401


def _return_type(spec: Any) -> t.Type:
    if isinstance(spec, t.Type):
        return spec
    from ..api import _Void
    if spec is None or isinstance(spec, _Void):
        return t.none
    if not isinstance(spec, t.Type):
        raise TypeError(f"signature: the return type must be a type such as int32 or void, "
                        f"got {spec!r}")
    return spec


def signature(return_type: Any, *args: Any) -> t.Signature:
    """The signature `return_type(*args)`, as `float32(int32, float32[:])`
    builds it; `void` (or None) for kernels."""
    for i, arg in enumerate(args):
        if not isinstance(arg, t.Type):
            raise TypeError(f"signature: argument {i} must be a type such as int32 or "
                            f"float32[:], got {arg!r}")
    return t.Signature(_return_type(return_type), tuple(args))


__all__ = ["Purpose", "signature", "typeof"]
