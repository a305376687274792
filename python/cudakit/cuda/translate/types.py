"""Numba's type model for translated kernels: scalars, arrays, tuples.

Types are small frozen values so that a tuple of them keys the cache of
specializations. Promotion follows Numba's rules, which differ from NumPy's
for integers: arithmetic on signed integers is done in int64 (intp).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Type:
    """Base of every kernel-side type. A program's own type (a subclass
    made for numba.cuda.extending, `super().__init__(name="Point")`) has a
    name; cudakit's types are dataclasses with their own fields."""

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            object.__setattr__(self, "name", str(name))

    def __str__(self) -> str:
        return str(self.__dict__.get("name", type(self).__name__))

    def __getitem__(self, item: object) -> "ArrayT":
        return _array_of(self, item)  # type: ignore[arg-type]  # Point[::1] in a signature


@dataclass(frozen=True)
class Scalar(Type):
    name: str  # Numba's name: int32, float64, boolean ...
    ctype: str  # the CUDA C++ spelling
    kind: str  # 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex
    bits: int

    def __str__(self) -> str:
        return self.name

    @property
    def dtype(self) -> np.dtype:
        if self.name == "bfloat16":
            try:
                import ml_dtypes
            except ImportError:
                raise TypeError("bfloat16 has a NumPy dtype only with the ml_dtypes package "
                                "(pip install ml_dtypes)") from None
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype("bool" if self.kind == "b" else self.name)

    @property
    def bitwidth(self) -> int:  # Numba's name for the size in bits
        return self.bits

    @property
    def storage_name(self) -> str:
        """The dtype the launch's converter and the C++ arrays hold it as."""
        return "int64" if self.kind in "Mm" else self.name

    @property
    def signed(self) -> bool:
        return self.kind == "i"

    @property
    def underlying_float(self) -> "Scalar":
        """The float type of a complex type's parts (Numba's name)."""
        if self.kind != "c":
            raise AttributeError(f"{self.name} is not a complex type: it has no underlying_float")
        return SCALARS["float32" if self.bits == 64 else "float64"]

    def __call__(self, *dims: object) -> "Type":
        # float32[:] / float32[:, ::1] spellings go through __getitem__;
        # float32(int32, ...) builds a signature; float32(2.5) on the host
        # converts a number, as Numba's number types do.
        if len(dims) == 1 and not isinstance(dims[0], (Type, str)):
            value = dims[0]
            if isinstance(value, enum.Enum):
                value = value.value
            return self.dtype.type(value)  # type: ignore[return-value]
        return Signature(self, tuple(dims))  # type: ignore[arg-type]

    def __getitem__(self, item: object) -> "ArrayT":
        return _array_of(self, item)


@dataclass(frozen=True)
class EnumT(Scalar):
    """A member of an Enum class whose values are numbers (Numba's
    EnumMember and IntEnumMember): held as its value's number type, with the
    class kept for `is` and for `==` across classes (False, as in Python,
    unless both are IntEnums)."""

    enum_class: type = enum.Enum

    def __str__(self) -> str:
        kind = "IntEnum" if issubclass(self.enum_class, int) else "Enum"
        return f"{kind}<{self.name}>({self.enum_class.__name__})"

    @property
    def number(self) -> Scalar:
        """The type of the members' values."""
        return SCALARS[self.name]

    @property
    def is_int_enum(self) -> bool:
        return issubclass(self.enum_class, int)


def enum_member_type(member: enum.Enum) -> "EnumT | None":
    """The type of an Enum member with a number value, else None."""
    value = member.value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    base = scalar_of(value)
    if base is None:
        return None
    return EnumT(base.name, base.ctype, base.kind, base.bits, type(member))


def _array_of(dtype: "Scalar | RecordT", item: object) -> "ArrayT":
    """float32[:, ::1]: the array type a signature spells with slices."""
    items = item if isinstance(item, tuple) else (item,)
    layout = "A"
    if all(isinstance(s, slice) for s in items):
        if items[-1].step == 1:
            layout = "C"
        elif items[0].step == 1:
            layout = "F"
        if len(items) == 1 and layout != "A":
            layout = "C"
        return ArrayT(dtype, len(items), layout)  # type: ignore[arg-type]
    raise TypeError(f"{dtype.name}[...] takes slices, as in {dtype.name}[:, ::1]")


