"""What `cuda.*`, `math.*`, NumPy scalar functions and Python builtins become
inside a kernel.

The host-side names (cuda.threadIdx, cuda.shared.array, ...) are Intrinsic
markers: the translator recognises them by identity and calls the handler
registered here under the marker's dotted name. Each handler gets the
translator and the typed arguments and returns a typed C++ expression.
"""

from __future__ import annotations

import ast
import builtins
import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from . import types as t
from .errors import ArgumentValueError

if TYPE_CHECKING:
    from .codegen import FunctionTranslator, Val


class Intrinsic:
    """A name that only means something inside a kernel (cuda.threadIdx,
    cuda.syncthreads, cuda.atomic.add ...). Attributes are child names."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def intrinsic_name(self) -> str:
        return self._name

    def __getattr__(self, attr: str) -> "Intrinsic":
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Intrinsic(f"{self._name}.{attr}")

    def __repr__(self) -> str:
        return f"<cuda.{self._name}: kernel-only>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"cuda.{self._name}() can only be called inside a @cuda.jit function")


Handler = Callable[["FunctionTranslator", ast.AST, list["Val"], dict[str, "Val"]], "Val"]
HANDLERS: dict[str, Handler] = {}
# Dotted names that are values, not calls: name -> (type, C++ expression).
VALUES: dict[str, tuple[t.Scalar, str]] = {}

for _dim in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
    for _axis in "xyz":
        VALUES[f"{_dim}.{_axis}"] = (t.int32, f"(int){_dim}.{_axis}")
VALUES["warpsize"] = (t.int32, "warpSize")
VALUES["laneid"] = (t.int32, "(int)(threadIdx.x % warpSize)")


def handler(*names: str) -> Callable[[Handler], Handler]:
    def register(function: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = function
        return function
    return register


def _const_int(tr: "FunctionTranslator", node: ast.AST, val: "Val", what: str) -> int:
    value = val.py
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise tr.typing_error(f"{what} must be an integer constant known when the kernel is "
                          f"compiled, got {val.describe()}", node)


def _ndim_arg(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], name: str) -> int:
    if len(args) != 1:
        raise tr.typing_error(f"cuda.{name}(ndim) takes one argument (1, 2 or 3)", node)
    if not isinstance(args[0].py, (int, np.integer)) or isinstance(args[0].py, bool):
        raise tr.typing_error(f"RequireLiteralValue: cuda.{name}'s ndim must be an integer "
                              f"constant known when the kernel is compiled, got "
                              f"{args[0].describe()}", node)
    ndim = int(args[0].py)
    if ndim not in (1, 2, 3):
        raise tr.typing_error(f"cuda.{name}(ndim): ndim must be 1, 2 or 3, got {ndim}", node)
    return ndim


@handler("grid")
def _grid(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    ndim = _ndim_arg(tr, node, args, "grid")
    items = [tr.value(t.int64, f"((long long)blockIdx.{a} * blockDim.{a} + threadIdx.{a})",
                      nonneg=True) for a in "xyz"[:ndim]]
    return items[0] if ndim == 1 else tr.tuple_value(items)


@handler("gridsize")
def _gridsize(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    ndim = _ndim_arg(tr, node, args, "gridsize")
    items = [tr.value(t.int64, f"((long long)blockDim.{a} * gridDim.{a})", nonneg=True)
             for a in "xyz"[:ndim]]
    return items[0] if ndim == 1 else tr.tuple_value(items)


def _static_array(space: str) -> Handler:
    def make(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        shape_val = args[0] if args else kw.get("shape")
        dtype_val = args[1] if len(args) > 1 else kw.get("dtype")
        if shape_val is None or dtype_val is None:
            raise tr.typing_error(f"cuda.{space}.array(shape, dtype) needs both arguments", node)
        items = shape_val.items if shape_val.items is not None else [shape_val]
        dtype = tr.dtype_of(dtype_val, node)
        if not all(isinstance(v.py, (int, np.integer)) and not isinstance(v.py, bool)
                   for v in items):
            # Numba's words, with its spelling of the argument types
            raise tr.typing_error(
                f"No implementation of function Function(<function {space}.array>) found for "
                f"signature:\n \n >>> array(shape={_numba_type_text(shape_val)}, "
                f"dtype=class({dtype}))\n\nthe shape of cuda.{space}.array must be an integer "
                "or a tuple of integers known when the kernel is compiled, got "
                f"{shape_val.describe()}", node)
        shape = tuple(_const_int(tr, node, v, f"the shape of cuda.{space}.array") for v in items)
        if any(n < 0 for n in shape):
            raise tr.typing_error(f"cuda.{space}.array: negative extent in shape {shape}", node)
        if space == "shared" and shape == (0,):
            # Dynamic shared memory (the launch's sharedmem bytes): every such
            # array starts at the same address, as in Numba.
            tr.program.need_helper("dynamic_shared")
            tr.program.uses_dynamic_shared = True
            view = t.ArrayT(dtype, 1, "C")
            extent = f"(long long)(ck_dynamic_shared_size / sizeof({dtype.ctype}))"
            return tr.value(view, f"{view.view_ctype}{{({dtype.ctype}*)ck_dynamic_shared, "
                                  f"{{{extent}}}, {{1LL}}}}", nonneg=True)
        if space == "shared" and 0 in shape:
            raise tr.typing_error("cuda.shared.array: only a 1-d shape of 0 (dynamic shared "
                                  f"memory) may be empty, got {shape}", node)
        return tr.static_array_request(space, dtype, shape, node,
                                       _alignment(tr, node, kw.get("alignment"), space))
    return make


def _numba_type_text(val: "Val") -> str:
    """A value's type as Numba prints it in a signature: Literal[int](1),
    Tuple(Literal[int](1), int32), array(float32, 1d, A)."""
    if val.items is not None:
        return "Tuple(" + ", ".join(_numba_type_text(v) for v in val.items) + ")"
    if isinstance(val.py, (int, np.integer)) and not isinstance(val.py, bool):
        return f"Literal[int]({int(val.py)})"
    return str(val.type) if val.type is not None else type(val.py).__name__


def _alignment(tr: "FunctionTranslator", node: ast.AST, val: "Val | None",
               space: str) -> int | None:
    """cuda.{local,shared}.array's alignment= in bytes, checked as Numba does."""
    if val is None or val.py is None:
        return None
    value = val.py
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise tr.typing_error(f"RequireLiteralValue: alignment must be a constant integer "
                              f"(cuda.{space}.array's alignment=, in bytes), got "
                              f"{val.describe()}", node)
    value = int(value)
    problem = ("Alignment must be positive" if value <= 0 else
               "Alignment must be a power of 2" if value & (value - 1) else
               "Alignment must be a multiple of 8" if value % 8 else None)
    if problem:
        raise ArgumentValueError(f"{problem}: cuda.{space}.array's alignment= is in bytes, a "
                                 f"power of 2 and a multiple of a pointer's 8, got {value}",
                                 tr.where, node)
    return value


