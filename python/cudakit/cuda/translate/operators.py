"""Expressions: operators with Python's semantics and Numba's result types,
indexing, attributes and calls (intrinsics, device functions, print)."""

from __future__ import annotations

import ast
import enum
import inspect
import operator
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from . import datetimes, device_calls, extensions, half_arithmetic, intrinsics
from . import nested_functions
from .foreign_calls import is_cffi_from_buffer
from . import types as t
from .values import NO_VALUE, Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator

_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
# Signed integer + - * wrap around as in Numba (see the wrap_int helper).
_WRAPPING = {ast.Add: "ck_add", ast.Sub: "ck_sub", ast.Mult: "ck_mul"}
_BITWISE = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
            ast.RShift: ">>"}
_SHIFTS = {ast.LShift: "ck_shl", ast.RShift: "ck_shr"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">="}


class OperatorsMixin:
    def expr(self: "FunctionTranslator", node: ast.expr) -> Val:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            from .codegen import _construct
            what = {"List": "building a list", "Dict": "building a dict", "Set":
                    "building a set", "ListComp": "a list comprehension", "Lambda":
                    "a lambda", "GeneratorExp": "a generator expression", "JoinedStr":
                    "an f-string (print the values instead)"}.get(type(node).__name__,
                                                               f"'{type(node).__name__}'")
            raise self.unsupported(f"{what} ({_construct(node)}) is not supported in kernels",
                                   node)
        return method(node)

    def expr_Constant(self: "FunctionTranslator", node: ast.Constant) -> Val:
        return self.python_object(node.value, node)

    def expr_Name(self: "FunctionTranslator", node: ast.Name) -> Val:
        return self.load_name(node)

    def expr_Tuple(self: "FunctionTranslator", node: ast.Tuple) -> Val:
        return self.tuple_value([self.expr(e) for e in node.elts])

    # ---- operators -------------------------------------------------------------
    def expr_BinOp(self: "FunctionTranslator", node: ast.BinOp) -> Val:
        return self.binary_op(node.op, self.expr(node.left), self.expr(node.right), node)

    def binary_op(self: "FunctionTranslator", op: ast.operator, a: Val, b: Val,
                  node: ast.AST) -> Val:
        if not (isinstance(a.type, t.Scalar) and isinstance(b.type, t.Scalar)):
            if isinstance(a.type, t.ArrayT) or isinstance(b.type, t.ArrayT):
                raise self.unsupported("arithmetic on whole arrays inside a kernel (index the"
                                       " elements, or use the array expressions on the host)",
                                       node)
            raise self.typing_error(f"unsupported operand types for {type(op).__name__}: "
                                    f"{a.describe()} and {b.describe()}", node)
        ta, tb = a.type, b.type
        if "M" in (ta.kind, tb.kind) or "m" in (ta.kind, tb.kind):
            return datetimes.binary(self, op, a, b, node)
        if t.float16 in (ta, tb) and not isinstance(op, tuple(_BITWISE)):
            half = self.half_op(op, a, b, node)
            if half is not None:
                return half
        if "c" in (ta.kind, tb.kind):
            return self.complex_op(op, a, b, node)
        if self.debug and isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) \
                and not (b.known and b.py != 0) and not (  # fastmath's a / b: IEEE's, as Numba's
                    isinstance(op, ast.Div) and self.program.options.get("fastmath")
                    and t.promote(ta, tb).kind == "f"):
            b = self.checked_divisor(op, b, t.promote(ta, tb), node)
        if type(op) in _ARITH:
            rt = t.promote(ta, tb)
            if rt.kind == "i":
                self.program.need_helper("wrap_int")
                result = self.value(rt, f"{_WRAPPING[type(op)]}({self.cast(a, rt)}, "
                                        f"{self.cast(b, rt)})")
            else:
                result = self.value(rt, f"({self.cast(a, rt)} {_ARITH[type(op)]} "
                                        f"{self.cast(b, rt)})")
        elif isinstance(op, ast.Div):
            rt = t.promote(ta, tb)
            if rt.kind != "f":
                rt = t.float64
            result = self.value(rt, f"({self.cast(a, rt)} / {self.cast(b, rt)})")
        elif isinstance(op, ast.FloorDiv):
            rt = t.promote(ta, tb)
            if rt.kind == "f":
                fn = "floorf" if rt == t.float32 else "floor"
                result = self.value(rt, f"{fn}({self.cast(a, rt)} / {self.cast(b, rt)})")
            else:
                self.program.need_helper("floordiv")
                result = self.value(rt, f"ck_floordiv({self.cast(a, rt)}, {self.cast(b, rt)})")
        elif isinstance(op, ast.Mod):
            rt = t.promote(ta, tb)
            self.program.need_helper("mod")
            fn = "ck_fmod" if rt.kind == "f" else "ck_mod"
            result = self.value(rt, f"{fn}({self.cast(a, rt)}, {self.cast(b, rt)})")
        elif isinstance(op, ast.Pow):
            result = self.power(a, b)
        elif type(op) in _BITWISE:
            if ta.kind == "f" or tb.kind == "f":
                raise self.typing_error(f"bitwise {type(op).__name__} needs integers, got "
                                        f"{a.describe()} and {b.describe()}", node)
            if type(op) in _SHIFTS:
                # Numba's type: the left operand's signedness in 64 bits, the
                # amount converted to it; amounts past the width as on a GPU.
                rt = t.uint64 if ta.kind == "u" else t.int64
                self.program.need_helper("shift")
                result = self.value(rt, f"{_SHIFTS[type(op)]}({self.cast(a, rt)}, "
                                        f"{self.cast(b, rt)})")
                return self.folded(result, op, a, b)
            rt = t.boolean if ta.kind == tb.kind == "b" else t.integer_result(ta, tb)
            if rt.kind == "f":
                raise self.typing_error("bitwise operation between int64 and uint64", node)
            result = self.value(rt, f"({self.cast(a, rt)} {_BITWISE[type(op)]} "
                                    f"{self.cast(b, rt)})")
        else:
            raise self.unsupported(f"the operator {type(op).__name__}", node)
        if isinstance(op, (ast.Add, ast.Mult, ast.FloorDiv, ast.Mod)) \
                and a.never_negative and b.never_negative:
            result.nonneg = True  # (an index made of thread indices and shapes)
        return self.folded(result, op, a, b)

    def folded(self, result: Val, op: ast.operator, a: Val, b: Val) -> Val:
        """`result` with its value when both operands are constants: the
        literal in its code (a folded constant has no other code)."""
        if not isinstance(result.type, t.Scalar):
            return result
        folded = self.fold(op, a, b, result.type)
        if isinstance(folded, int) and result.type.kind not in "iu" \
                and not -(2**63) <= folded < 2**64:
            folded = NO_VALUE  # (a float result: left to the compiler)
        if folded is not NO_VALUE:
            result.py = folded
            if isinstance(folded, (int, float, np.integer, np.floating)):
                from .codegen import c_literal
                result.code = c_literal(folded, result.type)
        return result

    def half_op(self: "FunctionTranslator", op: ast.operator, a: Val, b: Val,
                node: ast.AST) -> Val | None:
        """float16 arithmetic: computed in float and rounded to half, which is
        what the GPU's half instructions give (float holds every exact sum and
        product of two halves closely enough for one correct rounding). None
        when the result is not float16 (float16 with int64 is float64)."""
        ta, tb = a.type, b.type
        assert isinstance(ta, t.Scalar) and isinstance(tb, t.Scalar)
        integer_power = isinstance(op, ast.Pow) and ta == t.float16 and tb.kind in "iub"
        if t.promote(ta, tb) != t.float16 and not integer_power:
            return None
        if type(op) in half_arithmetic.BINARY:
            return self.value(t.float16, f"{half_arithmetic.BINARY[type(op)]}("
                                         f"{self.cast(a, t.float16)}, {self.cast(b, t.float16)})")
        as_float = [b if integer_power and v is b else
                    Val(t.float32, f"(float)({self.cast(v, t.float16)})") for v in (a, b)]
        result = self.binary_op(op, as_float[0], as_float[1], node)
        return self.value(t.float16, f"ck_half({result.code})")

    def complex_op(self: "FunctionTranslator", op: ast.operator, a: Val, b: Val,
                   node: ast.AST) -> Val:
        """Complex arithmetic (the array layer's operators and power)."""
        rt = t.promote(a.type, b.type)  # type: ignore[arg-type]
        x, y = self.cast(a, rt), self.cast(b, rt)
        symbol = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}.get(type(op))
        if symbol is not None:
            return self.value(rt, f"({x} {symbol} {y})")
        if isinstance(op, ast.Pow):
            return self.value(rt, f"cudakit_cpower({x}, {y})")
        raise self.typing_error(f"unsupported operand types for {type(op).__name__}: "
                                f"{a.describe()} and {b.describe()} (complex numbers have "
                                "no //, % or bitwise operations)", node)

    def fold(self, op: ast.operator, a: Val, b: Val, result_type: t.Scalar) -> Any:
        """The value of an operation on two constants (shapes like TPB * 2),
        as the kernel computes it in `result_type`."""
        if not (a.known and b.known):
            return NO_VALUE
        if not all(isinstance(v.py, (int, float, np.integer, np.floating, np.bool_))
                   for v in (a, b)):
            return NO_VALUE
        x, y = a.py, b.py
        if result_type.kind in "iu" and all(isinstance(v, (int, np.integer, np.bool_))
                                            for v in (x, y)):
            return fold_integers(op, int(x), int(y), result_type)
        if isinstance(x, np.bool_) or isinstance(y, np.bool_):
            return NO_VALUE
        try:
            return {ast.Add: lambda: x + y, ast.Sub: lambda: x - y, ast.Mult: lambda: x * y,
                    ast.FloorDiv: lambda: x // y, ast.Mod: lambda: x % y,
                    ast.Div: lambda: x / y,
                    ast.Pow: lambda: x ** y if y >= 0 or isinstance(x, float) else NO_VALUE,
                    }.get(type(op), lambda: NO_VALUE)()
        except (ZeroDivisionError, OverflowError):
            return NO_VALUE

    def power(self: "FunctionTranslator", a: Val, b: Val) -> Val:
        ta, tb = a.type, b.type
        assert isinstance(ta, t.Scalar) and isinstance(tb, t.Scalar)
        if tb.kind in "iub":
            self.program.need_helper("ipow")
            if ta.kind in "iub":
                rt = t.integer_result(ta, tb)
                if rt.kind == "f":
                    rt = t.int64
                return self.value(rt, f"ck_ipow({self.cast(a, rt)}, "
                                      f"{self.cast(b, t.int64)})")
            rt = ta
            if b.known and b.py == 2:
                return self.value(rt, f"({a.code} * {a.code})" if a.code.isidentifier()
                                  else f"ck_fpowi({a.code}, 2LL)")
            return self.value(rt, f"ck_fpowi({a.code}, {self.cast(b, t.int64)})")
        rt = t.promote(ta, tb)
        fn = "powf" if rt == t.float32 else "pow"
        return self.value(rt, f"{fn}({self.cast(a, rt)}, {self.cast(b, rt)})")

    def expr_UnaryOp(self: "FunctionTranslator", node: ast.UnaryOp) -> Val:
        val = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return self.value(t.boolean, f"(!{self.truth(val, node)})")
        if not isinstance(val.type, t.Scalar):
            raise self.typing_error(f"bad operand for unary {type(node.op).__name__}: "
                                    f"{val.describe()}", node)
        operand = val.type
        if operand == t.float16 and isinstance(node.op, (ast.USub, ast.UAdd)):
            return val if isinstance(node.op, ast.UAdd) else self.value(
                operand, f"ck_hneg({val.code})")
        if isinstance(node.op, ast.Invert) and operand.kind in "fc":
            raise self.typing_error("~ needs an integer", node)
        if isinstance(node.op, ast.Invert) and operand.kind == "b":
            return self.value(t.boolean, f"(!{val.code})")
        if operand.kind in "fc":
            if isinstance(node.op, ast.UAdd):
                return val
            if val.known:
                return self.python_object(-val.py, node) if not isinstance(
                    val.py, np.generic) else self.value(operand, f"(-{val.code})", -val.py)
            return self.value(operand, f"(-{val.code})")
        if isinstance(node.op, ast.USub) and val.known and not isinstance(val.py, np.generic):
            return self.python_object(-val.py, node)  # -5: a Python constant, as CPython's
        # Numba's integer - + ~: computed in the operand's own type (wrapping
        # around: -np.int8(-128) is -128, ~np.uint8(0) is 255), then widened
        # to 64 bits of its signedness.
        ty = t.uint64 if operand.kind == "u" else t.int64
        if operand.kind == "b":
            operand, val = t.int64, self.value(t.int64, self.cast(val, t.int64), val.py)
        if isinstance(node.op, ast.UAdd):
            return self.value(ty, self.cast(val, ty), val.py, nonneg=val.nonneg)
        if val.known:
            x = int(val.py)
            result = t.wrapped(-x if isinstance(node.op, ast.USub) else ~x, operand)
            from .codegen import c_literal
            return self.value(ty, c_literal(result, ty), result)
        if isinstance(node.op, ast.USub):
            self.program.need_helper("wrap_int")
            code = f"ck_neg<{operand.ctype}>({val.code})"
        else:
            code = f"({operand.ctype})(~{val.code})"
        return self.value(ty, code if operand == ty else f"({ty.ctype})({code})")

    def expr_BoolOp(self: "FunctionTranslator", node: ast.BoolOp) -> Val:
        op = " && " if isinstance(node.op, ast.And) else " || "
        parts = [self.truth(self.expr(v), v) for v in node.values]
        return self.value(t.boolean, "(" + op.join(parts) + ")")

    def expr_Compare(self: "FunctionTranslator", node: ast.Compare) -> Val:
        left = self.expr(node.left)
        parts = []
        # Integers known when compiled compare when compiled (len(args) == 2
        # in a *args device function), so a dead branch is pruned as in Numba.
        known = [_known_integer(left)]
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            known.append(_known_integer(right))
            if type(op) in (ast.Is, ast.IsNot) and right.type == t.none:
                parts.append("false" if isinstance(op, ast.Is) else "true")
                left = right
                continue
            if isinstance(left.type, t.EnumT) or isinstance(right.type, t.EnumT):
                parts.append(self.enum_comparison(op, left, right, node))
                left = right
                continue
            if type(op) not in _COMPARE:
                raise self.unsupported(f"the comparison '{type(op).__name__}'", node)
            if isinstance(left.type, t.StringT) and isinstance(right.type, t.StringT) \
                    and left.known and right.known and type(op) in _FOLDED_COMPARE:
                # String constants (a device function's literal argument).
                truth = _FOLDED_COMPARE[type(op)](left.py, right.py)
                if len(node.ops) == 1:
                    return self.value(t.boolean, "true" if truth else "false", py=truth)
                parts.append("true" if truth else "false")
                left = right
                continue
            if not (isinstance(left.type, t.Scalar) and isinstance(right.type, t.Scalar)):
                raise self.typing_error(f"cannot compare {left.describe()} and "
                                        f"{right.describe()}", node)
            if "c" in (left.type.kind, right.type.kind) and type(op) not in (ast.Eq,
                                                                           ast.NotEq):
                raise self.typing_error("complex numbers are not ordered (compare abs() or "
                                        ".real)", node)
            if datetimes.is_datetime_kind(left.type) or datetimes.is_datetime_kind(right.type):
                parts.append(datetimes.compare(self, op, left, right, node))
                left = right
                continue
            common = t.promote(left.type, right.type) if left.type != right.type else left.type
            if common == t.float16:
                parts.append(f"{half_arithmetic.COMPARE[type(op)]}({self.cast(left, common)}, "
                             f"{self.cast(right, common)})")
                left = right
                continue
            parts.append(f"({self.cast(left, common)} {_COMPARE[type(op)]} "
                         f"{self.cast(right, common)})")
            left = right
        if all(v is not None for v in known) and all(type(op) in _FOLDED_COMPARE
                                                     for op in node.ops):
            truth = all(_FOLDED_COMPARE[type(op)](a, b)
                        for op, a, b in zip(node.ops, known, known[1:]))
            return self.value(t.boolean, "true" if truth else "false", py=truth)
        return self.value(t.boolean, parts[0] if len(parts) == 1 else
                          "(" + " && ".join(parts) + ")")

    def expr_IfExp(self: "FunctionTranslator", node: ast.IfExp) -> Val:
        condition = self.truth(self.expr(node.test), node.test)
        a, b = self.expr(node.body), self.expr(node.orelse)
        merged = t.unify(a.type, b.type) if a.type and b.type else None
        if not isinstance(merged, t.Scalar):
            raise self.typing_error(f"the branches of a conditional expression are "
                                    f"{a.describe()} and {b.describe()}", node)
        return self.value(merged, f"({condition} ? {self.cast(a, merged)} : "
                                  f"{self.cast(b, merged)})")

    # ---- indexing and attributes ---------------------------------------------------------
    def expr_Subscript(self: "FunctionTranslator", node: ast.Subscript) -> Val:
        base = self.expr(node.value)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        index = None
        if isinstance(base.type, t.ArrayT) and len(parts) == 1 and base.type.ndim > 1 \
                and not isinstance(parts[0], ast.Slice):
            index = self.expr(node.slice)  # a tuple variable indexes every axis: a[gid]
            if index.items is None:
                index = None
        if index is None and isinstance(base.type, t.ArrayT) and (
                any(isinstance(p, ast.Slice) for p in parts) or len(parts) < base.type.ndim):
            return self.array_view(base, parts, node)
        if index is None:
            index = self.expr(node.slice)
        if base.type is None and isinstance(base.py, enum.EnumMeta):
            if not isinstance(index.py, str):  # Color["red"]: a member by its name
                raise self.typing_error(f"an Enum class is indexed by a member name constant, "
                                        f"got {index.describe()}", node)
            try:
                return self.python_object(base.py[index.py], node)
            except KeyError:
                raise self.typing_error(f"{base.py.__name__} has no member {index.py!r}",
                                        node) from None
        if isinstance(base.type, t.RecordT):
            if not isinstance(index.py, str):
                raise self.typing_error("a record is indexed by a field name constant, as in "
                                        "a[i]['s0']", node)
            return self.record_member(base, index.py, node)
        if base.items is not None:
            if not (index.known and isinstance(index.py, (int, np.integer))):
                return self.tuple_item_at_run_time(base, index, node)
            try:
                return base.items[int(index.py)]
            except IndexError:
                raise self.typing_error(f"tuple index {index.py} out of range", node) from None
        if isinstance(base.type, t.ArrayT):
            self.program.need_record(base.type)
            return self.value(base.type.dtype, self.element_ref(base, index, node))
        if isinstance(base.type, t.PointerT):
            return self.value(base.type.dtype, self.pointer_ref(base, index, node))
        raise self.typing_error(f"{base.describe()} cannot be indexed", node)

    def checked_divisor(self: "FunctionTranslator", op: ast.operator, divisor: Val,
                        common: t.Scalar, node: ast.AST) -> Val:
        """With debug=True, Python's ZeroDivisionError for a zero divisor (as
        Numba's debug mode uses Python's error model); the divisor is
        evaluated once, into a temporary."""
        temp = self.fresh("divisor")
        self.emit(f"const {divisor.type.ctype} {temp} = {divisor.code};")  # type: ignore
        if isinstance(op, ast.Div):
            text = "division by zero"
        elif common.kind != "f":
            text = "integer division or modulo by zero"
        else:
            text = "float floor division by zero" if isinstance(op, ast.FloorDiv) \
                else "float modulo"
        self.program.need_helper("fail")
        message = self.python_error_text(f"ZeroDivisionError: {text}", node)
        self.emit(f'if ({temp} == 0) ck_fail("{message}");')
        return Val(divisor.type, temp, nonneg=divisor.nonneg)

    def tuple_item_at_run_time(self: "FunctionTranslator", base: Val, index: Val,
                               node: ast.AST) -> Val:
        """t[i] with i known only when the kernel runs: a homogeneous tuple of
        numbers (Numba's UniTuple), Python's wraparound for a negative i and
        an IndexError for one out of range."""
        items = base.items or []
        if not (isinstance(index.type, t.Scalar) and index.type.kind in "iub"):
            raise self.typing_error(f"a tuple index must be an integer, got {index.describe()}",
                                    node)
        types = {v.type for v in items}
        if len(types) != 1 or not isinstance(items[0].type, t.Scalar):
            raise self.typing_error("a tuple is indexed by a run-time integer only when all "
                                    "its items are numbers of one type (a homogeneous tuple); "
                                    f"this one is {base.type}: index it with a constant",
                                    node)
        position = self.fresh("item")
        self.emit(f"long long {position} = {self.cast(index, t.int64)};")
        self.emit(f"if ({position} < 0) {position} += {len(items)};")
        self.program.need_helper("fail")
        text = self.python_error_text("IndexError: tuple index out of range", node)
        self.emit(f'if ({position} < 0 || {position} >= {len(items)}) ck_fail("{text}");')
        code = items[-1].code
        for i in range(len(items) - 2, -1, -1):
            code = f"({position} == {i} ? {items[i].code} : {code})"
        return self.value(items[0].type, code)

    def pointer_ref(self: "FunctionTranslator", pointer: Val, index: Val,
                    node: ast.AST) -> str:
        """`p[i]` of a CPointer: C's indexing (no bounds are known)."""
        if index.items is not None or not (isinstance(index.type, t.Scalar)
                                           and index.type.kind in "iub"):
            raise self.typing_error(f"a pointer ({pointer.type}) is indexed by one integer, "
                                    f"got {index.describe()}", node)
        return f"{pointer.code}[{self.cast(index, t.int64)}]"

    def expr_Slice(self: "FunctionTranslator", node: ast.Slice) -> Val:
        raise self.unsupported("slicing arrays inside kernels (index elements instead)", node)

    def array_view(self: "FunctionTranslator", array: Val, parts: list[ast.expr],
                   node: ast.AST) -> Val:
        """`a[i]`, `a[i, :]`, `a[2:n:2]`: a view (no copy), Python's slice rules."""
        at = array.type
        assert isinstance(at, t.ArrayT)
        if at.static_shape is not None:
            raise self.unsupported(f"views of {at.space} arrays (index their elements)", node)
        if len(parts) > at.ndim:
            raise self.typing_error(f"too many indices for a {at.ndim}-d array", node)
        self.program.need_helper("slice")
        offset: list[str] = []
        shape: list[str] = []
        strides: list[str] = []
        for d in range(at.ndim):
            stride = f"{array.code}.strides[{d}]"
            extent = f"{array.code}.shape[{d}]"
            part = parts[d] if d < len(parts) else ast.Slice()
            if not isinstance(part, ast.Slice):
                index = self.expr(part)
                if not (isinstance(index.type, t.Scalar) and index.type.kind in "iub"):
                    raise self.typing_error(f"array index {d} must be an integer or a slice, "
                                            f"got {index.describe()}", node)
                offset.append(f"{self.index_term(array, d, index, node)} * {stride}")
                continue
            step = self.expr(part.step) if part.step is not None else Val(t.int64, "1LL", 1)
            if not (isinstance(step.type, t.Scalar) and step.type.kind in "iub"):
                raise self.typing_error(f"a slice step must be an integer, got "
                                        f"{step.describe()}", node)
            if step.known and step.py == 0:
                raise self.typing_error("slice step cannot be zero", node)
            step_code = f"{int(step.py)}LL" if step.known else self.fresh("step")
            if not step.known:
                # A step known only at run time: evaluated once; zero gives an
                # empty view (and, with debug=True, Python's ValueError).
                self.emit(f"const long long {step_code} = {self.cast(step, t.int64)};")
                if self.debug:
                    self.program.need_helper("fail")
                    text = self.python_error_text("ValueError: slice step cannot be zero",
                                                  node)
                    self.emit(f'if ({step_code} == 0) ck_fail("{text}");')
            bounds = []
            for bound in (part.lower, part.upper):
                bounds.append(self.cast(self.expr(bound), t.int64) if bound is not None
                              else "0LL")
            temp = self.fresh("range")
            self.emit(f"const ck_slice_range {temp} = ck_slice({extent}, {bounds[0]}, "
                      f"{bounds[1]}, {step_code}, "
                      f"{'true' if part.lower is not None else 'false'}, "
                      f"{'true' if part.upper is not None else 'false'});")
            offset.append(f"{temp}.start * {stride}")
            shape.append(f"{temp}.length")
            strides.append(f"{stride} * {step_code}")
        # Numba's rule: integers on the outer axes and, innermost of those
        # given, a slice without a step keep a C-contiguous array contiguous.
        contiguous = at.layout == "C" and not any(isinstance(p, ast.Slice) for p in parts[:-1]) \
            and (not parts or not isinstance(parts[-1], ast.Slice) or parts[-1].step is None)
        view = t.ArrayT(at.dtype, len(shape), "C" if contiguous else "A")
        pointer = f"{array.code}.data" + ("".join(f" + {o}" for o in offset))
        if not shape:
            return self.value(at.dtype, f"{array.code}.data[{' + '.join(offset) or '0'}]")
        temp = self.fresh("view")
        self.emit(f"const {view.view_ctype} {temp} = {{{pointer}, {{{', '.join(shape)}}}, "
                  f"{{{', '.join(strides)}}}}};")
        return self.value(view, temp)

    def element_ref(self: "FunctionTranslator", array: Val, index: Val,
                    node: ast.AST) -> str:
        """The C++ lvalue of one element: `a.data[i * a.strides[0] + j]`."""
        at = array.type
        assert isinstance(at, t.ArrayT)
        indices = index.items if index.items is not None else [index]
        if len(indices) != at.ndim:
            if len(indices) < at.ndim:
                raise self.unsupported(f"indexing a {at.ndim}-d array with {len(indices)} "
                                       "index (views by partial indexing are not supported "
                                       "in kernels; give every index)", node)
            raise self.typing_error(f"too many indices for a {at.ndim}-d array: "
                                    f"{len(indices)}", node)
        terms = []
        for d, item in enumerate(indices):
            if not (isinstance(item.type, t.Scalar) and item.type.kind in "iub"):
                raise self.typing_error(f"array index {d} must be an integer, got "
                                        f"{item.describe()}", node)
            terms.append(self.index_term(array, d, item, node))
        if at.static_shape is not None:
            flat = terms[0]
            for d in range(1, at.ndim):
                flat = f"({flat}) * {at.static_shape[d]} + {terms[d]}"
            return f"{array.code}[{flat}]" if at.ndim else f"{array.code}[0]"
        parts = []
        for d, term in enumerate(terms):
            unit = (at.layout == "C" and d == at.ndim - 1) or (at.layout == "F" and d == 0)
            parts.append(term if unit else f"{term} * {array.code}.strides[{d}]")
        return f"{array.code}.data[{' + '.join(parts) if parts else '0'}]"

    def index_term(self: "FunctionTranslator", array: Val, d: int, item: Val,
                   node: ast.AST) -> str:
        """Index `item` on axis `d` as an offset in [0, extent): Python's
        wraparound for a negative one (a select, skipped for values that are
        never negative such as thread indices), and with debug=True a bounds
        check naming the Python line."""
        code = self.cast(item, t.int64)
        if self.debug:
            return self.checked_index(array, d, code, node)
        if item.known and item.py < 0:  # a[-1]
            return f"({self.extent(array, d)} + {code})"
        if item.never_negative:
            return code
        self.program.need_helper("wrap")
        return f"ck_wrap({code}, {self.extent(array, d)})"

    def python_error_text(self: "FunctionTranslator", message: str, node: ast.AST) -> str:
        """`message` and where it happened, as the body of a C string literal."""
        text = (f'{message} in {self.where.function} (File "{self.where.filename}", '
                f"line {self.where.line_of(node)})")
        return text.replace("\\", "\\\\").replace('"', '\\"')

    def extent(self, array: Val, d: int) -> str:
        at = array.type
        assert isinstance(at, t.ArrayT)
        if at.static_shape is not None:
            return f"{at.static_shape[d]}LL"
        return f"{array.code}.shape[{d}]"

    def checked_index(self: "FunctionTranslator", array: Val, d: int, code: str,
                      node: ast.AST) -> str:
        self.program.need_helper("bounds_check")
        line = self.where.line_of(node)
        from .codegen import _construct
        what = _construct(node).replace("\\", "\\\\").replace('"', '\\"')
        path = self.where.filename.replace("\\", "\\\\").replace('"', '\\"')
        return (f"ck_check_index({code}, {self.extent(array, d)}, {d}, \"{what}\", "
                f"\"{path}\", {line})")

    # ---- calls -------------------------------------------------------------------------
    def expr_Call(self: "FunctionTranslator", node: ast.Call) -> Val:
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("conjugate", "conj"):
            base = self.expr(node.func.value)
            if isinstance(base.type, t.Scalar):  # z.conjugate(): a number's method
                if node.args or node.keywords:
                    raise self.typing_error(f"{node.func.attr}() takes no arguments", node)
                return (self.value(base.type, f"cudakit_conj({base.code})")
                        if base.type.kind == "c" else base)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "view" \
                and len(node.args) == 1 and not node.keywords:
            base = self.expr(node.func.value)
            if isinstance(base.type, t.ArrayT):  # a.view(np.int32): the same bytes
                return self.reinterpreted(base, self.dtype_of(self.expr(node.args[0]), node),
                                          node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "reshape" \
                and node.args and not node.keywords:
            base = self.expr(node.func.value)
            if isinstance(base.type, t.ArrayT):  # a.reshape(shape): a view, no copy
                sizes = [self.expr(a) for a in node.args]
                if len(sizes) == 1 and sizes[0].items is not None:
                    sizes = list(sizes[0].items)
                return self.reshaped(base, sizes, node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "bit_count":
            base = self.expr(node.func.value)
            if isinstance(base.type, t.Scalar):  # i.bit_count(): cuda.popc, as in Numba
                if node.args or node.keywords or base.type.kind not in "iu":
                    raise self.typing_error("bit_count() is a method of integers and takes no "
                                            f"arguments, called on {base.describe()}", node)
                return intrinsics.HANDLERS["popc"](self, node, [base], {})
        callee = self.expr(node.func)
        if callee.type is not None:
            raise self.typing_error(f"{callee.describe()} is not callable", node)
        obj = callee.py
        if obj is print:
            return self.print_call(node)
        args: list[Val] = []
        for a in node.args:
            if not isinstance(a, ast.Starred):
                args.append(self.expr(a))
                continue
            spread = self.expr(a.value)  # f(*t): a tuple's items, known when compiled
            if spread.items is None:
                raise self.typing_error(f"*{_construct_text(a.value)} in a call must be a "
                                        f"tuple, got {spread.describe()}", node)
            args.extend(spread.items)
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        if isinstance(obj, intrinsics.Intrinsic):
            handler = intrinsics.HANDLERS.get(obj.intrinsic_name)
            if handler is None:
                raise self.unsupported(f"cuda.{obj.intrinsic_name}() is not supported in "
                                       "kernels", node)
            return handler(self, node, args, kwargs)
        handler = intrinsics.object_handler(obj)
        if handler is not None:
            return handler(self, node, args, kwargs)
        target = intrinsics.cast_target(obj)
        if target is not None:
            if target.kind == "f" and len(args) == 1 and args[0].type == t.string:
                return intrinsics.float_of_text(self, node, target, args[0].py)
            if len(args) != 1 or kwargs or not isinstance(args[0].type, t.Scalar):
                raise self.typing_error(f"{getattr(obj, '__name__', obj)}() takes one number "
                                        "in a kernel", node)
            if target.kind == "b":
                return self.value(t.boolean, self.truth(args[0], node))
            if obj is float and args[0].type.kind == "f":  # type: ignore[union-attr]
                return args[0]  # Numba's float() keeps float16 / float32
            return self.value(target, self.cast(args[0], target))
        if isinstance(obj, nested_functions.BoundNested):
            return nested_functions.call(self, obj, args, kwargs, node)
        if hasattr(obj, "py_func") and hasattr(obj, "_device_specialization"):
            if kwargs:
                raise self.unsupported("keyword arguments to device functions", node)
            return self.device_call(obj, args, node)
        if is_cffi_from_buffer(obj):
            return self.cffi_from_buffer(args, kwargs, node)
        if hasattr(obj, "link") and isinstance(getattr(obj, "signature", None), t.Signature):
            if kwargs:
                raise self.unsupported("keyword arguments to foreign functions", node)
            return self.foreign_call(obj, args, node)
        if inspect.isfunction(getattr(obj, "py_func", None)):
            # A CPU-compiled function (@numba.jit / @njit): Numba's CUDA target
            # compiles its Python source again as a device function.
            if kwargs:
                raise self.unsupported("keyword arguments to device functions", node)
            return self.device_call(_device_dispatcher_for(obj.py_func), args, node)
        name = getattr(obj, "__qualname__", None) or repr(obj)
        if _has_overload(obj):
            # numba.cuda.extending.overload: the template picks the
            # implementation for these types; it is translated as a device function.
            impl = extensions.overload_implementation(
                obj, tuple(a.type for a in args), {k: v.type for k, v in kwargs.items()},
                extensions.literal_types(args))
            if impl is None:
                raise self.typing_error(
                    f"no @overload of {name} takes ({', '.join(a.describe() for a in args)})",
                    node)
            if kwargs or len(args) < len(inspect.signature(impl).parameters):
                args = self.bound_arguments(impl, args, kwargs, node)
            return self.device_call(_device_dispatcher_for(impl), args, node)
        module = getattr(obj, "__module__", None)
        hint = ""
        if callable(obj) and not isinstance(obj, type):
            hint = " (decorate it with @cuda.jit(device=True) to call it from a kernel)"
        raise self.typing_error(f"cannot call {('' if not module else module + '.') + name} "
                                f"in a kernel: it is not a supported function{hint}", node)

    def bound_arguments(self: "FunctionTranslator", function: Any, args: list[Val],
                        kwargs: dict[str, Val], node: ast.AST) -> list[Val]:
        """A call's arguments in `function`'s parameter order, its keyword
        arguments placed and its defaults filled in (as constants)."""
        try:
            bound = inspect.signature(function).bind(*args, **kwargs)
        except TypeError as error:
            raise self.typing_error(f"{getattr(function, '__name__', function)}(): {error}",
                                    node) from None
        bound.apply_defaults()
        return [v if isinstance(v, Val) else self.python_object(v, node)
                for v in bound.arguments.values()]

    def device_call(self: "FunctionTranslator", dispatcher: Any, args: list[Val],
                    node: ast.AST) -> Val:
        return device_calls.device_call(self, dispatcher, args, node)

# Weak: a function that is gone takes its translations with it.
_DEVICE_DISPATCHERS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


_FOLDED_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
                   ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}


def _known_integer(val: Val) -> int | None:
    """An integer operand's value when known at compile time, else None."""
    if isinstance(val.type, t.Scalar) and val.type.kind in "iu" and val.known \
            and isinstance(val.py, (int, np.integer)) and not isinstance(val.py, bool):
        return int(val.py)
    return None


def _has_overload(obj: Any) -> bool:
    try:
        return obj in extensions.OVERLOADS
    except TypeError:  # unhashable: no overload is keyed by it
        return False


def _device_dispatcher_for(py_func: Any) -> Any:
    """One device-function dispatcher per Python function, so its
    specializations are shared by every kernel calling it."""
    dispatcher = _DEVICE_DISPATCHERS.get(py_func)
    if dispatcher is None:
        from ..dispatcher import Dispatcher
        dispatcher = _DEVICE_DISPATCHERS[py_func] = Dispatcher(py_func, None, device=True)
    return dispatcher


def fold_integers(op: ast.operator, x: int, y: int, ty: t.Scalar) -> Any:
    """`x op y` on two integer constants as the kernel computes it in `ty`
    (wrapping around, shifts as on a GPU); NO_VALUE for what is left to the
    run time (a zero divisor, a negative power)."""
    x, y = t.wrapped(x, ty), t.wrapped(y, ty)
    if isinstance(op, (ast.LShift, ast.RShift)):
        amount = y & ((1 << ty.bits) - 1)  # a negative amount is a huge unsigned one
        if amount >= ty.bits:
            return -1 if isinstance(op, ast.RShift) and x < 0 else 0
        return t.wrapped(x << amount, ty) if isinstance(op, ast.LShift) else x >> amount
    if isinstance(op, (ast.FloorDiv, ast.Mod)):
        if y == 0:
            return NO_VALUE
        if y == -1:  # the smallest integer // -1 gives 0, as in Numba
            return 0 if isinstance(op, ast.Mod) or x == -(1 << (ty.bits - 1)) else -x
        return x // y if isinstance(op, ast.FloorDiv) else x % y
    if isinstance(op, ast.Pow):
        return NO_VALUE if y < 0 else t.wrapped(pow(x, y, 1 << ty.bits), ty)
    operation = {ast.Add: lambda: x + y, ast.Sub: lambda: x - y, ast.Mult: lambda: x * y,
                 ast.BitAnd: lambda: x & y, ast.BitOr: lambda: x | y,
                 ast.BitXor: lambda: x ^ y}.get(type(op))
    return NO_VALUE if operation is None else t.wrapped(operation(), ty)


def _construct_text(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) < 40 else text[:37] + "..."
