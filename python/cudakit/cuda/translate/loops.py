"""Loops: while (with else), for over ranges of any step (counted in the
narrowest integer that holds them), over arrays (their rows), enumerate,
zip and tuples (iteration.py), for-else (loop_else.py), break, continue."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import numpy as np

from . import iteration, loop_else
from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


class LoopsMixin:
    def stmt_While(self, node: ast.While) -> None:
        loop_else.loop(self, node, self.while_loop)  # type: ignore[arg-type]

    def while_loop(self, node: ast.While) -> None:
        start = len(self.lines)
        condition = self.expr(node.test)
        test = self.truth(condition, node.test)
        if len(self.lines) == start:
            self.emit(f"while ({test}) {{")
        else:
            # The condition needed statements (a foreign call's result, a
            # device function's tuple): they run again before every test.
            setup = self.lines[start:]
            del self.lines[start:]
            self.emit("while (true) {")
            self.lines.extend("  " + line for line in setup)
            self.emit(f"  if (!({test})) break;")
        self.block(node.body)
        self.emit("}")

    def stmt_Break(self, node: ast.Break) -> None:
        loop_else.emit_break(self)

    def stmt_Continue(self, node: ast.Continue) -> None:
        self.emit("continue;")

    def stmt_For(self, node: ast.For) -> None:
        loop_else.loop(self, node, self.for_loop)  # type: ignore[arg-type]

    def for_loop(self, node: ast.For) -> None:
        iterator = node.iter
        if iteration.is_literal_unroll(self, iterator):
            iteration.unrolled_loop(self, node)
            return
        if iteration.builtin_iterable(self, iterator) in ("enumerate", "zip"):
            iteration.loop(self, node)
            return
        if not (isinstance(iterator, ast.Call) and isinstance(iterator.func, ast.Name)
                and iterator.func.id == "range"
                and self.parsed.lookup("range")[1] is range and "range" not in self.locals):
            self.for_over_array(node)
            return
        args = iteration.range_arguments(self, iterator)
        if len(args) == 1:
            args = [Val(t.int64, "0LL", 0)] + args
        if len(args) == 2:
            args.append(Val(t.int64, "1LL", 1))
        start, stop, step = args
        index_type: t.Scalar = t.int64
        for a in args:
            index_type = t.unify(index_type, a.type)  # type: ignore[assignment]
        if index_type.kind == "f":
            index_type = t.int64
        loop_type = index_type  # Numba's type of the loop variable
        if step.known and step.py == 0:
            raise self.typing_error("range() step must not be zero", iterator)
        counter, end = self.fresh("i"), self.fresh("stop")
        ct = index_type.ctype
        if _fits_int(start, stop, step):
            # Constant bounds within int: the counter cannot overflow an int,
            # and 32-bit counters are what CUDA C loops use.
            ct = "int"
            start, stop, step = (Val(t.int32, str(int(v.py)), int(v.py))
                                 for v in (start, stop, step))
            index_type = t.int32
        counter_value = self.range_loop(counter, end, start, stop, step, index_type, ct, iterator)
        # (A grid-stride loop, range(cuda.grid(1), n, cuda.gridsize(1)), counts up from 0;
        # range(n - 1, -1, -1) counts down to 0: its counter stays above stop >= -1.)
        counter_nonneg = (start.never_negative and step.never_negative) or (
            step.known and step.py < 0 and (stop.never_negative
                                            or (stop.known and stop.py >= -1)))
        self.indent += 1
        self.assign(node.target, Val(loop_type, counter_value, nonneg=counter_nonneg), node)
        self.indent -= 1
        self.block(node.body)
        self.emit("}")

    def range_loop(self, counter: str, end: str, start: Val, stop: Val, step: Val,
                   index_type: t.Scalar, ct: str, node: ast.AST) -> str:
        """Emits the `for` line of a range() loop; returns the counter's value
        (the loop variable). The counter never overflows: a loop whose step
        could carry it past the limits of int64 runs on the count of its
        values, as Numba's range loops do (a count the GPU compiler sees, so
        it unrolls such loops as it unrolls the plain ones)."""
        first, last = self.cast(start, index_type), self.cast(stop, index_type)
        if step.known:
            size = t.wrapped(int(step.py), t.int64)
            if ct == "int" or abs(size) == 1 or _range_stays_in_int64(stop, size):
                compare = "<" if size > 0 else ">"
                increment = (f"++{counter}" if size == 1 else
                             f"{counter} += {self.cast(step, index_type)}")
                self.emit(f"for ({ct} {counter} = {first}, {end} = {last}; "
                          f"{counter} {compare} {end}; {increment}) {{")
                return counter
            from .codegen import c_literal
            return self.counted_range(counter, first, last, c_literal(size, t.int64), False,
                                      node)
        return self.counted_range(counter, first, last, self.cast(step, t.int64), True, node)

    def counted_range(self, counter: str, first: str, last: str, step: str, run_time_step: bool,
                      node: ast.AST) -> str:
        """A range() loop that runs on the count of its values (0 for a step
        of 0); its unsigned counter wraps around harmlessly after the last."""
        names = []
        for base, code in (("start", first), ("stop", last), ("step", step)):
            names.append(self.fresh(base))
            self.emit(f"const long long {names[-1]} = {code};")
        if run_time_step:
            self.zero_step_check(names[2], node)
        self.program.need_helper("range_count")
        count = self.fresh("n")
        self.emit(f"for (unsigned long long {count} = ck_range_count({', '.join(names)}), "
                  f"{counter} = (unsigned long long){names[0]}; {count} != 0; "
                  f"--{count}, {counter} += (unsigned long long){names[2]}) {{")
        return f"(long long){counter}"

    def zero_step_check(self, step: str, node: ast.AST) -> None:
        """With debug=True, Python's error for a run-time step of 0 (the loop
        has no iterations without debug)."""
        if self.debug:
            self.program.need_helper("fail")
            text = self.python_error_text("ValueError: range() arg 3 must not be zero", node)
            self.emit(f'if ({step} == 0) ck_fail("{text}");')

    def for_over_array(self, node: ast.For) -> None:
        """`for x in a` over the first axis of an array (elements of a 1-d one)."""
        array = self.expr(node.iter)
        if array.items is not None and iteration.is_uniform_tuple(array):
            iteration.tuple_loop(self, node, array)
            return
        if array.items:
            from .codegen import _construct
            raise self.unsupported(
                f"iterating over {_construct(node.iter)}, a tuple whose items differ in type "
                "(for loops run over range(...), an array or a tuple of one type; use "
                "cuda.literal_unroll(tup) for this one)", node)
        if not isinstance(array.type, t.ArrayT):
            from .codegen import _construct
            raise self.unsupported("for loops run over range(...) or an array (iterating "
                                   f"over {_construct(node.iter)} is not supported)", node)
        counter, end = self.fresh("i"), self.fresh("stop")
        extent = self.extent(array, 0)
        self.emit(f"for (long long {counter} = 0, {end} = {extent}; {counter} < {end}; "
                  f"++{counter}) {{")
        self.indent += 1
        self.assign(node.target, self.first_axis_item(array, counter, node.iter), node)
        self.indent -= 1
        self.block(node.body)
        self.emit("}")


def _fits_int(start: Val, stop: Val, step: Val) -> bool:
    """Whether range(start, stop, step) is known at compile time and every
    value its counter takes, the one past the end included, fits an int."""
    if not all(v.known and isinstance(v.py, (int, np.integer)) and not isinstance(v.py, bool)
               for v in (start, stop, step)):
        return False
    low, high = -(2**31), 2**31 - 1
    first, last, stride = int(start.py), int(stop.py), int(step.py)
    return low <= first <= high and low <= last + stride <= high and low <= last <= high


def _surely_nonneg(value: Val) -> bool:
    """Never negative as an int64 (a uint64 known only at run time may not be)."""
    return value.never_negative and (value.known or value.type != t.uint64)


def _range_stays_in_int64(stop: Val, step: int) -> bool:
    """Whether a range() counter before `stop` can take a step of `step`
    without leaving int64."""
    if step < 0 and _surely_nonneg(stop):
        return True  # counting down to a stop >= 0
    if not (stop.known and isinstance(stop.py, (int, np.integer))):
        return False
    last = t.wrapped(int(stop.py), t.int64)
    return last <= 2**63 - step if step > 0 else last >= -(2**63) - step - 1