boolean = Scalar("boolean", "bool", "b", 8)
int8 = Scalar("int8", "signed char", "i", 8)
int16 = Scalar("int16", "short", "i", 16)
int32 = Scalar("int32", "int", "i", 32)
int64 = Scalar("int64", "long long", "i", 64)
uint8 = Scalar("uint8", "unsigned char", "u", 8)
uint16 = Scalar("uint16", "unsigned short", "u", 16)
uint32 = Scalar("uint32", "unsigned int", "u", 32)
uint64 = Scalar("uint64", "unsigned long long", "u", 64)
float32 = Scalar("float32", "float", "f", 32)
float64 = Scalar("float64", "double", "f", 64)
# float16 values are rounded to half precision after every operation (as the
# GPU's half arithmetic does); ck_half holds the bits and converts through
# float. Complex numbers are the array layer's {re, im} structs.
float16 = Scalar("float16", "ck_half", "f", 16)
# bfloat16 (cuda.bf16) in kernels: ck_bf16 holds the bits, as ck_half does;
# values only (no arrays of it: NumPy has no bfloat16 without ml_dtypes).
bfloat16 = Scalar("bfloat16", "ck_bf16", "f", 16)
complex64 = Scalar("complex64", "cudakit_complex64", "c", 64)
complex128 = Scalar("complex128", "cudakit_complex128", "c", 128)
intp = int64

SCALARS: dict[str, Scalar] = {
    s.name: s
    for s in (boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
              float32, float64, complex64, complex128)
}
ALIASES = {
    "bool_": boolean, "b1": boolean, "i1": int8, "i2": int16, "i4": int32, "i8": int64,
    "u1": uint8, "u2": uint16, "u4": uint32, "u8": uint64, "f4": float32, "f8": float64,
    "f2": float16, "half": float16, "c8": complex64, "c16": complex128, "csingle": complex64,
    "cdouble": complex128, "complex_": complex128,
    "float_": float64, "double": float64, "single": float32, "intc": int32, "uintc": uint32,
    "int_": int64, "uint": uint64, "intp": int64, "uintp": uint64, "byte": int8,
}


@dataclass(frozen=True)
class NestedArrayT(Type):
    """A record field that is an array of numbers (np.dtype([('h', np.float32,
    (3, 2))])): stored in the record's C struct as a flat C array, read as a
    C-contiguous view of it (Numba's NestedArray)."""

    dtype: Scalar
    shape: tuple[int, ...]

    def __str__(self) -> str:
        return f"nestedarray({self.dtype}, {self.shape})"

    @property
    def name(self) -> str:
        return str(self)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        count = 1
        for n in self.shape:
            count *= n
        return count


