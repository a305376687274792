"""`for` loops over enumerate(...) and zip(...) in kernels, as Numba runs
them: over arrays (the elements of 1-d ones, the rows of 2-d ones, ...),
range(...) objects and homogeneous
tuples of numbers, nested in any combination (enumerate(zip(a, b), 1)).

Each iterable becomes a Sequence: its length (a C++ expression evaluated
once, before the loop) and the C++ value of its k-th item. The loop runs
k from 0 to the shortest length, as zip stops at the shortest input.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


@dataclass
class Sequence:
    length: str  # a C++ expression of type long long
    item: Callable[[str], Val]  # the k-th item, given k's C++ name


def builtin_iterable(tr: "FunctionTranslator", node: ast.expr) -> str | None:
    """'enumerate', 'zip' or 'range' when `node` calls that builtin, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("enumerate", "zip", "range") and node.func.id not in tr.locals:
        found, value = tr.parsed.lookup(node.func.id)
        if found and value is getattr(builtins, node.func.id):
            return node.func.id
    return None


def _constant(tr: "FunctionTranslator", code: str, base: str) -> str:
    name = tr.fresh(base)
    tr.emit(f"const long long {name} = {code};")
    return name


def sequence(tr: "FunctionTranslator", node: ast.expr) -> Sequence:
    kind = builtin_iterable(tr, node)
    if kind is not None:
        assert isinstance(node, ast.Call)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise tr.unsupported(f"*args in {kind}()", node)
    if kind == "range":
        return _range(tr, node)  # type: ignore[arg-type]
    if kind == "enumerate":
        return _enumerate(tr, node)  # type: ignore[arg-type]
    if kind == "zip":
        assert isinstance(node, ast.Call)
        if node.keywords:
            raise tr.typing_error("zip() in a kernel takes no keyword arguments", node)
        parts = [sequence(tr, a) for a in node.args]
        if not parts:
            return Sequence("0LL", lambda k: tr.tuple_value([]))
        length = parts[0].length
        for part in parts[1:]:
            length = f"({part.length} < {length} ? {part.length} : {length})"
        length = _constant(tr, length, "zip")
        return Sequence(length, lambda k: tr.tuple_value([p.item(k) for p in parts]))
    value = tr.expr(node)
    if isinstance(value.type, t.ArrayT):
        length = _constant(tr, tr.extent(value, 0), "len")
        return Sequence(length, lambda k: tr.first_axis_item(value, k, node))
    if is_uniform_tuple(value):
        return tuple_sequence(tr, value)
    raise tr.typing_error(f"enumerate() and zip() in a kernel take 1-d arrays, range() "
                          f"objects and tuples of numbers of one type, got {value.describe()}",
                          node)


def is_uniform_tuple(value: Val) -> bool:
    """A tuple whose items are numbers (or vectors) of one type."""
    from .vectors import VectorT
    return bool(value.items) and len({v.type for v in value.items}) == 1 \
        and isinstance(value.items[0].type, (t.Scalar, VectorT))  # type: ignore[index]


def tuple_sequence(tr: "FunctionTranslator", value: Val) -> Sequence:
    """A uniform tuple's items, each held once, picked by a run-time index."""
    items = value.items
    names = []
    for item in items:
        names.append(tr.fresh("elt"))
        tr.emit(f"const {item.type.ctype} {names[-1]} = {item.code};")  # type: ignore

    def pick(k: str) -> Val:
        code = names[-1]
        for i in range(len(names) - 2, -1, -1):
            code = f"({k} == {i} ? {names[i]} : {code})"
        return Val(items[0].type, code)
    return Sequence(f"{len(items)}LL", pick)


def tuple_loop(tr: "FunctionTranslator", node: ast.For, value: Val) -> None:
    """for x in (a, b, c): over a tuple of numbers or vectors of one type."""
    sequence = tuple_sequence(tr, value)
    counter = tr.fresh("k")
    tr.emit(f"for (long long {counter} = 0; {counter} < {sequence.length}; ++{counter}) {{")
    tr.indent += 1
    tr.assign(node.target, sequence.item(counter), node)
    tr.indent -= 1
    tr.block(node.body)
    tr.emit("}")


def range_arguments(tr: "FunctionTranslator", node: ast.Call) -> list[Val]:
    """range(...)'s 1 to 3 arguments, each checked to be an integer."""
    if node.keywords or not 1 <= len(node.args) <= 3:
        raise tr.typing_error("range() takes 1 to 3 integer arguments", node)
    args = [tr.expr(a) for a in node.args]
    for a, a_node in zip(args, node.args):
        if not (isinstance(a.type, t.Scalar) and a.type.kind in "iub"):
            raise tr.typing_error(f"range() takes integers, got {a.describe()}", a_node)
    return args


