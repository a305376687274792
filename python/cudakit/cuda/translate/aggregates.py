"""Aggregate values in kernels: record fields (numbers, complex numbers and
nested arrays read as views), a kernel's tuple arguments (each item a
parameter of its own), the rows an array's first axis gives in `for`, and
comparisons of Enum members as Python makes them."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from . import types as t
from .values import Val

_ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


class AggregatesMixin:
    def record_field(self: "FunctionTranslator", record: Val, name: str, node: ast.AST) -> str:
        """The C++ lvalue of field `name` of a record element."""
        rt = record.type
        if not isinstance(rt, t.RecordT):
            raise self.typing_error(f"{record.describe()} has no field '{name}'", node)
        if rt.field(name) is None:
            raise self.typing_error(f"the record has no field '{name}' (its fields: "
                                    f"{', '.join(n for n, _, _ in rt.fields)})", node)
        return f"{record.code}.{name}"

    def record_member(self: "FunctionTranslator", record: Val, name: str,
                      node: ast.AST) -> Val:
        """Field `name` of a record: a number, or a C-contiguous view of an
        array field (writes through it change the record)."""
        code = self.record_field(record, name, node)
        ty = record.type.field(name)  # type: ignore[union-attr]
        if not isinstance(ty, t.NestedArrayT):
            return self.value(ty, code)
        strides, stride = [], 1
        for n in reversed(ty.shape):
            strides.insert(0, stride)
            stride *= n
        view = t.ArrayT(ty.dtype, ty.ndim, "C")
        return self.value(view, f"{view.view_ctype}{{{code}, "
                                f"{{{', '.join(f'{n}LL' for n in ty.shape)}}}, "
                                f"{{{', '.join(f'{s}LL' for s in strides)}}}}}")

    def assign_record_member(self: "FunctionTranslator", record: Val, name: str, val: Val,
                             node: ast.AST) -> None:
        """`r.f = v` / `r['f'] = v`: a number converts; an array field takes
        an array of its shape (copied element by element) or a number (set
        everywhere), as NumPy assigns."""
        ty = record.type.field(name)  # type: ignore[union-attr]
        if record.code.lstrip("(*&").startswith("ck_const"):
            raise self.typing_error("constant arrays are read-only in kernels", node)
        code = self.record_field(record, name, node)
        if not isinstance(ty, t.NestedArrayT):
            if not isinstance(val.type, t.Scalar):
                raise self.typing_error(f"cannot store {val.describe()} in the record field "
                                        f"'{name}' ({ty})", node)
            self.emit(f"{code} = {self.cast(val, ty)};")
            return
        counter = self.fresh("k")
        if isinstance(val.type, t.Scalar):
            self.emit(f"for (long long {counter} = 0; {counter} < {ty.size}; ++{counter}) "
                      f"{code}[{counter}] = {self.cast(val, ty.dtype)};")
            return
        if not (isinstance(val.type, t.ArrayT) and val.type.ndim == ty.ndim
                and isinstance(val.type.dtype, t.Scalar)):
            raise self.typing_error(f"cannot store {val.describe()} in the record field "
                                    f"'{name}' ({ty}): give an array of its shape "
                                    f"{ty.shape} or a number", node)
        if val.type.static_shape is not None:
            raise self.unsupported(f"copying a {val.type.space} array into a record field "
                                   "(copy its elements)", node)
        view = self.fresh("src")
        self.emit(f"const {val.type.view_ctype} {view} = {val.code};")
        # Another shape is an error, never a partial copy.
        self.program.need_helper("fail")
        text = self.python_error_text(
            f"ValueError: the array does not have the shape {ty.shape} of the record field "
            f"'{name}'", node)
        mismatch = " || ".join(f"{view}.shape[{d}] != {n}LL" for d, n in enumerate(ty.shape))
        self.emit(f'if ({mismatch}) ck_fail("{text}");')
        self.emit(f"for (long long {counter} = 0; {counter} < {ty.size}; ++{counter}) {{")
        rest, offsets = counter, []
        for d in range(ty.ndim - 1, -1, -1):
            offsets.append(f"(({rest}) % {ty.shape[d]}LL) * {view}.strides[{d}]")
            rest = f"({rest}) / {ty.shape[d]}LL"
        element = Val(val.type.dtype, f"{view}.data[{' + '.join(offsets)}]")
        self.emit(f"  {code}[{counter}] = {self.cast(element, ty.dtype)};")
        self.emit("}")

    def enum_comparison(self: "FunctionTranslator", op: ast.cmpop, left: Val, right: Val,
                        node: ast.AST) -> str:
        """A comparison with an Enum member, as Python makes it: `is` holds for
        the same member of the same class; `==` across classes or with a
        number holds only for IntEnums (numbers), as does ordering."""
        a, b = left.type, right.type
        same_class = isinstance(a, t.EnumT) and isinstance(b, t.EnumT) \
            and a.enum_class is b.enum_class
        numeric = all(not isinstance(x, t.EnumT) or x.is_int_enum for x in (a, b))
        if not (isinstance(a, t.Scalar) and isinstance(b, t.Scalar)):
            if type(op) in (ast.Is, ast.Eq):
                return "false"
            if type(op) in (ast.IsNot, ast.NotEq):
                return "true"
            raise self.typing_error(f"cannot compare {left.describe()} and "
                                    f"{right.describe()}", node)
        left_value = self.value(a.number if isinstance(a, t.EnumT) else a, left.code)
        right_value = self.value(b.number if isinstance(b, t.EnumT) else b, right.code)
        common = t.promote(left_value.type, right_value.type)  # type: ignore[arg-type]
        equal = f"({self.cast(left_value, common)} == {self.cast(right_value, common)})"
        if type(op) in (ast.Is, ast.IsNot):
            holds = equal if same_class else "false"
            return holds if isinstance(op, ast.Is) else f"(!{holds})"
        if type(op) in (ast.Eq, ast.NotEq):
            holds = equal if same_class or numeric else "false"
            return holds if isinstance(op, ast.Eq) else f"(!{holds})"
        if not numeric:
            raise self.typing_error(f"Enum members are not ordered ({left.describe()} and "
                                    f"{right.describe()}): compare their .value", node)
        return (f"({self.cast(left_value, common)} {_ORDER[type(op)]} "
                f"{self.cast(right_value, common)})")

    def kernel_tuple_argument(self: "FunctionTranslator", name: str, ty: t.TupleT, path: tuple[int, ...] = ()) -> Val:
        """A kernel's tuple argument, nested or not: its leaves are parameters
        of their own (kernel_tuple_leaf_name)."""
        items = []
        for i, item in enumerate(ty.items):
            if isinstance(item, t.TupleT):
                items.append(self.kernel_tuple_argument(name, item, path + (i,)))
            elif isinstance(item, t.RecordT):
                items.append(Val(item, f"(*{_leaf_name(name, path + (i,))})"))
            else:
                items.append(Val(item, _leaf_name(name, path + (i,))))
        return self.tuple_value(items, ty.names)

    def first_axis_item(self: "FunctionTranslator", array: Val, counter: str, node: ast.AST) -> Val:
        """Item `counter` (a C++ name, never negative) of an array's first
        axis, as `for x in a` gives it: an element of a 1-d array, a row (a
        view) of a 2-d one, and so on."""
        at = array.type
        assert isinstance(at, t.ArrayT)
        if at.ndim == 1:
            element = self.element_ref(array, Val(t.int64, counter, nonneg=True), node)
            return Val(at.dtype, element)
        if at.static_shape is not None:
            raise self.unsupported(f"iterating over the rows of a {at.space} array (views of "
                                   f"{at.space} arrays are not supported: index a[i, j])", node)
        view = t.ArrayT(at.dtype, at.ndim - 1, "C" if at.layout == "C" else "A")
        rest = range(1, at.ndim)
        return self.value(view, f"{view.view_ctype}{{{array.code}.data + {counter} * "
                                f"{array.code}.strides[0], "
                                f"{{{', '.join(f'{array.code}.shape[{d}]' for d in rest)}}}, "
                                f"{{{', '.join(f'{array.code}.strides[{d}]' for d in rest)}}}}}")


    def reinterpreted(self: "FunctionTranslator", array: Val, dtype: t.Scalar,
                      node: ast.AST) -> Val:
        """`a.view(dtype)`: the array's bytes read as another number type, as
        NumPy's view: the last axis (contiguous when the size changes) is
        counted in the new items; another size that does not divide its bytes
        is NumPy's ValueError."""
        at = array.type
        assert isinstance(at, t.ArrayT)
        if at.static_shape is not None or not isinstance(at.dtype, t.Scalar):
            raise self.unsupported(f"view() of a {at.space} or record array", node)
        old, new = max(1, at.dtype.bits // 8), max(1, dtype.bits // 8)
        last = at.ndim - 1
        source = self.fresh("src")
        self.emit(f"const {at.view_ctype} {source} = {array.code};")
        if old != new:
            self.program.need_helper("fail")
            text = self.python_error_text(
                "ValueError: When changing to a different dtype size, the last axis must be "
                "contiguous and its size in bytes a multiple of the new item size", node)
            self.emit(f"if (({source}.strides[{last}] != 1 && {source}.shape[{last}] > 1) || "
                      f"({source}.shape[{last}] * {old}) % {new} != 0) ck_fail(\"{text}\");")
        view = t.ArrayT(dtype, at.ndim, at.layout if old == new else "A")
        shape = [f"{source}.shape[{d}]" for d in range(at.ndim)]
        strides = [f"{source}.strides[{d}] * {old} / {new}" for d in range(at.ndim)]
        if old != new:
            shape[last] = f"{source}.shape[{last}] * {old} / {new}"
            strides[last] = "1LL"
        return self.value(view, f"{view.view_ctype}{{({dtype.ctype}*){source}.data, "
                                f"{{{', '.join(shape)}}}, {{{', '.join(strides)}}}}}")

    def reshaped(self: "FunctionTranslator", array: Val, sizes: list[Val],
                 node: ast.AST) -> Val:
        """`a.reshape(shape)` of a C-contiguous array: a view of the same
        elements in the new shape (one extent may be -1), NumPy's ValueError
        when the sizes do not match."""
        at = array.type
        assert isinstance(at, t.ArrayT)
        if at.static_shape is not None or at.layout != "C":
            raise self.unsupported("reshape() of an array not known to be C-contiguous (as "
                                   "in Numba, reshape needs a contiguous array and makes no "
                                   "copy)", node)
        for size in sizes:
            if not (isinstance(size.type, t.Scalar) and size.type.kind in "iu"):
                raise self.typing_error(f"reshape() takes integers, got {size.describe()}",
                                        node)
        source = self.fresh("src")
        self.emit(f"const {at.view_ctype} {source} = {array.code};")
        total = " * ".join(f"{source}.shape[{d}]" for d in range(at.ndim)) or "1LL"
        extents = [self.fresh("extent") for _ in sizes]
        known, unknown = self.fresh("known"), self.fresh("unknown")
        self.emit(f"long long {known} = 1; int {unknown} = 0;")
        for name, size in zip(extents, sizes):
            self.emit(f"long long {name} = {self.cast(size, t.int64)};")
            self.emit(f"if ({name} < 0) ++{unknown}; else {known} *= {name};")
        self.program.need_helper("fail")
        text = self.python_error_text("ValueError: cannot reshape the array into the given "
                                      "shape (the total size must stay the same; one extent "
                                      "may be -1)", node)
        self.emit(f"if ({unknown} > 1 || ({unknown} == 0 && {known} != {total}) || "
                  f"({unknown} == 1 && ({known} == 0 || ({total}) % {known} != 0))) "
                  f'ck_fail("{text}");')
        for name in extents:
            self.emit(f"if ({name} < 0) {name} = ({total}) / {known};")
        strides = []
        for d in range(len(extents)):
            strides.append(" * ".join(extents[d + 1:]) or "1LL")
        view = t.ArrayT(at.dtype, len(extents), "C")
        if not extents:
            raise self.unsupported("reshape() to a 0-d array", node)
        return self.value(view, f"{view.view_ctype}{{{source}.data, "
                                f"{{{', '.join(extents)}}}, {{{', '.join(strides)}}}}}")

def _leaf_name(name: str, path: tuple[int, ...]) -> str:
    from .codegen import kernel_tuple_leaf_name
    return kernel_tuple_leaf_name(name, path)
