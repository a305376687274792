"""cuda.ldca / ldcg / ldcs / ldlu / ldcv (array, index) and cuda.stcg / stcs /
stwb / stwt (array, index, value): loads and stores of one element with a
cache policy, as numba-cuda has them (a CPointer indexes by one integer).
Each is CUDA's intrinsic of the same name (`__ldcg`), which a GPU runs as
the PTX load or store with that cache operator; the CPU backend, which has
no caches to steer, reads and writes the element.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from . import intrinsics
from . import program
from . import types as t

if TYPE_CHECKING:
    from .codegen import FunctionTranslator, Val

LOADS = ("ca", "cg", "cs", "lu", "cv")
STORES = ("cg", "cs", "wb", "wt")


def _helper_text() -> str:
    # Through an unsigned integer of the element's size: CUDA's __ldcg and
    # friends take those (and the CPU backend's take any type).
    lines = ["template <int Bytes> struct ck_hint_bits;",
             "template <> struct ck_hint_bits<1> { typedef unsigned char type; };",
             "template <> struct ck_hint_bits<2> { typedef unsigned short type; };",
             "template <> struct ck_hint_bits<4> { typedef unsigned int type; };",
             "template <> struct ck_hint_bits<8> { typedef unsigned long long type; };"]
    # On a GPU, PTX's load or store with the cache operator on the element's
    # bits (ld.global.ca.b8, as Numba emits them: CUDA's __ldca says .u8);
    # an 8-bit value travels in a 16-bit register.
    lines.append("#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__)")
    for bits, ctype, reg in _WIDTHS:
        held = "unsigned short" if bits == 8 else ctype
        for modifier in LOADS:
            lines.append(
                f"__device__ __forceinline__ {ctype} ck_ptx_ld_{modifier}(const {ctype}* p) {{ "
                f"{held} v; asm volatile(\"ld.global.{modifier}.b{bits} %0, [%1];\" : "
                f"\"={reg}\"(v) : \"l\"(__cvta_generic_to_global(p)) : \"memory\"); "
                f"return ({ctype})v; }}")
        for modifier in STORES:
            lines.append(
                f"__device__ __forceinline__ void ck_ptx_st_{modifier}({ctype}* p, {ctype} v) {{ "
                f"asm volatile(\"st.global.{modifier}.b{bits} [%0], %1;\" : : "
                f"\"l\"(__cvta_generic_to_global(p)), \"{reg}\"(({held})v) : \"memory\"); }}")
    lines.append("#endif")
    for modifier in LOADS:
        lines.append(f"""template <class T>
__device__ __forceinline__ T ck_ld_{modifier}(const T* p) {{
  typedef typename ck_hint_bits<sizeof(T)>::type U;
#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__)
  const U bits = ck_ptx_ld_{modifier}((const U*)p);
#else
  const U bits = __ld{modifier}((const U*)p);
#endif
  T value;
  memcpy(&value, &bits, sizeof(T));
  return value;
}}""")
    for modifier in STORES:
        lines.append(f"""template <class T>
__device__ __forceinline__ void ck_st_{modifier}(T* p, T value) {{
  typedef typename ck_hint_bits<sizeof(T)>::type U;
  U bits;
  memcpy(&bits, &value, sizeof(T));
#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__)
  ck_ptx_st_{modifier}((U*)p, bits);
#else
  __st{modifier}((U*)p, bits);
#endif
}}""")
    return "\n".join(lines)


# (bits, the unsigned type of that size, its asm register constraint)
_WIDTHS = ((8, "unsigned char", "h"), (16, "unsigned short", "h"), (32, "unsigned int", "r"),
           (64, "unsigned long long", "l"))


def _element(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], name: str) -> str:
    array, index = args[0], args[1]
    if isinstance(array.type, t.PointerT):
        return tr.pointer_ref(array, index, node)
    if not isinstance(array.type, t.ArrayT) or array.type.space != "global" \
            or not isinstance(array.type.dtype, t.Scalar) or array.type.dtype.kind not in "iuf":
        kind = ("array of integer or float type" if isinstance(array.type, t.ArrayT)
                and array.type.space == "global" else "a global array")
        raise tr.typing_error(f"{name} requires {kind}: cuda.{name}() takes a global array of "
                              f"numbers (or a CPointer), got {array.describe()}", node)
    ndim = array.type.ndim
    indices = index.items if index.items is not None else None
    if indices is None and ndim > 1:
        raise tr.typing_error(f"Expected {ndim} indices, got a scalar: cuda.{name}() of a "
                              f"{ndim}-d array takes a tuple of {ndim} integer indices", node)
    if indices is not None and len(indices) != ndim:
        raise tr.typing_error(f"Expected {ndim} indices, got {len(indices)}: cuda.{name}() "
                              f"of a {ndim}-d array takes {ndim} integer indices", node)
    for item in indices if indices is not None else [index]:
        if not (isinstance(item.type, t.Scalar) and item.type.kind in "iub"):
            raise tr.typing_error(f"{item.type} is not a valid index: cuda.{name}()'s indices "
                                  f"must be integers, got {item.describe()}", node)
    return tr.element_ref(array, index, node)


def _load(modifier: str) -> intrinsics.Handler:
    name = "ld" + modifier

    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 2 or kw:
            raise tr.typing_error(f"cuda.{name}(array, index) takes an array and an index",
                                  node)
        element = _element(tr, node, args, name)
        tr.program.need_helper("cache_hints")
        return tr.value(args[0].type.dtype, f"ck_ld_{modifier}(&{element})")  # type: ignore
    return emit


def _store(modifier: str) -> intrinsics.Handler:
    name = "st" + modifier

    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 3 or kw:
            raise tr.typing_error(f"cuda.{name}(array, index, value) takes an array, an index "
                                  "and a value", node)
        element = _element(tr, node, args, name)
        dtype = args[0].type.dtype  # type: ignore[union-attr]
        tr.program.need_helper("cache_hints")
        tr.emit(f"ck_st_{modifier}(&{element}, ({dtype.ctype})({tr.cast(args[2], dtype)}));")
        return tr.value(t.none, "")
    return emit


def register() -> None:
    program.HELPERS["cache_hints"] = _helper_text()
    for modifier in LOADS:
        intrinsics.HANDLERS["ld" + modifier] = _load(modifier)
    for modifier in STORES:
        intrinsics.HANDLERS["st" + modifier] = _store(modifier)
