"""`numba.cuda.libdevice`: CUDA's libdevice math functions, callable in
kernels (`libdevice.sincos(x)` returns the tuple (sin, cos),
`libdevice.frexp(x)` (fraction, exponent)); each becomes the CUDA math
function of the same name (`__nv_fast_sinf` is `__sinf`, `__nv_dadd_rn` is
`__dadd_rn`). The argument and return types are libdevice's, listed in
`libdevicefuncs.functions`. On the host they are not callable."""

from __future__ import annotations

from typing import Any, Callable

from .libdevicefuncs import create_signature, functions


def _make(libname: str) -> Callable[..., Any]:
    retty, args = functions[libname]
    name = libname[5:]

    def stub(*values: Any) -> Any:
        raise RuntimeError(f"libdevice.{name}() can only be called inside a @cuda.jit function")

    sig = create_signature(retty, args)
    params = ", ".join(f"{a.name}: {a.ty}" for a in args if not a.is_ptr)
    stub.__name__ = stub.__qualname__ = name
    stub.__module__ = __name__
    stub.__doc__ = (f"libdevice's {libname}({params}) -> {sig.return_type}\n\n"
                    f"See https://docs.nvidia.com/cuda/libdevice-users-guide/{libname}.html")
    return stub


for _libname in functions:
    globals()[_libname[5:]] = _make(_libname)

__all__ = [n[5:] for n in functions]
