"""CUDA's vector types as numpy dtypes: PyCUDA's ``gpuarray.vec``.

``vec.float3`` is the numpy dtype of CUDA's ``float3`` (fields x, y, z),
``vec.make_float3(1, 2, 3)`` a 0-d array of it, usable as a kernel argument
passed by value and as the dtype of host and device arrays (``float3*``).
Sizes are CUDA's; as in PyCUDA the dtypes are packed, so an array of
``float4`` is aligned as its allocation is (cudakit's allocations are
aligned to 256 bytes, numpy's to 16).
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

_FIELDS = ("x", "y", "z", "w")

# Vector type families: C base name, numpy base type, the counts CUDA has.
# `long` is 64 bits on every platform cudakit runs on (LP64).
_FAMILIES: list[tuple[str, Any, tuple[int, ...]]] = [
    ("char", np.int8, (1, 2, 3, 4)),
    ("uchar", np.uint8, (1, 2, 3, 4)),
    ("short", np.int16, (1, 2, 3, 4)),
    ("ushort", np.uint16, (1, 2, 3, 4)),
    ("int", np.int32, (1, 2, 3, 4)),
    ("uint", np.uint32, (1, 2, 3, 4)),
    ("long", np.int64 if sys.maxsize > 2**32 else np.int32, (1, 2, 3, 4)),
    ("ulong", np.uint64 if sys.maxsize > 2**32 else np.uint32, (1, 2, 3, 4)),
    ("longlong", np.int64, (1, 2)),
    ("ulonglong", np.uint64, (1, 2)),
    ("float", np.float32, (1, 2, 3, 4)),
    ("double", np.float64, (1, 2)),
]

# dtype -> C type name, for tools.dtype_to_ctype.
VECTOR_CTYPES: dict[np.dtype, str] = {}


class vec:
    """PyCUDA's ``gpuarray.vec``: one dtype and one make_ function per vector type."""

    # Filled in below: vec.float3 (a numpy dtype), vec.make_float3(x=0, y=0, z=0).


def _maker(name: str, dtype: np.dtype, count: int) -> Callable[..., np.ndarray]:
    fields = _FIELDS[:count]

    def make(*values: Any, **named: Any) -> np.ndarray:
        if len(values) > count:
            raise TypeError(f"make_{name} takes at most {count} values, got {len(values)}")
        components = list(values) + [0] * (count - len(values))
        for key, value in named.items():
            if key not in fields:
                raise TypeError(f"make_{name}: unknown field {key!r} (fields: {', '.join(fields)})")
            index = fields.index(key)
            if index < len(values):
                raise TypeError(f"make_{name}: field {key!r} given twice")
            components[index] = value
        return np.array(tuple(components), dtype=dtype)

    make.__name__ = f"make_{name}"
    make.__doc__ = f"A 0-d array of CUDA's {name} ({', '.join(fields)}; missing fields are 0)."
    return make


for _base, _type, _counts in _FAMILIES:
    for _count in _counts:
        _name = f"{_base}{_count}"
        _dtype = np.dtype([(field, _type) for field in _FIELDS[:_count]])
        VECTOR_CTYPES[_dtype] = _name
        setattr(vec, _name, _dtype)
        setattr(vec, f"make_{_name}", staticmethod(_maker(_name, _dtype, _count)))