HANDLERS["shared.array"] = _static_array("shared")
HANDLERS["local.array"] = _static_array("local")


@handler("const.array_like")
def _const_array_like(tr: "FunctionTranslator", node: ast.AST, args: list["Val"],
                      kw: dict) -> "Val":
    if len(args) == 1 and isinstance(args[0].type, t.ArrayT) and args[0].type.space == "const":
        return args[0]  # the global array, already frozen into constant memory
    if len(args) != 1 or not isinstance(args[0].py, np.ndarray):
        raise tr.typing_error("cuda.const.array_like(a) takes a NumPy array defined outside "
                              "the kernel (a global or closure variable)", node)
    return tr.constant_array(args[0].py, node)


def _statement(code: str, result: t.Type = t.none) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if args:
            raise tr.typing_error(f"{code}() takes no arguments", node)
        if code == "__syncthreads":
            tr.uses_barrier = True
        return tr.value(result, f"{code}()")
    return emit


HANDLERS["syncthreads"] = _statement("__syncthreads")
HANDLERS["threadfence"] = _statement("__threadfence")
HANDLERS["threadfence_block"] = _statement("__threadfence_block")
HANDLERS["threadfence_system"] = _statement("__threadfence_system")
HANDLERS["activemask"] = _statement("__activemask", t.uint32)
HANDLERS["lanemask_lt"] = lambda tr, node, args, kw: tr.value(
    t.uint32, "((1u << (threadIdx.x % warpSize)) - 1u)")


