"""Attributes in kernels: of arrays (shape, size, strides, dtype, real and
imag views), records, named tuples, enums, complex numbers, Python objects
and numba.cuda's intrinsic namespaces, and overload_attribute's."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import numpy as np

from . import extensions, intrinsics, operators
from . import types as t
from .values import ArrayCtypes, Val
from .vectors import VectorT
from .vectors import attribute as vector_attribute

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


class AttributesMixin:
    def expr_Attribute(self: "FunctionTranslator", node: ast.Attribute) -> Val:
        base = self.expr(node.value)
        if base.type is not None:
            impl = extensions.attribute_implementation(base.type, node.attr)
            if impl is not None:  # numba.cuda.extending.overload_attribute
                return self.device_call(operators._device_dispatcher_for(impl), [base], node)
        if isinstance(base.type, VectorT):
            return vector_attribute(self, base, node)
        if isinstance(base.type, t.ArrayT):
            if node.attr == "ctypes":
                return Val(None, "", ArrayCtypes(base))
            return self.array_attribute(base, node.attr, node)
        if base.type is None and isinstance(base.py, ArrayCtypes):
            if node.attr != "data":
                raise self.unsupported(f"a.ctypes.{node.attr} in kernels (a.ctypes.data, the "
                                       "address, is)", node)
            array = base.py.array
            pointer = array.code if array.type.static_shape is not None \
                else f"{array.code}.data"
            return self.value(t.uint64, f"((unsigned long long)(size_t)({pointer}))")
        if base.type is None:
            obj = base.py
            if isinstance(obj, intrinsics.Intrinsic):
                name = f"{obj.intrinsic_name}.{node.attr}"
                if name in intrinsics.VALUES:
                    ty, code = intrinsics.VALUES[name]
                    return self.value(ty, code, nonneg=True)
                return Val(None, "", intrinsics.Intrinsic(name))
            if obj is np and node.attr in ("pi", "e", "inf", "nan"):
                return self.python_object(float(getattr(np, node.attr)), node)
            try:
                value = getattr(obj, node.attr)
            except AttributeError:
                raise self.typing_error(f"{obj!r} has no attribute '{node.attr}'",
                                        node) from None
            return self.python_object(value, node)
        if isinstance(base.type, t.RecordT):
            return self.record_member(base, node.attr, node)
        if isinstance(base.type, t.TupleT) and base.items is not None and base.type.names \
                and node.attr in base.type.names:  # a namedtuple's field
            return base.items[base.type.names.index(node.attr)]
        if isinstance(base.type, t.EnumT) and node.attr == "value":
            return self.value(base.type.number, base.code)
        if isinstance(base.type, t.Scalar) and base.type.kind == "c" \
                and node.attr in ("real", "imag"):
            part = t.float32 if base.type == t.complex64 else t.float64
            return self.value(part, f"({base.code}).{node.attr[:2]}")
        if isinstance(base.type, t.Scalar) and node.attr in ("real", "imag"):
            if node.attr == "real":
                return base
            from .codegen import c_literal
            return self.value(base.type, c_literal(0, base.type), 0)
        raise self.typing_error(f"{base.describe()} has no attribute '{node.attr}' in kernels",
                                node)

    def array_attribute(self: "FunctionTranslator", array: Val, attr: str,
                        node: ast.AST) -> Val:
        at = array.type
        assert isinstance(at, t.ArrayT)
        if attr == "shape":
            if at.static_shape is not None:
                return self.tuple_value([Val(t.int64, f"{n}LL", n) for n in at.static_shape])
            return self.tuple_value([Val(t.int64, f"{array.code}.shape[{d}]", nonneg=True)
                                     for d in range(at.ndim)])
        if attr == "ndim":
            return Val(t.int64, f"{at.ndim}LL", at.ndim)
        if attr == "size":
            if at.static_shape is not None:
                n = int(np.prod(at.static_shape))
                return Val(t.int64, f"{n}LL", n)
            if at.ndim == 1:
                return Val(t.int64, f"{array.code}.shape[0]", nonneg=True)
            return Val(t.int64, "(" + " * ".join(f"{array.code}.shape[{d}]"
                                                for d in range(at.ndim)) + ")", nonneg=True)
        if attr == "strides":
            if at.static_shape is not None:
                raise self.unsupported("strides of shared/local arrays", node)
            size = at.dtype.bits // 8
            return self.tuple_value([Val(t.int64, f"({array.code}.strides[{d}] * {size})")
                                     for d in range(at.ndim)])
        if attr == "dtype":
            return Val(None, "", at.dtype)
        if attr in ("real", "imag") and isinstance(at.dtype, t.Scalar) \
                and at.static_shape is None and (at.dtype.kind == "c" or attr == "real"):
            if at.dtype.kind != "c":
                return array  # a real array's .real is the array itself, as NumPy's
            # A complex array's parts: a view of its floats, every other one.
            part = t.float32 if at.dtype == t.complex64 else t.float64
            view = t.ArrayT(part, at.ndim, "A")
            data = f"(({part.ctype}*){array.code}.data + {1 if attr == 'imag' else 0})"
            return self.value(view, f"{view.view_ctype}{{{data}, "
                                    f"{{{', '.join(f'{array.code}.shape[{d}]' for d in range(at.ndim))}}}, "
                                    f"{{{', '.join(f'{array.code}.strides[{d}] * 2' for d in range(at.ndim))}}}}}")
        raise self.unsupported(f"the array attribute '{attr}' in kernels", node)

