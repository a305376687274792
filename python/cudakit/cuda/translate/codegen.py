"""Python function AST -> CUDA C++ function text.

One FunctionTranslator translates one specialization (a function and its
argument types). It walks the body twice or more: the passes before the last
only find the types of the local variables (typing.infer_locals drives them
to a fixed point with Numba's unification), the last one emits C++ with
every variable declared at the top, as Python scopes are function-wide.
"""

from __future__ import annotations

import ast
import enum
import math
from typing import Any

import numpy as np

from . import datetimes, intrinsics, nested_functions
from . import types as t
from .errors import TranslationError, TypingError, UnsupportedError
from .aggregates import AggregatesMixin
from .loops import LoopsMixin
from .attributes import AttributesMixin
from .foreign_calls import ForeignCallsMixin
from .printing import PrintMixin
from .operators import OperatorsMixin
from .parse import ParsedFunction
from .program import Program
from .recursion import PendingRecursion
from .values import NO_VALUE, StaticArray, Val
from .vectors import VectorT

CPP_RESERVED = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "int", "long", "register", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "bool", "class", "delete", "new", "this",
    "template", "typename", "namespace", "using", "private", "public", "protected",
    "virtual", "friend", "operator", "inline", "explicit", "mutable", "true", "false",
    "throw", "try", "catch", "asm", "export", "threadIdx", "blockIdx", "blockDim", "gridDim",
    "warpSize", "min", "max", "printf", "main", "signed", "double", "float", "sqrt", "exp",
    "log", "sin", "cos", "tan", "pow", "abs", "data", "shape", "strides",
    # C++'s alternative tokens, keywords Python does not have
    "and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq", "or_eq", "xor_eq",
    "not_eq", "alignas", "alignof", "char8_t", "char16_t", "char32_t", "concept",
    "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return",
    "co_yield", "decltype", "dynamic_cast", "noexcept", "nullptr", "reinterpret_cast",
    "requires", "static_assert", "static_cast", "thread_local", "typeid", "wchar_t",
}


def c_name(name: str) -> str:
    if name in CPP_RESERVED or name.startswith(("ck_", "__")):
        return name + "_"
    return name


def kernel_tuple_leaf_name(name: str, path: tuple[int, ...]) -> str:
    """The parameter of item `path` of a kernel's tuple argument `name`."""
    return f"{c_name(name)}_ckt{'_'.join(str(i) for i in path)}"


def c_literal(value: Any, ty: t.Scalar) -> str:
    """`value` as a C++ literal of type `ty`."""
    if isinstance(value, enum.Enum):  # an Enum member: its number
        value = value.value
    if ty.kind == "b":
        return "true" if value else "false"
    if ty.kind == "c":
        value = complex(value)
        part = t.float32 if ty == t.complex64 else t.float64
        make = "cudakit_c64" if ty == t.complex64 else "cudakit_c128"
        return f"{make}({c_literal(value.real, part)}, {c_literal(value.imag, part)})"
    if ty in (t.float16, t.bfloat16):
        return f"{ty.ctype}({c_literal(value, t.float32)})"
    if ty.kind == "f":
        value = float(value)
        # Bit patterns: NVRTC has no NAN / INFINITY macros without headers.
        if math.isnan(value):
            return ("__int_as_float(0x7fc00000)" if ty == t.float32
                    else "__longlong_as_double(0x7ff8000000000000LL)")
        if math.isinf(value):
            sign = "-" if value < 0 else ""
            return (f"({sign}__int_as_float(0x7f800000))" if ty == t.float32
                    else f"({sign}__longlong_as_double(0x7ff0000000000000LL))")
        text = repr(value)
        if "e" not in text and "." not in text:
            text += ".0"
        return text + ("f" if ty == t.float32 else "")
    value = t.wrapped(int(value), ty)  # (a constant converted to a narrower type)
    if ty.kind == "u":
        return f"{value}ULL" if ty.bits == 64 else f"{value}u"
    if value == -(2 ** (ty.bits - 1)) and ty.bits >= 32:
        # The smallest int32 / int64 has no literal: write it as an expression.
        suffix = "LL" if ty.bits == 64 else ""
        return f"({value + 1}{suffix} - 1)"
    if ty.bits == 64:
        return f"{value}LL"
    return str(value) if ty == t.int32 else f"({ty.ctype}){value}"