def _predicate(name: str) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 1:
            raise tr.typing_error(f"cuda.{name}(predicate) takes one argument", node)
        return tr.value(t.int32, f"__{name}({tr.truth(args[0], node)})")
    return emit


for _name in ("syncthreads_count", "syncthreads_and", "syncthreads_or"):
    HANDLERS[_name] = _predicate(_name)


def _grid_group(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    # cuda.cg.this_grid(): a compile-time handle; its sync() is the grid-wide
    # barrier. A kernel that takes the handle is launched cooperatively (every
    # block resident at once), as Numba decides, whether or not it syncs.
    from .values import Val
    if args or kw:
        raise tr.typing_error("cuda.cg.this_grid() takes no arguments", node)
    tr.program.uses_grid_sync = True
    return Val(None, "", Intrinsic("cg.grid"))


@handler("cg.grid.sync")
def _grid_sync(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    if args or kw:
        raise tr.typing_error("grid.sync() takes no arguments", node)
    tr.uses_barrier = True
    tr.program.uses_grid_sync = True
    return tr.value(t.none, "cooperative_groups::this_grid().sync()")


HANDLERS["cg.this_grid"] = _grid_group


@handler("syncwarp")
def _syncwarp(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    mask = tr.cast(args[0], t.uint32) if args else "0xffffffffu"
    return tr.value(t.none, f"__syncwarp({mask})")


def _warp_vote(name: str, result: t.Scalar) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 2:
            raise tr.typing_error(f"cuda.{name}(mask, predicate) takes two arguments", node)
        mask, predicate = args
        if not (isinstance(mask.type, t.Scalar) and mask.type.kind in "iu"):
            raise tr.typing_error(f"cuda.{name}: Mask type must be an integer, got "
                                  f"{mask.describe()}", node)
        if not (isinstance(predicate.type, t.Scalar) and predicate.type.kind in "iub"):
            raise tr.typing_error(f"cuda.{name}: Predicate must be an integer or boolean, "
                                  f"got {predicate.describe()}", node)
        call = f"__{name}({tr.cast(args[0], t.uint32)}, {tr.truth(args[1], node)})"
        return tr.value(result, call if result != t.boolean else f"({call} != 0)")
    return emit


HANDLERS["ballot_sync"] = _warp_vote("ballot_sync", t.uint32)
HANDLERS["all_sync"] = _warp_vote("all_sync", t.boolean)
HANDLERS["any_sync"] = _warp_vote("any_sync", t.boolean)


def _shuffle(name: str) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 3:
            raise tr.typing_error(f"cuda.{name}(mask, value, lane) takes three arguments", node)
        value = args[1]
        if not isinstance(value.type, t.Scalar) or value.type.kind in "bc" \
                or value.type == t.float16:
            raise tr.typing_error(f"cuda.{name} shuffles integers and floats, got "
                                  f"{value.describe()}", node)
        lane_type = t.uint32 if name in ("shfl_up_sync", "shfl_down_sync") else t.int32
        code = (f"__{name}({tr.cast(args[0], t.uint32)}, {value.code}, "
                f"{tr.cast(args[2], lane_type)})")
        return tr.value(value.type, code)
    return emit


for _name in ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync"):
    HANDLERS[_name] = _shuffle(_name)

# ---- atomics ---------------------------------------------------------------------------

_ATOMIC_NATIVE = {
    # operation -> element types CUDA has a native function for
    "add": ("int32", "uint32", "uint64", "float32", "float64"),
    "sub": ("int32", "uint32"),
    "max": ("int32", "uint32", "int64", "uint64"),
    "min": ("int32", "uint32", "int64", "uint64"),
    "exch": ("int32", "uint32", "uint64", "float32"),
    "and": ("int32", "uint32", "uint64"),
    "or": ("int32", "uint32", "uint64"),
    "xor": ("int32", "uint32", "uint64"),
    "inc": ("uint32",),
    "dec": ("uint32",),
}


def _atomic(op: str) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        want = 4 if op == "cas" else 3
        if len(args) != want:
            params = "array, index, old, value" if op == "cas" else "array, index, value"
            raise tr.typing_error(f"cuda.atomic.{op}({params}) takes {want} arguments", node)
        array = args[0]
        if not isinstance(array.type, t.ArrayT):
            raise tr.typing_error(f"cuda.atomic.{op}: the first argument must be an array, "
                                  f"got {array.describe()}", node)
        dtype = array.type.dtype
        element = "&" + tr.element_ref(array, args[1], node)
        value = tr.cast(args[2], dtype)
        if op == "cas":
            if dtype.name not in ("int32", "uint32", "uint64", "int64"):
                raise tr.typing_error(f"cuda.atomic.cas works on int32, uint32, int64 and "
                                      f"uint64 arrays, not {dtype}", node)
            new = tr.cast(args[3], dtype)
            if dtype.name == "int64":
                code = (f"(long long)atomicCAS((unsigned long long*){element}, "
                        f"(unsigned long long){value}, (unsigned long long){new})")
            else:
                code = f"atomicCAS({element}, {value}, {new})"
            return tr.value(dtype, code)
        if dtype.kind in "bc" or dtype.bits < 32:
            raise tr.typing_error(f"cuda.atomic.{op} needs 32- or 64-bit integer or float "
                                  f"elements, the array is {dtype}", node)
        if dtype.kind == "f" and op in ("and", "or", "xor", "inc", "dec"):
            raise tr.typing_error(f"cuda.atomic.{op} needs an integer array, got {dtype}", node)
        # Integers have no NaN: nanmax/nanmin are max/min.
        operation = op[3:] if op in ("nanmax", "nanmin") and dtype.kind != "f" else op
        native = f"atomic{operation.capitalize()}"
        if dtype.name in _ATOMIC_NATIVE.get(operation, ()):
            return tr.value(dtype, f"{native}({element}, {value})")
        if dtype.name == "int64" and op in ("add", "sub", "exch", "and", "or", "xor"):
            # Two's complement: the unsigned 64-bit operation gives the same bits.
            if op == "sub":
                native, value = "atomicAdd", f"(0ULL - (unsigned long long)({value}))"
            return tr.value(dtype, f"(long long){native}((unsigned long long*){element}, "
                                   f"(unsigned long long){value})")
        if op == "sub":
            return tr.value(dtype, f"atomicAdd({element}, -{value})")
        # Everything else: a compare-and-swap loop on the element's bits.
        tr.program.need_helper("atomic_update")
        return tr.value(dtype, f"ck_atomic_{operation}({element}, {value})")
    return emit


for _op in ("add", "sub", "max", "min", "nanmax", "nanmin", "exch", "and", "or", "xor", "inc",
            "dec", "cas"):
    HANDLERS[f"atomic.{_op}"] = _atomic(_op)
HANDLERS["atomic.and_"] = HANDLERS["atomic.and"]
HANDLERS["atomic.or_"] = HANDLERS["atomic.or"]
HANDLERS["atomic.compare_and_swap"] = lambda tr, node, args, kw: HANDLERS["atomic.cas"](
    tr, node, [args[0], tr.value(t.int64, "0", py=0)] + args[1:], kw)

# ---- math ----------------------------------------------------------------------------

# name -> C function for double; float32 uses the same name with an 'f'.
_UNARY_MATH = {
    "sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "fabs": "fabs",
    "erf": "erf", "erfc": "erfc", "gamma": "tgamma", "lgamma": "lgamma", "exp2": "exp2",
    "cbrt": "cbrt",
}
_BINARY_MATH = {"atan2": "atan2", "pow": "pow", "hypot": "hypot", "copysign": "copysign",
                "fmod": "fmod", "nextafter": "nextafter"}
_NP_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
             "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "absolute": "fabs",
             "power": "pow"}


def float_type_of(value_type: t.Type) -> t.Scalar:
    """math functions on float32 stay float32; integers go to float64."""
    if isinstance(value_type, t.Scalar) and value_type == t.float32:
        return t.float32
    return t.float64


def _math_unary(name: str, cname: str, numpy: bool) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 1 or not tr.is_number(args[0]):
            raise tr.typing_error(f"{'numpy' if numpy else 'math'}.{name}() takes one number",
                                  node)
        ft = float_type_of(args[0].type)
        suffix = "f" if ft == t.float32 else ""
        return tr.value(ft, f"{cname}{suffix}({tr.cast(args[0], ft)})")
    return emit


def _math_binary(name: str, cname: str, numpy: bool) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 2 or not all(tr.is_number(a) for a in args):
            raise tr.typing_error(f"{'numpy' if numpy else 'math'}.{name}() takes two numbers",
                                  node)
        both32 = all(float_type_of(a.type) == t.float32 for a in args)
        ft = t.float32 if both32 else t.float64
        suffix = "f" if ft == t.float32 else ""
        return tr.value(ft, f"{cname}{suffix}({tr.cast(args[0], ft)}, {tr.cast(args[1], ft)})")
    return emit


def _rounding(name: str, numpy: bool) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 1 or not tr.is_number(args[0]):
            raise tr.typing_error(f"math.{name}() takes one number", node)
        if isinstance(args[0].type, t.Scalar) and args[0].type.kind in "iub":
            return args[0] if numpy else tr.value(t.int64, tr.cast(args[0], t.int64))
        ft = float_type_of(args[0].type)
        call = f"{name}{'f' if ft == t.float32 else ''}({args[0].code})"
        # math.floor/ceil/trunc return int (int64), numpy's keep the float type.
        return tr.value(ft, call) if numpy else tr.value(t.int64, f"(long long){call}")
    return emit


def _classify(name: str) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 1 or not tr.is_number(args[0]):
            raise tr.typing_error(f"math.{name}() takes one number", node)
        if args[0].type.kind in "iub":  # type: ignore[union-attr]
            return tr.value(t.boolean, "true" if name == "isfinite" else "false")
        return tr.value(t.boolean, f"(bool){name}({args[0].code})")
    return emit


def _angle(factor: str) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        ft = float_type_of(args[0].type)
        return tr.value(ft, f"({tr.cast(args[0], ft)} * ({ft.ctype})({factor}))")
    return emit


# Registered under the Python objects themselves (math.sqrt, np.sqrt ...).
OBJECT_HANDLERS: dict[int, tuple[Any, Handler]] = {}


def _register_object(obj: Any, function: Handler) -> None:
    OBJECT_HANDLERS[id(obj)] = (obj, function)


for _name, _c in _UNARY_MATH.items():
    if hasattr(math, _name):
        _register_object(getattr(math, _name), _math_unary(_name, _c, False))
    if hasattr(np, _name) and _name not in ("gamma", "lgamma", "erf", "erfc", "fabs"):
        _register_object(getattr(np, _name), _math_unary(_name, _c, True))
for _name, _c in _BINARY_MATH.items():
    if hasattr(math, _name):
        _register_object(getattr(math, _name), _math_binary(_name, _c, False))
    if hasattr(np, _name):
        _register_object(getattr(np, _name), _math_binary(_name, _c, True))
# IEEE's remainder (math's only: NumPy's remainder is Python's %).
_register_object(math.remainder, _math_binary("remainder", "remainder", False))
for _np_name, _c in _NP_NAMES.items():
    _maker = _math_binary if _c in _BINARY_MATH else _math_unary
    _register_object(getattr(np, _np_name), _maker(_np_name, _c, True))
for _name in ("floor", "ceil", "trunc"):
    _register_object(getattr(math, _name), _rounding(_name, False))
    _register_object(getattr(np, _name), _rounding(_name, True))
for _name in ("isnan", "isinf", "isfinite"):
    _register_object(getattr(math, _name), _classify(_name))
    _register_object(getattr(np, _name), _classify(_name))
_register_object(math.radians, _angle("3.14159265358979323846 / 180.0"))
_register_object(math.degrees, _angle("180.0 / 3.14159265358979323846"))
_register_object(np.deg2rad, _angle("3.14159265358979323846 / 180.0"))
_register_object(np.rad2deg, _angle("180.0 / 3.14159265358979323846"))
_register_object(np.radians, _angle("3.14159265358979323846 / 180.0"))
_register_object(np.degrees, _angle("180.0 / 3.14159265358979323846"))


def _complex_min_max(tr: "FunctionTranslator", which: str, args: list["Val"],
                     result: t.Scalar, nan_wins: bool) -> "Val":
    """NumPy's maximum / minimum (nan_wins) and fmax / fmin of complex numbers."""
    tr.program.need_helper("numpy_min_max")
    helper = "ck_cmax" if which.endswith("max") else "ck_cmin"
    return tr.value(result, f"{helper}({tr.cast(args[0], result)}, {tr.cast(args[1], result)}, "
                            f"{'true' if nan_wins else 'false'})")


def _numpy_min_max(which: str) -> Handler:
    """np.maximum / np.minimum of two numbers: a NaN on either side gives NaN
    (Python's max / min keep the first operand instead)."""
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 2 or kw or not all(tr.is_number(a) for a in args):
            return _min_max(which)(tr, node, args, kw)  # (its errors)
        result = t.promote(args[0].type, args[1].type)  # type: ignore[arg-type]
        if result.kind == "c":
            return _complex_min_max(tr, which, args, result, nan_wins=True)
        if result.kind != "f":
            return _min_max(which)(tr, node, args, kw)
        tr.program.need_helper("numpy_min_max")
        return tr.value(result, f"ck_np_{which}({tr.cast(args[0], result)}, "
                                f"{tr.cast(args[1], result)})")
    return emit


def _fmin_fmax(which: str) -> Handler:
    """np.fmin / np.fmax: NaN only when both are NaN (C's fmin / fmax)."""
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) != 2 or kw or not all(tr.is_number(a) for a in args):
            raise tr.typing_error(f"numpy.{which}() takes two numbers", node)
        result = t.promote(args[0].type, args[1].type)  # type: ignore[arg-type]
        if result.kind == "c":
            return _complex_min_max(tr, which, args, result, nan_wins=False)
        if result.kind != "f":
            return _min_max(which[1:])(tr, node, args, kw)
        suffix = "f" if result == t.float32 else ""
        return tr.value(result, f"{which}{suffix}({tr.cast(args[0], result)}, "
                                f"{tr.cast(args[1], result)})")
    return emit


_register_object(np.fmin, _fmin_fmax("fmin"))
_register_object(np.fmax, _fmin_fmax("fmax"))

MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf,
                  "nan": math.nan}

