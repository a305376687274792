"""numba-cuda's vector types in kernels (cuda.float32x4, cuda.int2, ...):
CUDA's own float4, int2, ... (the CPU backend's prelude has the same
structs, with CUDA's alignment). Made from numbers and other vectors whose
components add up to the count (float32x4(f2, 1.0, f1)), read with .x, .y,
.z, .w (read-only, as in Numba), kernel locals, device-function arguments
and results."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator

ATTRIBUTES = ("x", "y", "z", "w")
# Element type -> CUDA's name of its vectors (char4, longlong2, ...).
_CUDA_NAMES = {"int8": "char", "int16": "short", "int32": "int", "int64": "longlong",
               "uint8": "uchar", "uint16": "ushort", "uint32": "uint", "uint64": "ulonglong",
               "float32": "float", "float64": "double"}
BASE_NAMES = tuple(_CUDA_NAMES)


@dataclass(frozen=True)
class VectorT(t.Type):
    """numba.cuda.vector_types.VectorType: `count` components of `base`."""

    base: t.Scalar
    count: int

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.base}x{self.count}"

    def __str__(self) -> str:
        return self.name

    @property
    def ctype(self) -> str:
        return f"{_CUDA_NAMES[str(self.base)]}{self.count}"

    # numba-cuda's VectorType API
    @property
    def base_type(self) -> t.Scalar:
        return self.base

    @property
    def num_elements(self) -> int:
        return self.count

    @property
    def attr_names(self) -> tuple[str, ...]:
        return ATTRIBUTES[:self.count]

    @property
    def user_facing_object(self) -> Any:
        from .. import vector_types
        return vector_types.STUBS[self.name]


def attribute(tr: "FunctionTranslator", base: Val, node: ast.Attribute) -> Val:
    vector = base.type
    assert isinstance(vector, VectorT)
    if node.attr not in vector.attr_names:
        raise tr.typing_error(f"{vector} has no attribute {node.attr!r} (it has "
                              f"{', '.join(vector.attr_names)})", node)
    return tr.value(vector.base, f"({base.code}).{node.attr}")


def construct(tr: "FunctionTranslator", vector: VectorT, args: list[Val], kwargs: dict,
              node: ast.AST) -> Val:
    """vector(args): each argument a number (converted to the element type)
    or a vector of the same element type, their components `vector.count`."""
    if kwargs:
        raise tr.typing_error(f"{vector}() takes no keyword arguments", node)
    components: list[str] = []
    temporaries: list[str] = []
    for arg in args:
        if isinstance(arg.type, VectorT):
            if arg.type.base != vector.base:
                raise tr.typing_error(f"{vector}() takes {vector.base} vectors, got "
                                      f"{arg.describe()}", node)
            code = arg.code
            if not re.fullmatch(r"[A-Za-z_]\w*", code):  # evaluated once
                code = f"ck_vector_arg{len(temporaries)}"
                temporaries.append(f"const {arg.type.ctype} {code} = {arg.code};")
            components.extend(f"{code}.{a}" for a in arg.type.attr_names)
        elif isinstance(arg.type, t.Scalar) and arg.type.kind in "biuf":
            components.append(f"({vector.base.ctype})({tr.cast(arg, vector.base)})")
        else:
            raise tr.typing_error(f"{vector}() takes numbers and {vector.base} vectors, got "
                                  f"{arg.describe()}", node)
    if len(components) != vector.count:
        raise tr.typing_error(f"{vector}() needs {vector.count} components in all, got "
                              f"{len(components)} from ({', '.join(a.describe() for a in args)})",
                              node)
    made = f"{vector.ctype}{{{', '.join(components)}}}"
    if temporaries:
        made = f"([&]() {{ {' '.join(temporaries)} return {made}; }}())"
    return tr.value(vector, made)


def register() -> None:
    from .. import vector_types
    from . import intrinsics
    for stub in vector_types.STUBS.values():
        vector = stub.vector_type
        intrinsics._register_object(
            stub, lambda tr, node, args, kwargs, v=vector: construct(tr, v, args, kwargs, node))