class FunctionTranslator(OperatorsMixin, AttributesMixin, ForeignCallsMixin, AggregatesMixin,
                         LoopsMixin, PrintMixin):
    def __init__(self, parsed: ParsedFunction, arg_types: tuple[t.Type, ...],
                 program: Program, is_kernel: bool, c_function_name: str) -> None:
        self.parsed = parsed
        self.where = parsed.where
        self.arg_types = arg_types
        self.program = program
        self.is_kernel = is_kernel
        self.c_function_name = c_function_name
        self.debug = bool(program.options.get("debug"))
        self.locals: dict[str, t.Type] = dict(zip(parsed.arg_names, arg_types))
        self.assigned_at: dict[str, int] = {}
        self.static_arrays: dict[str, StaticArray] = {}
        # Names bound to a fixed-shape array that lives elsewhere (constant
        # memory, another name's shared array): used in place, not copied.
        self.aliases: dict[str, Val] = {}
        self.return_type: t.Type | None = None
        # It calls itself (never inlined); a pass met such a call before its type was known.
        self.recursive = False
        self.pending_recursion = False
        self.emitting = False
        self.lines: list[str] = []
        self.indent = 1
        self.counter = 0
        self.uses_barrier = False
        # Integer locals that may hold a negative value (an index through them
        # wraps around as in Python); the others are assigned only values that
        # never are. Grows over the typing passes until it settles.
        self.maybe_negative: set[str] = set(parsed.arg_names)
        # Per enclosing loop, innermost last: the flag its break sets (loop_else).
        self.loop_break_flags: list[str | None] = []

    # ---- helpers used by intrinsics and operators ---------------------------------
    def typing_error(self, message: str, node: ast.AST | None) -> TypingError:
        return TypingError(message, self.where, node)

    def unsupported(self, message: str, node: ast.AST | None) -> UnsupportedError:
        return UnsupportedError(message, self.where, node)

    def value(self, ty: t.Type, code: str, py: Any = NO_VALUE, nonneg: bool = False) -> Val:
        return Val(ty, code, py, nonneg=nonneg)

    def tuple_value(self, items: list[Val], names: Any = None) -> Val:
        ty = t.TupleT(tuple(v.type for v in items), tuple(names) if names else None)  # type: ignore
        return Val(ty, "", NO_VALUE, items)

    def is_number(self, val: Val) -> bool:
        return isinstance(val.type, t.Scalar)

    def cast(self, val: Val, ty: t.Type) -> str:
        """`val`'s code converted to `ty` (a scalar type)."""
        if val.type == ty:
            return val.code
        if datetimes.is_datetime_kind(ty) or datetimes.is_datetime_kind(val.type):
            return datetimes.convert(self, val, ty)  # type: ignore[arg-type]
        if not isinstance(ty, t.Scalar) or not isinstance(val.type, t.Scalar):
            raise TypingError(f"cannot convert {val.describe()} to {ty}", self.where,
                              self.current)
        if val.type.kind == "c" and ty.kind != "c":
            raise TypingError(f"cannot convert {val.describe()} to {ty} (take .real, .imag or "
                              "abs() of a complex number)", self.where, self.current)
        if val.known and isinstance(val.py, (int, float, bool, complex, np.generic)):
            if ty.kind in "iu" and isinstance(val.py, (float, np.floating)):
                return f"({ty.ctype})({c_literal(val.py, t.float64)})"
            return c_literal(val.py, ty)
        if ty.kind == "b":
            return f"({val.code} != 0)"
        if ty.kind == "c":
            return f"{'cudakit_c64' if ty == t.complex64 else 'cudakit_c128'}({val.code})"
        if val.type in (t.float16, t.bfloat16) and (ty.kind in "iu" or ty.bits == 16):
            return f"({ty.ctype})(float)({val.code})"  # through float, its one conversion
        return f"({ty.ctype})({val.code})"

    def truth(self, val: Val, node: ast.AST) -> str:
        if val.type == t.boolean:
            return val.code
        if isinstance(val.type, t.Scalar) and val.type.kind == "c":
            return f"cudakit_truth({val.code})"
        if isinstance(val.type, t.Scalar):
            return f"({val.code} != 0)"
        if isinstance(val.type, t.NoneT):  # `if None:`, as Python: never taken
            return "false"
        raise self.typing_error(f"{val.describe()} has no truth value in a kernel", node)

    def dtype_of(self, val: Val, node: ast.AST) -> t.Scalar:
        try:
            return t.as_type(val.py)
        except Exception:
            if isinstance(val.py, str):  # Numba's words for a string NumPy does not know
                raise self.typing_error(f"Invalid NumPy dtype specified: {val.py!r} (give a "
                                        "NumPy dtype name such as 'int32', or a type such as "
                                        "numba.int32)", node) from None
            raise self.typing_error(f"not a dtype: {val.describe()}", node) from None

    def static_array_request(self, space: str, dtype: t.Scalar, shape: tuple[int, ...],
                             node: ast.AST, alignment: int | None = None) -> Val:
        return Val(None, "", StaticArray(space, dtype, shape, alignment))

    def constant_array(self, array: np.ndarray, node: ast.AST) -> Val:
        if array.dtype == np.float16:
            raise self.unsupported(f"a global NumPy array of {array.dtype} as constant memory "
                                   "(pass it to the kernel as an argument instead)", node)
        ty = t.ArrayT(t.from_dtype(array.dtype), array.ndim, "C", tuple(array.shape), "const")
        self.program.need_record(ty)
        return Val(ty, self.program.constant_array(array))

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"ck_{base}{self.counter}"

    # ---- output ------------------------------------------------------------------
    def emit(self, text: str) -> None:
        if self.emitting:
            self.lines.append("  " * self.indent + text)

    def emit_line_directive(self, node: ast.AST) -> None:
        if self.emitting:
            path = self.where.filename.replace("\\", "\\\\").replace('"', '\\"')
            self.lines.append(f'#line {self.where.line_of(node)} "{path}"')

    # ---- names -------------------------------------------------------------------
    def load_name(self, node: ast.Name) -> Val:
        name = node.id
        if name in self.aliases:
            return self.aliases[name]
        nested = self.__dict__.get("nested_functions", {}).get(name)
        if nested is not None:
            return Val(None, "", nested.bound(self))
        if name in self.static_arrays:
            return Val(self.locals[name], c_name(name))
        if name in self.locals:
            ty = self.locals[name]
            if isinstance(ty, t.ConstT):  # a compile-time argument of a device function
                if ty.scalar is not None:
                    return Val(ty.scalar, c_literal(ty.value, ty.scalar), ty.value)
                return self.python_object(ty.value, node)
            if isinstance(ty, t.TupleT):
                if self.is_kernel and name in self.parsed.arg_names:
                    return self.kernel_tuple_argument(name, ty)
                # A device function's tuple parameter is a struct; a tuple local,
                # one variable per item.
                form = "{}.f{}" if name in self.parsed.arg_names else "{}_{}"
                return self.tuple_value([Val(it, form.format(c_name(name), i))
                                         for i, it in enumerate(ty.items)])
            if isinstance(ty, t.RecordT):
                return Val(ty, f"(*{c_name(name)})")  # (a pointer into the array)
            constant = self.single_constant(name)
            if constant is not None and isinstance(ty, t.Scalar) \
                    and t.scalar_of(constant) == ty:
                # `N = 100` and nothing else assigns N: N is 100 wherever it is
                # read (Numba's constant propagation), e.g. as an array's shape.
                return Val(ty, c_literal(constant, ty), constant)
            return Val(ty, c_name(name), nonneg=name not in self.maybe_negative)
        found, value = self.parsed.lookup(name)
        if not found:
            if name in self.parsed.arg_names or self.assigned_anywhere(name):
                raise self.typing_error(f"variable '{name}' is used before it is assigned",
                                        node)
            raise self.typing_error(f"NameError: name '{name}' is not defined", node)
        return self.python_object(value, node)

    def single_constant(self, name: str) -> Any:
        """The number a local variable always holds: it is assigned once, by
        `name = <number literal>`, and stored to nowhere else; else None."""
        cache = self.__dict__.setdefault("_single_constants", {})
        if name not in cache:
            stores = [n for n in ast.walk(self.parsed.tree)
                      if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
            value = None
            if len(stores) == 1 and name not in self.parsed.arg_names:
                for node in ast.walk(self.parsed.tree):
                    if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                            and node.targets[0] is stores[0] \
                            and isinstance(node.value, ast.Constant) \
                            and isinstance(node.value.value, (int, float)):
                        value = node.value.value
            cache[name] = value
        return cache[name]

    def assigned_anywhere(self, name: str) -> bool:
        for sub in ast.walk(self.parsed.tree):
            if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store):
                return True
        return False

    def python_object(self, value: Any, node: ast.AST) -> Val:
        """A global, closure variable or attribute value, frozen now."""
        scalar = t.scalar_of(value)
        if isinstance(value, int) and not -(2**63) <= value < 2**64:
            raise self.typing_error(f"the integer {value} does not fit in 64 bits (kernels "
                                    "compute with int64 and uint64)", node)
        if scalar is not None:
            return Val(scalar, c_literal(value, scalar), value)
        if isinstance(value, tuple):
            return self.tuple_value([self.python_object(v, node) for v in value],
                                    getattr(type(value), "_fields", None))
        if isinstance(value, np.ndarray):
            return self.constant_array(value, node)
        if value is None:
            return Val(t.none, "", None)
        if isinstance(value, intrinsics.Intrinsic) and value.intrinsic_name in intrinsics.VALUES:
            ty, code = intrinsics.VALUES[value.intrinsic_name]
            return Val(ty, code, nonneg=True)
        if isinstance(value, str):
            return Val(t.string, "", value)
        interface = getattr(value, "__cuda_array_interface__", None)
        if interface is not None:
            return self.captured_device_array(interface, node)
        return Val(None, "", value)

    def captured_device_array(self, interface: dict[str, Any], node: ast.AST) -> Val:
        """A device array named as a global: its address is captured into the
        code (as Numba does), so another array means another compile."""
        dtype = np.dtype(interface["typestr"])
        scalar = t.from_dtype(dtype)
        shape = tuple(int(n) for n in interface["shape"])
        strides = interface.get("strides")
        if strides is None:
            elements, step = [], 1
            for n in reversed(shape):
                elements.insert(0, step)
                step *= n
        else:
            elements = [int(s) // dtype.itemsize for s in strides]
        layout = t.layout_from(shape, strides, dtype.itemsize)
        ty = t.ArrayT(scalar, len(shape), layout)
        address = int(interface["data"][0])
        if not shape:  # a 0-d array: its one element (ArrayView<T, 0> has no extents)
            return Val(ty, f"{ty.view_ctype}{{({scalar.ctype}*){address:#x}ULL}}")
        code = (f"{ty.view_ctype}{{({scalar.ctype}*){address:#x}ULL, "
                f"{{{', '.join(f'{n}LL' for n in shape)}}}, "
                f"{{{', '.join(f'{s}LL' for s in elements)}}}}}")
        return Val(ty, code)

    # ---- the function --------------------------------------------------------------
    def translate_body(self) -> None:
        for statement in self.parsed.tree.body:
            self.statement(statement)

    def declarations(self) -> list[str]:
        out = []
        for name, ty in self.locals.items():
            if name in self.parsed.arg_names:
                continue
            if name in self.static_arrays:
                spec = self.static_arrays[name]
                size = max(1, int(np.prod(spec.shape)))
                qualifier = "__shared__ " if spec.space == "shared" else ""
                if spec.alignment is not None:  # (alignas first, as C++ wants it)
                    qualifier = f"__align__({spec.alignment}) " + qualifier
                self.program.need_record(spec.dtype)
                out.append(f"{qualifier}{spec.dtype.ctype} {c_name(name)}[{size}];")
            elif isinstance(ty, t.TupleT):
                for i, it in enumerate(ty.items):
                    out.append(f"{self.ctype(it)} {c_name(name)}_{i}{self.zero(it)};")
            else:
                out.append(f"{self.ctype(ty)} {c_name(name)}{self.zero(ty)};")
        return out

    def zero(self, ty: t.Type) -> str:
        # Initialised so a path that skips the assignment reads 0, not garbage
        # (and the host compiler's -Werror=maybe-uninitialized stays quiet).
        return " = 0" if isinstance(ty, t.Scalar) and ty.kind != "c" else " = {}"

    def ctype(self, ty: t.Type) -> str:
        if isinstance(ty, t.Scalar):
            return ty.ctype
        if isinstance(ty, t.ArrayT):
            self.program.need_record(ty)
            return ty.view_ctype
        if isinstance(ty, t.RecordT):
            self.program.need_record(ty)
            return f"{ty.ctype}*"
        if isinstance(ty, t.PointerT):
            return f"{ty.dtype.ctype}*"
        if isinstance(ty, t.NoneT):
            return "void"
        if isinstance(ty, VectorT):
            return ty.ctype
        if isinstance(ty, t.TupleT) and all(isinstance(i, t.Scalar) for i in ty.items):
            return self.program.tuple_struct(ty)
        raise self.unsupported(f"a value of type {ty} cannot be stored in a variable",
                               self.current)

    def signature(self) -> str:
        params = []
        for name, ty in zip(self.parsed.arg_names, self.arg_types):
            if isinstance(ty, t.ConstT):
                continue  # known when compiled: no parameter
            self.program.need_record(ty)
            if self.is_kernel and isinstance(ty, t.TupleT):
                # Each item (of nested tuples too) is a parameter of its own.
                for path, leaf in t.tuple_leaves(ty):
                    self.program.need_record(leaf)
                    params.append(f"{self.ctype(leaf)} {kernel_tuple_leaf_name(name, path)}")
                continue
            if isinstance(ty, t.TupleT) and not all(isinstance(i, t.Scalar) for i in ty.items):
                raise self.unsupported("tuple arguments of device functions hold numbers only",
                                       self.parsed.tree)
            params.append(f"{self.ctype(ty)} {c_name(name)}")
        if self.is_kernel:
            head = 'extern "C" __global__ void'
            bounds = self.program.options.get("launch_bounds")
            if bounds:  # compile(launch_bounds=): (max threads, min blocks, max cluster)
                head += f" __launch_bounds__({', '.join(str(int(b)) for b in bounds)})"
        else:
            head = f"__device__ __noinline__ {self.ctype(self.return_type or t.none)}"
            if self.program.options.get("inline", True) and not self.recursive:
                head = f"__device__ __forceinline__ {self.ctype(self.return_type or t.none)}"
        return f"{head} {self.c_function_name}({', '.join(params)})"

    current: ast.AST | None = None

    # ---- statements ------------------------------------------------------------------
    def block(self, statements: list[ast.stmt]) -> None:
        self.indent += 1
        for statement in statements:
            self.statement(statement)
        self.indent -= 1

    def statement(self, node: ast.stmt) -> None:
        self.current = node
        self.emit_line_directive(node)
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(f"the statement '{type(node).__name__}' "
                                   f"({_construct(node)}) is not supported in kernels", node)
        indent = self.indent
        try:
            method(node)
        except PendingRecursion:
            if self.emitting:
                raise
            self.indent = indent  # typed on a later pass, once a return gives the type

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        val = self.expr(node.value)
        if val.code and not isinstance(val.type, t.ArrayT):  # (a ufunc returns its out)
            self.emit(val.code + ";")

    def stmt_FunctionDef(self, node: ast.FunctionDef) -> None:
        nested_functions.define(self, node)

    def stmt_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Lambda) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            nested_functions.define_lambda(self, node.targets[0].id, node.value)
            return
        val = self.expr(node.value)
        for target in node.targets:
            self.assign(target, val, node)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.expr(node.value), node)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        if isinstance(target, ast.Name):
            load: ast.expr = ast.Name(target.id, ast.Load())
        elif isinstance(target, ast.Subscript):
            load = ast.Subscript(target.value, target.slice, ast.Load())
        elif isinstance(target, ast.Attribute):  # a record's field: a[i].n += 1
            load = ast.Attribute(target.value, target.attr, ast.Load())
        else:
            raise self.unsupported("augmented assignment to this target", node)
        ast.copy_location(load, target)
        current = self.expr(load)
        result = self.binary_op(node.op, current, self.expr(node.value), node)
        self.assign(target, result, node)

    def assign(self, target: ast.expr, val: Val, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, val, node)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if val.items is None:
                raise self.typing_error(f"cannot unpack {val.describe()}", node)
            if len(val.items) != len(target.elts):
                raise self.typing_error(f"cannot unpack {len(val.items)} values into "
                                        f"{len(target.elts)} names", node)
            # Evaluate every item first: `a, b = b, a` swaps.
            temps = []
            for item in val.items:
                if isinstance(item.type, t.Scalar) and not item.known and self.emitting:
                    temp = self.fresh("tmp")
                    self.emit(f"const {item.type.ctype} {temp} = {item.code};")
                    temps.append(Val(item.type, temp, nonneg=item.nonneg))
                else:
                    temps.append(item)
            for sub, item in zip(target.elts, temps):
                self.assign(sub, item, node)
        elif isinstance(target, ast.Attribute):
            record = self.expr(target.value)
            self.assign_record_member(record, target.attr, val, target)
        elif isinstance(target, ast.Subscript):
            array = self.expr(target.value)
            if isinstance(array.type, t.RecordT):
                name = self.expr(target.slice)
                if not isinstance(name.py, str):
                    raise self.typing_error("a record is indexed by a field name constant",
                                            target)
                self.assign_record_member(array, name.py, val, target)
                return
            if isinstance(array.type, t.PointerT):
                if not isinstance(val.type, t.Scalar):
                    raise self.typing_error(f"cannot store {val.describe()} through "
                                            f"{array.type}", node)
                ref = self.pointer_ref(array, self.expr(target.slice), target)
                self.emit(f"{ref} = {self.cast(val, array.type.dtype)};")
                return
            if not isinstance(array.type, t.ArrayT):
                raise self.typing_error(f"cannot assign to an item of {array.describe()}",
                                        node)
            if array.type.space == "const":
                raise self.typing_error("constant arrays are read-only in kernels", node)
            index = self.expr(target.slice)
            if isinstance(array.type.dtype, t.RecordT) and val.type == array.type.dtype:
                self.emit(f"{self.element_ref(array, index, target)} = {val.code};")
                return
            if not isinstance(val.type, t.Scalar):
                raise self.typing_error(f"cannot store {val.describe()} in an element of "
                                        f"{array.type}", node)
            ref = self.element_ref(array, index, target)
            self.emit(f"{ref} = {self.cast(val, array.type.dtype)};")
        else:
            raise self.unsupported(f"assignment to {_construct(target)}", node)

    def assign_name(self, name: str, val: Val, node: ast.AST) -> None:
        if isinstance(val.py, StaticArray):
            spec = val.py
            ty = t.ArrayT(spec.dtype, len(spec.shape), "C", spec.shape, spec.space)
            if name in self.static_arrays and self.static_arrays[name] != spec:
                raise self.typing_error(f"'{name}' is bound to two different "
                                        f"{spec.space} arrays", node)
            if name in self.parsed.arg_names:
                raise self.unsupported(f"rebinding the parameter '{name}' to a "
                                       f"{spec.space} array", node)
            self.static_arrays[name] = spec
            self.locals[name] = ty
            return
        if isinstance(val.type, t.ArrayT) and val.type.static_shape is not None:
            bound = self.aliases.get(name)
            if (bound is not None and bound.code != val.code) or name in self.locals:
                raise self.typing_error(f"'{name}' is bound to a {val.type.space} array here "
                                        "and to another value elsewhere", node)
            self.aliases[name] = val
            return
        if isinstance(val.py, intrinsics.Intrinsic) and val.py.intrinsic_name == "cg.grid":
            # g = cuda.cg.this_grid(): a name for the grid group, no variable.
            if name in self.locals:
                raise self.typing_error(f"'{name}' holds a number elsewhere and cannot name "
                                        "the grid group", node)
            self.aliases[name] = val
            return
        if val.type is None or isinstance(val.type, (t.StringT, t.NoneT)):
            raise self.typing_error(f"cannot assign {val.describe()} to a kernel variable "
                                    f"'{name}'", node)
        if name in self.static_arrays:
            raise self.typing_error(f"'{name}' holds a {self.static_arrays[name].space} array "
                                    "and cannot be reassigned", node)
        if not val.never_negative:
            self.maybe_negative.add(name)
        previous = self.locals.get(name)
        if previous is None:
            self.locals[name] = val.type
            self.assigned_at[name] = self.where.line_of(node)
        elif previous != val.type:
            merged = t.unify(previous, val.type)
            if merged is None or (name in self.parsed.arg_names and merged != previous):
                raise self.typing_error(
                    f"variable '{name}' is {previous} (line {self.assigned_at.get(name, '?')})"
                    f" and here {val.type}; a variable keeps one type in a kernel", node)
            self.locals[name] = merged
        ty = self.locals[name]
        if isinstance(ty, t.TupleT) and name in self.parsed.arg_names:
            raise self.unsupported(f"assigning to the tuple parameter '{name}'", node)
        if isinstance(ty, t.TupleT):
            assert val.items is not None
            for i, (item, it) in enumerate(zip(val.items, ty.items)):
                self.emit(f"{c_name(name)}_{i} = {self.cast(item, it)};")
        elif isinstance(ty, t.ArrayT):
            self.emit(f"{c_name(name)} = {val.code};")
        elif isinstance(ty, t.RecordT):
            # As in Numba, a record is a reference into its array: r = a[i]
            # then r.x = 1 writes a[i].
            self.emit(f"{c_name(name)} = &({val.code});")
        else:
            self.emit(f"{c_name(name)} = {self.cast(val, ty)};")

    def stmt_If(self, node: ast.If) -> None:
        condition = self.expr(node.test)
        if condition.known and isinstance(condition.py, (bool, int, float, np.bool_,
                                                         np.integer, np.floating)):
            # A condition known when compiled (a constant, a literal argument):
            # only the branch taken is typed and emitted, as Numba prunes.
            taken = node.body if condition.py else node.orelse
            self.emit("{")
            self.block(taken)
            self.emit("}")
            return
        self.emit(f"if ({self.truth(condition, node.test)}) {{")
        self.block(node.body)
        if node.orelse:
            self.emit("} else {")
            self.block(node.orelse)
        self.emit("}")

    def stmt_Return(self, node: ast.Return) -> None:
        val = self.expr(node.value) if node.value is not None else Val(t.none, "", None)
        if self.is_kernel:
            if val.type != t.none:
                raise self.typing_error("a kernel cannot return a value: a CUDA kernel must "
                                        "have void return type (write results into an array "
                                        "argument)", node)
            self.emit("return;")
            return
        if val.items is not None and not all(isinstance(i.type, t.Scalar) for i in val.items):
            raise self.unsupported("device functions returning tuples of anything but "
                                   "numbers", node)
        if isinstance(val.py, nested_functions.BoundNested):
            raise self.unsupported(f"returning the nested function '{val.py.__name__}': a "
                                   "device function returns numbers, tuples or arrays; call "
                                   "it where it is defined, or pass it to a device function",
                                   node)
        if val.type is None or isinstance(val.type, (t.StringT,)):
            raise self.typing_error(f"cannot return {val.describe()}", node)
        if isinstance(val.type, t.RecordT):
            raise self.unsupported("returning a record from a device function (return its "
                                   "fields, or pass the array and an index)", node)
        if self.return_type is None:
            self.return_type = val.type
        elif self.return_type != val.type:
            merged = t.unify(self.return_type, val.type)
            if merged is None:
                raise self.typing_error(f"the function returns {self.return_type} and here "
                                        f"{val.type}", node)
            self.return_type = merged
        if isinstance(val.type, t.NoneT):
            self.emit("return;")
        elif isinstance(self.return_type, t.TupleT):
            assert val.items is not None
            fields = ", ".join(self.cast(item, it) for item, it in
                               zip(val.items, self.return_type.items))
            self.emit(f"return {self.ctype(self.return_type)}{{{fields}}};")
        else:
            self.emit(f"return {self.cast(val, self.return_type)};")

    def stmt_Raise(self, node: ast.Raise) -> None:
        # Numba's CUDA target reports exceptions raised in kernels only with
        # debug=True; without it the thread just stops (here: returns).
        text = _construct(node.exc) if node.exc is not None else "exception"
        self.note_user_exception(node.exc)
        message = (f'{text} raised in {self.where.function} (File "{self.where.filename}", '
                   f"line {self.where.line_of(node)})")
        literal = message.replace("\\", "\\\\").replace('"', '\\"')
        if self.debug:
            self.program.need_helper("fail")
            self.emit(f'ck_fail("{literal}");')
        if self.is_kernel or self.return_type in (None, t.none):
            self.emit("return;")
        else:
            self.emit("return {};")

    def note_user_exception(self, exc: ast.expr | None) -> None:
        """Remembers the program's own exception class a `raise` names, so
        the launch raises that class (builtins are known by name)."""
        target = exc.func if isinstance(exc, ast.Call) else exc
        if not isinstance(target, (ast.Name, ast.Attribute)):
            return
        try:
            cls = self.expr(target).py
        except TranslationError:
            return
        if isinstance(cls, type) and issubclass(cls, BaseException) \
                and cls.__module__ != "builtins":
            self.program.user_exceptions[cls.__name__] = cls

    def stmt_Assert(self, node: ast.Assert) -> None:
        if not self.debug:
            return  # Numba ignores assertions unless debug=True
        condition = self.expr(node.test)
        message = (f'AssertionError: {_construct(node.test)} in {self.where.function} '
                   f'(File "{self.where.filename}", line {self.where.line_of(node)})')
        literal = message.replace("\\", "\\\\").replace('"', '\\"')
        self.program.need_helper("fail")
        self.emit(f"if (!({self.truth(condition, node.test)})) ck_fail(\"{literal}\");")

    def stmt_Global(self, node: ast.Global) -> None:
        raise self.unsupported("'global' statements (kernels cannot write Python globals)",
                               node)


def _construct(node: ast.AST | None) -> str:
    if node is None:
        return ""
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover
        return type(node).__name__
    return text if len(text) < 60 else text[:57] + "..."