def field_alignment(ty: "Scalar | NestedArrayT") -> int:
    """A record field's C alignment: a complex number's is its parts'."""
    scalar = ty.dtype if isinstance(ty, NestedArrayT) else ty
    size = max(1, scalar.bits // 8)
    return size // 2 if scalar.kind == "c" else size


def field_size(ty: "Scalar | NestedArrayT") -> int:
    if isinstance(ty, NestedArrayT):
        return max(1, ty.dtype.bits // 8) * ty.size
    return max(1, ty.bits // 8)


@dataclass(frozen=True)
class RecordT(Type):
    """A NumPy record dtype of number and array-of-number fields
    (np.dtype([('s0', np.uint64), ('h', np.float32, 2)])): a C struct with
    NumPy's offsets. Elements of record arrays are read and written by
    field: a[i]['s0'], a[i].s0, a[i].h[1]."""

    fields: tuple[tuple[str, "Scalar | NestedArrayT", int], ...]  # (name, type, byte offset)
    itemsize: int
    # Made with align=True (dtype.isalignedstruct): the same struct either way,
    # but another type, as in Numba (its dtype round-trips with the flag).
    aligned: bool = False
    # Why kernels cannot use it (a field off its alignment): the type exists,
    # as in Numba, and compiling a kernel that uses it fails with this.
    misaligned: str = ""
    kind = "V"
    bits = 0

    def __str__(self) -> str:
        return "Record(" + ", ".join(f"{n}[type={ty};offset={o}]" for n, ty, o in self.fields) \
            + f";{self.itemsize}{';aligned' if self.aligned else ''})"

    @property
    def name(self) -> str:
        return str(self)

    @property
    def ctype(self) -> str:
        def spelled(ty: "Scalar | NestedArrayT") -> str:
            if isinstance(ty, NestedArrayT):
                return ty.dtype.name + "x" + "x".join(str(n) for n in ty.shape)
            return ty.name

        name = "ck_record_" + "_".join(f"{n}_{spelled(ty)}" for n, ty, _ in self.fields)
        natural, at, widest = [], 0, 1
        for _, ty, _ in self.fields:
            align = field_alignment(ty)
            at = (at + align - 1) // align * align
            natural.append(at)
            at += field_size(ty)
            widest = max(widest, align)
        if natural != [o for _, _, o in self.fields] or \
                self.itemsize != (at + widest - 1) // widest * widest:
            # Extra padding: another struct than the plain one of these fields.
            name += "_at_" + "_".join(str(o) for _, _, o in self.fields) + f"_{self.itemsize}"
        return name

    @property
    def dtype(self) -> np.dtype:
        return np.dtype({"names": [n for n, _, _ in self.fields],
                         "formats": [(ty.dtype, ty.shape) if isinstance(ty, NestedArrayT)
                                     else ty.dtype for _, ty, _ in self.fields],
                         "offsets": [o for _, _, o in self.fields],
                         "itemsize": self.itemsize}, align=self.aligned)

    def __getitem__(self, item: object) -> "ArrayT":
        return _array_of(self, item)  # xoroshiro128p_type[:] in a signature

    def field(self, name: str) -> "Scalar | NestedArrayT | None":
        for field_name, ty, _ in self.fields:
            if field_name == name:
                return ty
        return None

    def declaration(self) -> str:
        """The C struct, padded to NumPy's offsets and item size."""
        if self.misaligned:
            raise TypeError(self.misaligned)
        lines, at, pad = [f"struct {self.ctype} {{"], 0, 0
        for name, ty, offset in self.fields:
            if offset > at:
                lines.append(f"  unsigned char ck_pad{pad}[{offset - at}];")
                pad += 1
            if isinstance(ty, NestedArrayT):
                lines.append(f"  {ty.dtype.ctype} {name}[{ty.size}];")
            else:
                lines.append(f"  {ty.ctype} {name};")
            at = offset + field_size(ty)
        if self.itemsize > at:
            lines.append(f"  unsigned char ck_pad{pad}[{self.itemsize - at}];")
        return "\n".join(lines + ["};"])


def record_of(dtype: np.dtype) -> RecordT:
    """The record type of a structured dtype whose fields are numbers or
    arrays of numbers at their natural alignment (as align=True makes them)."""
    fields, misaligned = [], ""
    for name in dtype.names or ():
        field_dtype, offset = dtype.fields[name][:2]
        if field_dtype.names is not None or (field_dtype.subdtype is not None
                                             and field_dtype.subdtype[0].names is not None):
            raise TypeError(f"record field '{name}' is {field_dtype}: kernels take records "
                            "of numbers and arrays of numbers only (not nested records)")
        ty: Scalar | NestedArrayT
        if field_dtype.subdtype is not None:
            base, shape = field_dtype.subdtype
            ty = NestedArrayT(from_dtype(base), tuple(int(n) for n in shape))
        else:
            ty = from_dtype(field_dtype)
        align = field_alignment(ty)
        if not name.isidentifier():
            raise TypeError(f"record field '{name}' of {dtype}: kernels need field names that "
                            "are identifiers")
        if offset % align and not misaligned:
            misaligned = (f"record field '{name}' of {dtype} is at offset {offset}, not a "
                          f"multiple of its alignment {align} (type {ty} is not aligned): "
                          "kernels need aligned records (np.dtype(..., align=True))")
        fields.append((name, ty, int(offset)))
    widest = max((field_alignment(f[1]) for f in fields), default=1)
    if misaligned:
        return RecordT(tuple(fields), dtype.itemsize, bool(dtype.isalignedstruct), misaligned)
    if not fields or dtype.itemsize % widest:
        raise TypeError(f"the record dtype {dtype} is not padded as a C struct (use "
                        "np.dtype(..., align=True))")
    return RecordT(tuple(fields), dtype.itemsize, bool(dtype.isalignedstruct))


@dataclass(frozen=True)
class ArrayT(Type):
    dtype: Scalar
    ndim: int
    layout: str = "A"  # 'C', 'F' or 'A' (any strides)
    # Shared and local arrays have a shape fixed at compile time and live in
    # a plain C array; `space` says which, and codegen indexes them directly.
    static_shape: tuple[int, ...] | None = None
    space: str = "global"  # global, shared, local, const

    def __str__(self) -> str:
        return f"array({self.dtype}, {self.ndim}d, {self.layout})"

    @property
    def view_ctype(self) -> str:
        return f"ArrayView<{self.dtype.ctype}, {self.ndim}>"


@dataclass(frozen=True)
class PointerT(Type):
    """CPointer(uint8): a raw device address passed as an integer; indexed
    like a 1-d array with no bounds (Numba's types.CPointer)."""

    dtype: Scalar

    def __str__(self) -> str:
        return f"{self.dtype}*"


def CPointer(dtype: Scalar) -> PointerT:  # noqa: N802 (Numba's name)
    if not isinstance(dtype, Scalar):
        raise TypeError(f"CPointer() takes a scalar type such as uint8, got {dtype!r}")
    return PointerT(dtype)


@dataclass(frozen=True)
class TupleT(Type):
    items: tuple[Type, ...]
    names: tuple[str, ...] | None = None  # a namedtuple's fields (Numba's NamedTuple)

    def __post_init__(self) -> None:
        if not isinstance(self.items, tuple):  # Tuple([int32, float32]), as Numba's
            object.__setattr__(self, "items", tuple(self.items))

    def __str__(self) -> str:
        if self.names is not None:
            return "(" + ", ".join(f"{n}={t}" for n, t in zip(self.names, self.items)) + ")"
        return "(" + ", ".join(str(t) for t in self.items) + ")"

    # Numba's tuple types are sequences of their item types.
    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.items)

    def __getitem__(self, index: int) -> Type:
        return self.items[index]

    def __bool__(self) -> bool:  # a type, even the empty tuple's, is a value
        return True

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def dtype(self) -> Type | None:
        """The one item type of a homogeneous tuple (Numba's UniTuple.dtype)."""
        return self.items[0] if self.items and len(set(self.items)) == 1 else None


Tuple = TupleT


class _UniTupleMeta(type):
    def __instancecheck__(cls, value: object) -> bool:
        return isinstance(value, TupleT) and len(set(value.items)) == 1


class UniTuple(metaclass=_UniTupleMeta):
    """Numba's UniTuple(dtype, count): a tuple of `count` items of one type
    (a TupleT; isinstance(x, UniTuple) holds for homogeneous tuples)."""

    def __new__(cls, dtype: Type, count: int) -> TupleT:  # type: ignore[misc]
        return TupleT((dtype,) * int(count))


class ConstT(Type):
    """A device function's argument known when the kernel is compiled: a
    Python object (cuda.atomic.add, a dtype, a function) or, with `scalar`,
    a number the callee needs as a constant (a shared array's shape), as
    Numba's literal types. It has no C++ parameter: each value is its own
    specialization."""

    def __init__(self, value: object, scalar: "Scalar | None" = None) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "scalar", scalar)

    def _key(self) -> tuple:
        if self.scalar is not None or isinstance(self.value, tuple):
            return (self.scalar, self.value)  # numbers: by value
        return (None, id(self.value))  # objects: by identity

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConstT) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        if self.scalar is not None:
            return f"Literal[{self.scalar}]({self.value!r})"
        return f"Const({getattr(self.value, '__name__', None) or self.value!r})"

    __repr__ = __str__


