"""Which of a dispatcher's explicit signatures a call's argument types
select, by Numba's rules: each argument converts to the signature's type
exactly, by promotion (a wider type of the same kind), safely (no value is
lost) or unsafely (float64 -> int64, float64 -> float32); a signature one
argument cannot convert to (complex -> float) is out. The best signature
has the fewest unsafe conversions, then safe ones, then promotions; two
equally good ones are ambiguous (a kernel launch refuses them; a device
function call takes the first, as Numba does).
"""

from __future__ import annotations

import itertools
from typing import Sequence

from .translate import types as t

EXACT, PROMOTE, SAFE, UNSAFE = 0, 1, 2, 3

# Numba's casting rules between number types (numba.core.typeconv.rules):
# (from, to, kind of from -> to, kind of to -> from, or None for no way back).
_RULES = [
    ("boolean", "int8", SAFE, UNSAFE), ("boolean", "uint8", SAFE, UNSAFE),
    ("int8", "int16", PROMOTE, UNSAFE), ("uint8", "uint16", PROMOTE, UNSAFE),
    ("int16", "int32", PROMOTE, UNSAFE), ("uint16", "uint32", PROMOTE, UNSAFE),
    ("int32", "int64", PROMOTE, UNSAFE), ("uint32", "uint64", PROMOTE, UNSAFE),
    ("uint8", "int16", SAFE, UNSAFE), ("uint16", "int32", SAFE, UNSAFE),
    ("uint32", "int64", SAFE, UNSAFE),
    ("int16", "float32", SAFE, UNSAFE), ("int32", "float64", SAFE, UNSAFE),
    ("int64", "float64", UNSAFE, UNSAFE), ("uint64", "float64", UNSAFE, UNSAFE),
    ("float16", "float32", PROMOTE, UNSAFE),
    ("float32", "float64", PROMOTE, UNSAFE),
    ("float32", "complex64", SAFE, None), ("float64", "complex128", SAFE, None),
    ("complex64", "complex128", PROMOTE, UNSAFE),
]


def _closure() -> dict[tuple[str, str], int]:
    """The best kind of conversion between every two number types: over the
    paths of the rules, a path as bad as its worst step."""
    best: dict[tuple[str, str], int] = {(n, n): EXACT for n in t.SCALARS}
    for a, b, forward, backward in _RULES:
        best[a, b] = forward
        if backward is not None:
            best[b, a] = backward
    names = list(t.SCALARS)
    for via, a, b in itertools.product(names, names, names):
        if (a, via) in best and (via, b) in best:
            kind = max(best[a, via], best[via, b])
            if kind < best.get((a, b), UNSAFE + 1):
                best[a, b] = kind
    return best


_SCALAR_CONVERSIONS = _closure()


def conversion(got: t.Type, want: t.Type) -> int | None:
    """The kind of conversion of an argument of type `got` to `want`, or
    None when there is none."""
    if got == want:
        return EXACT
    if isinstance(want, t.Scalar):
        if not isinstance(got, t.Scalar):
            return None
        return _SCALAR_CONVERSIONS.get((got.name, want.name))
    if isinstance(want, t.ArrayT):
        if not (isinstance(got, t.ArrayT) and got.dtype == want.dtype
                and got.ndim == want.ndim):
            return None
        return EXACT if got.layout == want.layout else SAFE if want.layout == "A" else None
    if isinstance(want, t.PointerT):
        # An address: a Python int (such as __cuda_array_interface__'s).
        return UNSAFE if isinstance(got, t.Scalar) and got.kind in "iu" else None
    return UNSAFE  # (other kinds: the launch's converter checks the value)


def _rating(arg_types: Sequence[t.Type], wanted: Sequence[t.Type]) -> tuple[int, ...] | None:
    if len(arg_types) != len(wanted):
        return None
    kinds = [conversion(got, want) for got, want in zip(arg_types, wanted)]
    if any(k is None for k in kinds):
        return None
    return tuple(kinds.count(k) for k in (UNSAFE, SAFE, PROMOTE))


def best_signatures(arg_types: Sequence[t.Type],
                    signatures: Sequence[t.Signature]) -> list[t.Signature]:
    """The signatures the arguments fit best (several: ambiguous; none:
    no signature fits), in the order they were given."""
    rated = [(r, sig) for sig in signatures
             if (r := _rating(arg_types, sig.args)) is not None]
    if not rated:
        return []
    best = min(r for r, _ in rated)
    return [sig for r, sig in rated if r == best]


def numba_repr(ty: t.Type) -> str:
    """A type as Numba's messages print it (Array(float64, 1, 'C', False,
    aligned=True) for an array)."""
    if isinstance(ty, t.ArrayT):
        return f"Array({ty.dtype}, {ty.ndim}, '{ty.layout}', False, aligned=True)"
    return str(ty)


def types_text(types: Sequence[t.Type]) -> str:
    return "(" + ", ".join(numba_repr(ty) for ty in types) + ")"
