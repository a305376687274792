"""Calls of foreign device functions (cuda.declare_device, Numba's ABI or
the C ABI) and cffi's ffi.from_buffer(array) as their pointer arguments."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


def is_cffi_from_buffer(obj: Any) -> bool:
    """cffi.FFI().from_buffer, recognised without importing cffi."""
    owner = getattr(obj, "__self__", None)
    return (getattr(obj, "__name__", None) == "from_buffer" and owner is not None
            and type(owner).__module__.split(".")[0] in ("cffi", "_cffi_backend"))


class ForeignCallsMixin:
    def cffi_from_buffer(self: "FunctionTranslator", args: list[Val], kwargs: dict[str, Val],
                         node: ast.AST) -> Val:
        """ffi.from_buffer(array) in a kernel: a pointer to a contiguous array's
        data (for foreign functions taking CPointer arguments)."""
        if len(args) != 1 or kwargs or not isinstance(args[0].type, t.ArrayT):
            raise self.typing_error("ffi.from_buffer() takes one array in a kernel", node)
        at = args[0].type
        if at.layout != "C" and at.static_shape is None:
            raise self.typing_error(f"ffi.from_buffer() needs a C-contiguous array, got {at}",
                                    node)
        code = args[0].code if at.static_shape is not None else f"{args[0].code}.data"
        return self.value(t.PointerT(at.dtype), code)

    def foreign_call(self: "FunctionTranslator", function: Any, args: list[Val],
                     node: ast.AST) -> Val:
        """A declare_device function: `name(&result, args...)` (Numba's ABI)."""
        sig = function.signature
        if len(args) != len(sig.args):
            raise self.typing_error(f"{function.name}() takes {len(sig.args)} arguments, "
                                    f"{len(args)} given", node)
        codes = []
        for i, (arg, want) in enumerate(zip(args, sig.args)):
            if isinstance(want, t.ArrayT):
                raise self.typing_error(
                    f"argument {i} of {function.name}() is declared as an array: foreign "
                    "functions take numbers and pointers; declare it CPointer("
                    f"{want.dtype}) and pass ffi.from_buffer(array)", node)
            if isinstance(want, t.PointerT):
                if isinstance(arg.type, t.PointerT) and arg.type.dtype == want.dtype:
                    codes.append(arg.code)
                    continue
                if isinstance(arg.type, t.ArrayT) and arg.type.dtype == want.dtype \
                        and arg.type.layout == "C" and arg.type.static_shape is None:
                    codes.append(f"{arg.code}.data")  # a contiguous array's first element
                    continue
            elif isinstance(arg.type, t.Scalar):
                codes.append(self.cast(arg, want))
                continue
            raise self.typing_error(f"argument {i} of {function.name}() is {want}, got "
                                    f"{arg.describe()}", node)
        result = sig.return_type
        if getattr(function, "abi", "numba") == "c":  # T name(args...): called as it is
            params = ", ".join(self.ctype(a) for a in sig.args)
            self.program.declare_foreign(
                function.name, f'extern "C" __device__ {self.ctype(result)} '
                               f'{function.name}({params});', function.link)
            call = f"{function.name}({', '.join(codes)})"
            if result == t.none:
                self.emit(f"{call};")
                return self.value(t.none, "")
            return self.value(result, call)
        # Numba's ABI: int name(T* result, args...); a void function has a slot too.
        slot = "int" if result == t.none else result.ctype
        params = ", ".join([f"{'void' if result == t.none else slot}*"]
                           + [self.ctype(a) for a in sig.args])
        self.program.declare_foreign(
            function.name, f'extern "C" __device__ int {function.name}({params});',
            function.link)
        self.program.need_helper("ffi_out")
        temp = self.fresh("ffi")
        self.emit(f"{slot} {temp};")
        self.emit(f"(void){function.name}(ck_ffi_out{{&{temp}}}"
                  f"{''.join(', ' + c for c in codes)});")
        return self.value(t.none, "") if result == t.none else self.value(result, temp)