class IntegerLiteral(ConstT):
    """Numba's literal integer type: an integer argument known when the
    kernel is compiled, as an @overload template sees it when it gave no
    implementation for the plain type."""

    @property
    def literal_value(self) -> object:
        return self.value


class BooleanLiteral(IntegerLiteral):
    """Numba's literal boolean type (True or False known when compiled)."""


@dataclass(frozen=True)
class NoneT(Type):
    def __str__(self) -> str:
        return "none"


none = NoneT()


@dataclass(frozen=True)
class StringT(Type):
    """A string literal: only print() takes one."""

    def __str__(self) -> str:
        return "unicode_literal"


string = StringT()


@dataclass(frozen=True)
class Signature:
    """`float32(int32, float32[:])` or `void(float32[:])`."""

    return_type: Type | None
    args: tuple[Type, ...]


_SCALAR_OF_DTYPE: dict[np.dtype, Scalar] = {}


def from_dtype(dtype: np.dtype) -> Scalar:
    """The scalar type of a NumPy dtype; TypeError for the unsupported ones."""
    if isinstance(dtype, np.dtype):
        found = _SCALAR_OF_DTYPE.get(dtype)
        if found is not None:
            return found
    dtype = np.dtype(dtype)
    if dtype.names is not None:
        return record_of(dtype)  # type: ignore[return-value]
    if dtype.kind in "Mm":  # datetime64 / timedelta64: a count of the unit (datetimes.py)
        found = _SCALAR_OF_DTYPE[dtype] = Scalar(str(dtype), "long long", dtype.kind, 64)
        return found
    name = "boolean" if dtype.kind == "b" else dtype.name
    if name not in SCALARS:
        raise TypeError(f"arrays of {dtype} are not supported in kernels (string, object and "
                        "nested record dtypes are not translated)")
    _SCALAR_OF_DTYPE[dtype] = SCALARS[name]
    return SCALARS[name]


