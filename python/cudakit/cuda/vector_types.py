"""numba-cuda's vector types: cuda.float32x4, cuda.int32x2, ... (int8 ...
uint64, float32, float64 elements; 1 to 4 components) and their C aliases
(cuda.float4, cuda.int2, cuda.double3, cuda.ulonglong1, ...), used inside
kernels (translate/vectors.py). `vector_types` maps each name to its type
(numba.cuda.vector_types.vector_types): .name, .base_type, .num_elements,
.attr_names, .user_facing_object (the constructor)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .translate import types as t
from .translate.vectors import ATTRIBUTES, BASE_NAMES, VectorT

VectorType = VectorT


class Stub:
    """A vector type's constructor. In kernels it makes CUDA's vector; on
    the host (as numba-cuda's simulator) an object with the same
    components, each converted to the element type."""

    vector_type: VectorT
    aliases: list[str]

    def __init__(self, *args: Any) -> None:
        components: list[Any] = []
        for arg in args:
            components.extend(arg._components() if isinstance(arg, Stub) else [arg])
        vector = self.vector_type
        if len(components) != vector.count:
            raise TypeError(f"{vector}() needs {vector.count} components in all, got "
                            f"{len(components)}")
        dtype = np.dtype(str(vector.base))
        for name, value in zip(vector.attr_names, components):
            object.__setattr__(self, name, np.asarray(value).astype(dtype)[()])

    def _components(self) -> list[Any]:
        return [getattr(self, name) for name in self.vector_type.attr_names]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__}'s components are read-only")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(str, self._components()))})"


def _stubs() -> dict[str, type]:
    stubs = {}
    for base in BASE_NAMES:
        for count in (1, 2, 3, 4):
            vector = VectorT(getattr(t, base), count)
            stub = type(vector.name, (Stub,), {
                "vector_type": vector, "aliases": [], "_description_": f"<{vector.name}>",
                "__doc__": f"{vector.name}({', '.join(ATTRIBUTES[:count])}): a CUDA "
                           "vector, in kernels.", "__module__": __name__})
            stubs[vector.name] = stub
    # C's names, by the sizes of C's types here (as numba-cuda names them).
    c_types = {"char": np.byte, "short": np.short, "int": np.intc, "long": np.int_,
               "longlong": np.longlong, "uchar": np.ubyte, "ushort": np.ushort,
               "uint": np.uintc, "ulong": np.uint, "ulonglong": np.ulonglong,
               "float": np.single, "double": np.double}
    for alias, c_type in c_types.items():
        dtype = np.dtype(c_type)
        base = f"{'float' if dtype.kind == 'f' else 'uint' if dtype.kind == 'u' else 'int'}" \
               f"{dtype.itemsize * 8}"
        for count in (1, 2, 3, 4):
            stubs[f"{base}x{count}"].aliases.append(f"{alias}{count}")
    return stubs


STUBS = _stubs()
vector_types: dict[str, VectorT] = {name: stub.vector_type for name, stub in STUBS.items()}


def exported() -> dict[str, type]:
    """Every name under cuda.: the types' names and their aliases."""
    names = {}
    for name, stub in STUBS.items():
        names[name] = stub
        for alias in stub.aliases:
            names[alias] = stub
    return names


__all__ = ["VectorType", "vector_types"]