# ---- builtins ------------------------------------------------------------------------


def _abs(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    if len(args) != 1 or not tr.is_number(args[0]):
        raise tr.typing_error("abs() takes one number", node)
    value = args[0]
    vt = value.type
    assert isinstance(vt, t.Scalar)
    if vt.kind == "f":
        return tr.value(vt, f"fabs{'f' if vt == t.float32 else ''}({value.code})")
    if vt.kind == "u":
        return value
    if vt.kind == "b":
        return tr.value(t.int64, tr.cast(value, t.int64))
    # In its own type, as Numba's: abs() of the smallest value is itself.
    tr.program.need_helper("wrap_int")
    return tr.value(vt, f"ck_abs<{vt.ctype}>({value.code})")


def _min_max(which: str) -> Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) == 1 and args[0].items is not None:
            args = args[0].items
        if len(args) < 2 or not all(tr.is_number(a) for a in args):
            raise tr.typing_error(f"{which}() in a kernel takes two or more numbers", node)
        if any(a.type.kind == "c" for a in args):  # type: ignore[union-attr]
            raise tr.typing_error(f"{which}() of complex numbers (they are not ordered)", node)
        if len(args) == 2 and all(a.type in (t.float32, t.float64) for a in args):
            # Numba's CUDA target: fmax / fmin (a NaN operand gives the other one).
            result = t.float32 if args[0].type == args[1].type == t.float32 else t.float64
            suffix = "f" if result == t.float32 else ""
            return tr.value(result, f"f{which}{suffix}({tr.cast(args[0], result)}, "
                                    f"{tr.cast(args[1], result)})")
        result_type = args[0].type
        for a in args[1:]:
            result_type = t.unify(result_type, a.type)  # type: ignore[arg-type]
        tr.program.need_helper("min_max")
        code = tr.cast(args[0], result_type)
        for a in args[1:]:
            code = f"ck_{which}({code}, {tr.cast(a, result_type)})"
        return tr.value(result_type, code)
    return emit