def _range(tr: "FunctionTranslator", node: ast.Call) -> Sequence:
    args = range_arguments(tr, node)
    codes = [tr.cast(a, t.int64) for a in args]
    if len(codes) == 1:
        codes = ["0LL"] + codes
    if len(codes) == 2:
        codes.append("1LL")
    start, stop, step = (_constant(tr, c, base) for c, base in zip(codes, ("start", "stop",
                                                                           "step")))
    tr.program.need_helper("range_count")
    length = _constant(tr, f"(long long)ck_range_count({start}, {stop}, {step})", "len")
    return Sequence(length, lambda k: Val(t.int64, f"({start} + {k} * {step})"))


def _enumerate(tr: "FunctionTranslator", node: ast.Call) -> Sequence:
    start_node = node.args[1] if len(node.args) > 1 else None
    for keyword in node.keywords:
        if keyword.arg != "start" or start_node is not None:
            raise tr.typing_error("enumerate(iterable, start=0) takes an iterable and an "
                                  "optional integer start", node)
        start_node = keyword.value
    if not node.args or len(node.args) > 2:
        raise tr.typing_error("enumerate(iterable, start=0) takes an iterable and an optional "
                              "integer start", node)
    inner = sequence(tr, node.args[0])
    first, from_zero = "0LL", True
    if start_node is not None:
        start = tr.expr(start_node)
        if not (isinstance(start.type, t.Scalar) and start.type.kind in "iub"):
            raise tr.typing_error(f"enumerate()'s start must be an integer, got "
                                  f"{start.describe()}", start_node)
        first, from_zero = _constant(tr, tr.cast(start, t.int64), "first"), start.never_negative
    return Sequence(inner.length, lambda k: tr.tuple_value(
        [Val(t.int64, f"({first} + {k})", nonneg=from_zero), inner.item(k)]))


def loop(tr: "FunctionTranslator", node: ast.For) -> None:
    """for target in enumerate(...) / zip(...): body (the else block is
    loop_else's)."""
    seq = sequence(tr, node.iter)
    counter, end = tr.fresh("k"), tr.fresh("n")
    tr.emit(f"for (long long {counter} = 0, {end} = {seq.length}; {counter} < {end}; "
            f"++{counter}) {{")
    tr.indent += 1
    tr.assign(node.target, seq.item(counter), node)
    tr.indent -= 1
    tr.block(node.body)
    tr.emit("}")


def is_literal_unroll(tr: "FunctionTranslator", node: ast.expr) -> bool:
    """Whether `node` is literal_unroll(tuple) (misc.special's)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))):
        return False
    from ..misc.special import literal_unroll
    try:
        return tr.expr(node.func).py is literal_unroll
    except Exception:  # noqa: BLE001 (not a name the translator resolves: not ours)
        return False


def _breaks_out(statements: list[ast.stmt]) -> ast.Break | None:
    """A `break` of this loop (not of a loop nested in it), if any."""
    for statement in statements:
        if isinstance(statement, ast.Break):
            return statement
        if isinstance(statement, (ast.For, ast.While)):
            inner = statement.orelse  # a nested loop's own breaks are its
        else:
            inner = [c for c in ast.iter_child_nodes(statement) if isinstance(c, ast.stmt)]
        found = _breaks_out(inner)
        if found is not None:
            return found
    return None


def unrolled_loop(tr: "FunctionTranslator", node: ast.For) -> None:
    """for x in literal_unroll(tup): the body once per item, `x` being that
    item (of its own type) in each copy; `continue` ends one copy."""
    call = node.iter
    assert isinstance(call, ast.Call)
    if len(call.args) != 1 or call.keywords:
        raise tr.typing_error("literal_unroll() takes one tuple", call)
    if node.orelse:
        raise tr.unsupported("for ... else", node)
    if not isinstance(node.target, ast.Name):
        raise tr.unsupported("unpacking the items of literal_unroll() in the for statement "
                             "(unpack them in the body)", node)
    found = _breaks_out(node.body)
    if found is not None:
        raise tr.unsupported("break in a loop over literal_unroll() (its body is repeated "
                             "per item)", found)
    value = tr.expr(call.args[0])
    if value.items is None:
        raise tr.typing_error(f"literal_unroll() takes a tuple, got {value.describe()}", call)
    name = node.target.id
    if name in tr.locals:
        raise tr.unsupported(f"the loop variable '{name}' of literal_unroll() is also an "
                             "ordinary variable of the function (rename one)", node)
    saved = tr.aliases.pop(name, None)
    try:
        for item in value.items:
            if isinstance(item.type, t.Scalar) and not item.known:
                held = tr.fresh("item")
                tr.emit(f"const {item.type.ctype} {held} = {item.code};")
                item = Val(item.type, held, nonneg=item.nonneg)
            tr.aliases[name] = item
            tr.emit("do {")
            tr.block(node.body)
            tr.emit("} while (0);")
    finally:
        tr.aliases.pop(name, None)
        if saved is not None:
            tr.aliases[name] = saved