def scalar_of(value: object) -> Scalar | None:
    """Numba's type of a Python or NumPy scalar value."""
    if isinstance(value, enum.Enum):
        return enum_member_type(value)
    if isinstance(value, (bool, np.bool_)):
        return boolean
    if isinstance(value, np.generic):
        return from_dtype(value.dtype)
    if isinstance(value, int):
        return int64 if -(2**63) <= value < 2**63 else uint64
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    return None


def as_type(spec: object) -> Scalar:
    """A dtype argument (np.float32, 'float32', cuda.float32) as a scalar type."""
    if isinstance(spec, Scalar):
        return spec
    if isinstance(spec, str) and spec in SCALARS:
        return SCALARS[spec]
    if isinstance(spec, str) and spec in ALIASES:
        return ALIASES[spec]
    if spec is float:
        return float64
    if spec is int:
        return int64
    if spec is bool:
        return boolean
    return from_dtype(np.dtype(spec))  # type: ignore[arg-type]


def integer_result(a: Scalar, b: Scalar) -> Scalar:
    """Numba's integer arithmetic: signed -> int64, unsigned -> uint64,
    mixed signedness -> int64 (or float64 when one side is uint64)."""
    a_signed = a.kind in "ib"
    b_signed = b.kind in "ib"
    if a_signed and b_signed:
        return int64
    if not a_signed and not b_signed:
        return uint64
    unsigned = b if a_signed else a
    return float64 if unsigned.bits == 64 else int64


def wrapped(value: int, ty: Scalar) -> int:
    """`value` converted to the integer type `ty` in two's complement, as the
    kernel's integer arithmetic wraps around."""
    value &= (1 << ty.bits) - 1
    if ty.kind == "i" and value >= 1 << (ty.bits - 1):
        value -= 1 << ty.bits
    return value


def promote(a: Scalar, b: Scalar) -> Scalar:
    """The type of `a op b` for + - * and of a variable assigned both."""
    if a == b and a.kind == "f":
        return a
    if bfloat16 in (a, b):  # as float16 promotes (without asking NumPy, which needs ml_dtypes)
        return promote(float16 if a == bfloat16 else a, float16 if b == bfloat16 else b)
    if a.kind in "iub" and b.kind in "iub":
        if a == b and a.kind != "b" and a.bits == 64:
            return a
        return integer_result(a, b)
    return from_dtype(np.promote_types(a.dtype, b.dtype))


