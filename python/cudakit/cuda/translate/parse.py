"""A Python function's source as an AST, with what its names refer to.

Globals and closure variables are read once, when a specialization is
translated, and frozen into the generated code as constants (Numba does the
same: later changes to a global do not reach an already compiled kernel).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass
from types import FunctionType
from tokenize import TokenError
from typing import Any

from . import sources
from .errors import SourceLocation, UnsupportedError

sources.install()  # from here on, strings compiled without a file keep their text


@dataclass
class ParsedFunction:
    py_func: FunctionType
    tree: ast.FunctionDef
    where: SourceLocation
    arg_names: list[str]
    source: str
    vararg: str = ""  # the name of *args (a device function's), else ""

    def lookup(self, name: str) -> tuple[bool, Any]:
        """The value a free name has now: closure cell, then global, then
        builtin. (False, None) when it is none of them."""
        code = self.py_func.__code__
        if name in code.co_freevars and self.py_func.__closure__:
            cell = self.py_func.__closure__[code.co_freevars.index(name)]
            try:
                return True, cell.cell_contents
            except ValueError:
                return False, None
        if name in self.py_func.__globals__:
            return True, self.py_func.__globals__[name]
        builtins = self.py_func.__globals__.get("__builtins__", {})
        if isinstance(builtins, dict):
            if name in builtins:
                return True, builtins[name]
        elif hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None


def parse_function(py_func: FunctionType) -> ParsedFunction:
    """Parse `py_func`'s source: its file's, else the string or command line
    it was compiled from (translate/sources.py); UnsupportedError when there
    is none."""
    filename = py_func.__code__.co_filename
    found = _quick_source(py_func, linecache.getlines(filename))
    if found is None:
        try:
            filename = inspect.getsourcefile(py_func) or filename
            lines, first_line = inspect.getsourcelines(py_func)
            source = textwrap.dedent("".join(lines))
        except (OSError, TypeError):
            found = _kept_function_source(py_func)
    if found is not None:
        lines, first_line, source = found
    where = SourceLocation(filename, first_line, [line.rstrip("\n") for line in lines],
                           py_func.__name__)
    if py_func.__name__ == "<lambda>":
        tree = _lambda_as_function(source, py_func, where)
    else:
        tree = ast.parse(source, filename=filename).body[0]
    if not isinstance(tree, ast.FunctionDef):
        raise UnsupportedError("only functions defined with `def` can be kernels", where, tree)
    args = tree.args
    if args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise UnsupportedError("kernels take plain positional parameters (no *args, "
                               "**kwargs or keyword-only parameters)", where, tree)
    parsed = ParsedFunction(py_func, tree, where, [a.arg for a in args.args], source)
    if args.vararg:  # a device function's *args: one tuple parameter, last
        parsed.arg_names.append(args.vararg.arg)
        parsed.vararg = args.vararg.arg
    return parsed


def _kept_function_source(py_func: FunctionType) -> tuple[list[str], int, str]:
    """The function's lines in the source text compiled without a file
    (exec of a string, `python -c`, stdin); UnsupportedError when none was
    kept."""
    code = py_func.__code__
    text = sources.kept_source(code)
    if text is not None:
        all_lines = text.splitlines(keepends=True)
        found = _quick_source(py_func, all_lines)
        if found is not None:
            return found
        try:
            lines = inspect.getblock(all_lines[code.co_firstlineno - 1:])
            return lines, code.co_firstlineno, textwrap.dedent("".join(lines))
        except (IndexError, SyntaxError, TokenError):
            pass
    raise UnsupportedError(
        f"cannot find the Python source of {py_func.__qualname__} (compiled as "
        f"{code.co_filename!r}, line {code.co_firstlineno}): kernels and device functions are "
        f"translated from their source, and {sources.why_no_source(code)}. Define the "
        "function in a file, or give its source text to exec()/compile() after importing "
        "cudakit.cuda") from None


def _quick_source(py_func: FunctionType,
                  all_lines: list[str]) -> tuple[list[str], int, str] | None:
    """The function's lines by indentation from co_firstlineno (inspect
    tokenizes the whole module, ~5 ms); None when unsure, and inspect
    decides."""
    code = py_func.__code__
    if py_func.__name__ == "<lambda>":
        return None
    start = code.co_firstlineno - 1
    if not all_lines or start >= len(all_lines):
        return None
    def_at = start
    while def_at < len(all_lines) and not all_lines[def_at].lstrip().startswith(
            ("def ", "async def ")):
        def_at += 1
    if def_at >= len(all_lines):
        return None
    indent = len(all_lines[def_at]) - len(all_lines[def_at].lstrip())
    end = def_at + 1
    while end < len(all_lines):
        line = all_lines[end]
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and len(line) - len(line.lstrip()) <= indent:
            break
        end += 1
    lines = all_lines[start:end]
    source = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) \
            or tree.body[0].name != py_func.__name__:
        return None
    return lines, start + 1, source


def _lambda_as_function(source: str, py_func: FunctionType,
                        where: SourceLocation) -> ast.FunctionDef:
    """`lambda a, b: expr` as `def <lambda>(a, b): return expr` (the first
    lambda on its lines with the same parameter names)."""
    text = source.strip()
    # The lines as a statement, an expression, or a call's arguments
    # (`lambda: None, sig, cc=(9, 0)` on a line of its own).
    for candidate in (text, "(" + text.rstrip(",") + ")", "_(" + text.rstrip(",") + ")"):
        try:
            module = ast.parse(candidate)
            break
        except SyntaxError:
            continue
    else:
        raise UnsupportedError("cannot isolate the lambda's source; define the function "
                               "with def", where)
    code = py_func.__code__
    names = list(code.co_varnames[:code.co_argcount])
    for node in ast.walk(module):
        if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == names:
            body = ast.Return(node.body)
            function = ast.FunctionDef(name="<lambda>", args=node.args, body=[body],
                                       decorator_list=[], returns=None, type_params=[])
            ast.copy_location(body, node.body)
            ast.copy_location(function, node)
            return ast.fix_missing_locations(function)
    raise UnsupportedError("cannot find the lambda in its source; define the function with "
                           "def", where)