def _round(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    if len(args) == 1 and tr.is_number(args[0]):
        if args[0].type.kind in "iub":  # type: ignore[union-attr]
            return tr.value(t.int64, tr.cast(args[0], t.int64))
        # rint rounds half to even, as Python's round does.
        return tr.value(t.int64, f"(long long)rint({tr.cast(args[0], t.float64)})")
    if len(args) == 2 and tr.is_number(args[0]) and not args[1].known:
        # ndigits known only when the kernel runs: Numba's (CPython's fallback) algorithm.
        if not (isinstance(args[1].type, t.Scalar) and args[1].type.kind in "iu"):
            raise tr.typing_error(f"round(x, ndigits): ndigits must be an integer, got "
                                  f"{args[1].describe()}", node)
        ft = float_type_of(args[0].type)
        tr.program.need_helper("round_ndigits")
        return tr.value(ft, f"({ft.ctype})ck_round_ndigits({tr.cast(args[0], t.float64)}, "
                            f"{tr.cast(args[1], t.int64)})")
    if len(args) == 2 and tr.is_number(args[0]):
        digits = _const_int(tr, node, args[1], "round()'s ndigits")
        ft = float_type_of(args[0].type)
        scale = f"{10.0 ** digits!r}"
        return tr.value(ft, f"({ft.ctype})(rint({tr.cast(args[0], t.float64)} * {scale}) / "
                            f"{scale})")
    raise tr.typing_error("round() takes a number and an optional ndigits", node)


def _pow(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    if len(args) != 2:
        raise tr.typing_error("pow() in a kernel takes two numbers", node)
    return tr.binary_op(ast.Pow(), args[0], args[1], node)


def _len(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
    if len(args) == 1 and isinstance(args[0].type, t.ArrayT):
        return tr.array_attribute(args[0], "shape", node).items[0]  # type: ignore[index]
    if len(args) == 1 and args[0].items is not None:
        return tr.value(t.int64, str(len(args[0].items)), py=len(args[0].items))
    raise tr.typing_error("len() in a kernel takes an array or a tuple", node)


_register_object(builtins.abs, _abs)
_register_object(np.abs, _abs)
_register_object(np.fabs, _math_unary("fabs", "fabs", True))
_register_object(builtins.min, _min_max("min"))
_register_object(builtins.max, _min_max("max"))
_register_object(np.minimum, _numpy_min_max("min"))
_register_object(np.maximum, _numpy_min_max("max"))
_register_object(builtins.round, _round)
_register_object(builtins.pow, _pow)
_register_object(builtins.len, _len)

# Type constructors: int(x), float(x), bool(x), np.float32(x), cuda.float32(x).
CASTS: dict[int, tuple[Any, t.Scalar]] = {}
for _obj, _ty in ((builtins.int, t.int64), (builtins.float, t.float64),
                  (builtins.bool, t.boolean)):
    CASTS[id(_obj)] = (_obj, _ty)
for _name, _ty in t.SCALARS.items():
    _np_obj = getattr(np, "bool_" if _name == "boolean" else _name)
    CASTS[id(_np_obj)] = (_np_obj, _ty)
    CASTS[id(_ty)] = (_ty, _ty)


def float_of_text(tr: Any, node: Any, target: t.Scalar, text: str) -> "Val":
    """float("nan"), float("inf"), float("-1.5") of a constant string, as
    Numba folds them: the number, known at compile time."""
    try:
        number = float(text)
    except ValueError:
        raise tr.typing_error(f"{target}({text!r}): the string is not a number", node) from None
    from .codegen import c_literal
    from .values import Val
    value = float(np.float32(number)) if target == t.float32 else number
    return Val(target, c_literal(value, target), value)


def cast_target(obj: Any) -> t.Scalar | None:
    entry = CASTS.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def object_handler(obj: Any) -> Handler | None:
    entry = OBJECT_HANDLERS.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


# Complex and float16 numbers (cmath, cuda.fp16), then NumPy's ufuncs, on
# numbers and (elementwise in the calling thread) on arrays.
from . import bits_and_warps, complex_half, ufuncs  # noqa: E402 (they wrap the handlers above)

bits_and_warps.register()
complex_half.register()
ufuncs.register()

# numba.cuda.bf16's intrinsics and bfloat16(x).
from . import bfloat16  # noqa: E402

bfloat16.register()

# cuda.libdevice's functions and numpy_support.carray / farray.
from . import libdevice_calls  # noqa: E402

libdevice_calls.register()

# The operator module's functions (operator.add ...).
from . import operator_functions  # noqa: E402

operator_functions.register()

# NumPy's whole-array reductions (np.sum(a), np.max(a) ...).
from . import array_reductions  # noqa: E402

array_reductions.register()

# Loads and stores with a cache policy (cuda.ldcg, cuda.stcs ...).
from . import cache_hints  # noqa: E402

cache_hints.register()

# numba-cuda's vector types' constructors (cuda.float32x4, cuda.int2, ...).
from . import vectors  # noqa: E402

vectors.register()