def unify(a: Type, b: Type) -> Type | None:
    """The one type two assignments of a variable can share, or None."""
    if a == b:
        return a
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        if a.kind in "iub" and b.kind in "iub":
            if a.kind == b.kind or "b" in (a.kind, b.kind):
                bits = max(a.bits, b.bits)
                kind = a.kind if a.kind != "b" else b.kind
                return SCALARS[("int" if kind == "i" else "uint") + str(bits)]
            return integer_result(a, b)
        if bfloat16 in (a, b):
            return promote(a, b)
        return from_dtype(np.promote_types(a.dtype, b.dtype))
    if isinstance(a, ArrayT) and isinstance(b, ArrayT):
        if a.dtype == b.dtype and a.ndim == b.ndim and a.space == b.space == "global":
            return ArrayT(a.dtype, a.ndim, a.layout if a.layout == b.layout else "A")
    if isinstance(a, TupleT) and isinstance(b, TupleT) and len(a.items) == len(b.items):
        items = [unify(x, y) for x, y in zip(a.items, b.items)]
        if all(items):
            return TupleT(tuple(items))  # type: ignore[arg-type]
    return None


def typeof_value(value: object) -> Type | None:
    """Numba's type of a kernel argument (arrays by dtype, ndim, layout)."""
    scalar = scalar_of(value)
    if scalar is not None:
        return scalar
    if isinstance(value, np.ndarray):
        return ArrayT(from_dtype(value.dtype), value.ndim, layout_of(value))
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        dtype = np.dtype(interface["typestr"])
        shape = tuple(interface["shape"])
        strides = interface.get("strides")
        return ArrayT(from_dtype(dtype), len(shape), layout_from(shape, strides, dtype.itemsize))
    if isinstance(value, tuple):
        items = [typeof_value(v) for v in value]
        if all(items):
            fields = getattr(type(value), "_fields", None)
            return TupleT(tuple(items), tuple(fields) if fields else None)  # type: ignore
    return None


def tuple_leaves(ty: Type, path: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Type]]:
    """A kernel argument's parameters: itself, or for a tuple (nested or
    not) each of its non-tuple items with its path of indices, in order."""
    if not isinstance(ty, TupleT):
        return [(path, ty)]
    leaves: list[tuple[tuple[int, ...], Type]] = []
    for i, item in enumerate(ty.items):
        leaves.extend(tuple_leaves(item, path + (i,)))
    return leaves


def layout_of(array: np.ndarray) -> str:
    if array.flags.c_contiguous:
        return "C"
    if array.flags.f_contiguous:
        return "F"
    return "A"


def layout_from(shape: tuple[int, ...], strides: tuple[int, ...] | None, itemsize: int) -> str:
    if strides is None:
        return "C"
    expected = itemsize
    c_ok = True
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            c_ok = False
        expected *= extent
    if c_ok:
        return "C"
    expected = itemsize
    for extent, stride in zip(shape, strides):
        if extent != 1 and stride != expected:
            return "A"
        expected *= extent
    return "F"


_INTERNED: dict[Type, Type] = {}


def intern(ty: Type) -> Type:
    """The one shared instance of an equal type, so that a tuple of their
    ids keys the dispatcher's fast lookup."""
    return _INTERNED.setdefault(ty, ty)


# Numba's type classes, for isinstance() checks and Array(dtype, ndim, layout).
Array = ArrayT
NoneType = NoneT


class _ScalarKindMeta(type):
    kinds = ""

    def __instancecheck__(cls, value: object) -> bool:
        return isinstance(value, Scalar) and value.kind in cls.kinds


class Integer(metaclass=_ScalarKindMeta):
    """isinstance(int32, Integer): signed and unsigned integer types."""

    kinds = "iu"


class Float(metaclass=_ScalarKindMeta):
    kinds = "f"


class Complex(metaclass=_ScalarKindMeta):
    kinds = "c"


class Boolean(metaclass=_ScalarKindMeta):
    kinds = "b"


class Number(metaclass=_ScalarKindMeta):
    """Integer, floating-point and complex types."""

    kinds = "iufc"


# Numba's sets of number types.
signed_domain = frozenset({int8, int16, int32, int64})
unsigned_domain = frozenset({uint8, uint16, uint32, uint64})
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset({float32, float64})
complex_domain = frozenset({complex64, complex128})
number_domain = real_domain | integer_domain | complex_domain
