"""Functions defined inside kernels and device functions (`def inner(...)`
in a body, and `name = lambda ...`), as Numba compiles closures.

A nested function becomes a device function of its own whose parameters are
its own followed by the enclosing function's variables it reads (its
captures). Called where it is defined, the captures are passed as they are
at the call (Python's late binding; arrays as their views); passed to another
device function, it carries the captures known at compile time (numbers,
functions) as constants, as Numba does. Recursion, `nonlocal` and returning
the function are refused with a TranslationError.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from .parse import ParsedFunction
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator
    from .program import Program


def local_names(function: ast.FunctionDef) -> set[str]:
    """The names a function binds (its parameters, assignments, loop
    variables, nested defs), less those it declares global."""
    names = {a.arg for a in _all_params(function.args)}
    declared_global: set[str] = set()
    for node in _own_nodes(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Global):
            declared_global.update(node.names)
    return names - declared_global


def free_names(function: ast.FunctionDef | ast.Lambda) -> set[str]:
    """The names a function reads that it does not bind (its own and those of
    the functions nested in it)."""
    if isinstance(function, ast.Lambda):
        function = _lambda_def("<lambda>", function)
    bound = local_names(function)
    read: set[str] = set()
    for node in _own_nodes(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not function:
            read |= free_names(node)
    # defaults are evaluated where the function is defined
    return read - bound


def _own_nodes(function: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of a function's body, not descending into nested functions
    (which are listed themselves)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _all_params(args: ast.arguments) -> list[ast.arg]:
    params = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
    params += [a for a in (args.vararg, args.kwarg) if a is not None]
    return params


def _lambda_def(name: str, node: ast.Lambda) -> ast.FunctionDef:
    body = ast.Return(node.body)
    ast.copy_location(body, node.body)
    function = ast.FunctionDef(name=name, args=node.args, body=[body], decorator_list=[],
                               returns=None, type_params=[])
    ast.copy_location(function, node)
    return ast.fix_missing_locations(function)


class NestedFunction:
    """One `def` inside a translated function, translated as a device function
    taking its captures as extra parameters."""

    def __init__(self, tr: "FunctionTranslator", node: ast.FunctionDef,
                 captures: list[tuple[str, str]]) -> None:
        self.node = node
        self.definer = tr.parsed
        self.captures = captures  # (parameter, the enclosing function's variable)
        self.__name__ = node.name
        params = [ast.arg(arg=param) for param, _ in captures]
        if node.args.vararg is not None:  # *args last, after the captures
            params.append(node.args.vararg)
        args = ast.arguments(posonlyargs=[], args=list(node.args.args) + params, vararg=None,
                             kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        tree = ast.FunctionDef(name=node.name, args=args, body=node.body, decorator_list=[],
                               returns=None, type_params=[])
        ast.copy_location(tree, node)
        self.parsed = ParsedFunction(tr.parsed.py_func, tree, tr.parsed.where,
                                     [a.arg for a in args.args], tr.parsed.source)
        self.parsed.function_name = f"{tr.parsed.where.function}_{node.name}"
        self.parsed.definer = tr.parsed  # (its captures are that function's variables)
        self.parsed.captured = {outer: param for param, outer in captures}
        self.parsed.vararg = node.args.vararg.arg if node.args.vararg is not None else ""
        self.defaults = self._defaults(tr)
        self.values: dict[BoundNested, BoundNested] = {}

    def _defaults(self, tr: "FunctionTranslator") -> dict[str, Any]:
        params = [a.arg for a in self.node.args.args]
        defaults = self.node.args.defaults
        out = {}
        for name, expr in zip(params[len(params) - len(defaults):], defaults):
            try:
                out[name] = ast.literal_eval(expr)
            except ValueError:
                raise tr.unsupported(f"the default value of '{name}' of the nested function "
                                     f"'{self.node.name}' is not a constant; pass the value "
                                     "in the call instead", expr) from None
        return out

    def _device_specialization(self, program: "Program", arg_types: tuple[Any, ...],
                               where: Any, node: ast.AST) -> tuple[str, Any]:
        from .typing import translate_device
        return translate_device(self.parsed, arg_types, program, (id(self), arg_types), where,
                                node)

    def bound(self, tr: "FunctionTranslator") -> "BoundNested":
        """This function as a value: with the captures known now as constants."""
        frozen: dict[str, Any] = {}
        for _, name in self.captures:
            val = tr.load_name(ast.Name(id=name, ctx=ast.Load()))
            if val.type is None or (val.known and val.items is None
                                    and not isinstance(val.py, (list, dict))):
                frozen[name] = val.py
        value = BoundNested(self, tuple(sorted(frozen.items(), key=lambda kv: kv[0])))
        # One object per value: device functions are specialized for it by identity.
        return self.values.setdefault(value, value)


class BoundNested:
    """A nested function as a value, with the captures known at compile time."""

    def __init__(self, function: NestedFunction, frozen: tuple[tuple[str, Any], ...]) -> None:
        self.function = function
        self.frozen = frozen
        self.__name__ = function.__name__

    def _key(self) -> tuple[Any, ...]:
        return (id(self.function), tuple((k, type(v), _hashable(v)) for k, v in self.frozen))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoundNested) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<nested function {self.__name__}>"


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return id(value)


def define(tr: "FunctionTranslator", node: ast.FunctionDef, is_lambda: bool = False) -> None:
    """The statement `def name(...)` in a translated function."""
    where = f"the nested function '{node.name}'"
    if node.decorator_list:
        raise tr.unsupported(f"decorators on {where}; define it without one (it is compiled "
                             "with the function it is in)", node)
    args = node.args
    if args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise tr.unsupported(f"{where} takes **kwargs or keyword-only parameters; give it "
                             "positional parameters (and *args)", node)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Nonlocal):
            raise tr.unsupported(f"'nonlocal {', '.join(sub.names)}' in {where}: assigning "
                                 "to the enclosing function's variables is not supported; "
                                 "return the new value and assign it there", sub)
        if isinstance(sub, (ast.Yield, ast.YieldFrom)):
            raise tr.unsupported(f"{where} is a generator (yield), which kernels do not "
                                 "support", sub)
    free = free_names(node)
    if node.name in free:
        raise tr.unsupported(f"{where} calls itself: recursion is not supported in kernels; "
                             "write it as a loop", node)
    outer = set(tr.parsed.arg_names) | local_names(tr.parsed.tree)
    captured = {name for name in free if name in outer}
    # A sibling it calls gets the sibling's captures through it (the
    # enclosing function's variables, unless this function rebinds them).
    siblings = tr.__dict__.get("nested_functions", {})
    own = local_names(node)
    passed_on = {name for sibling in free if sibling in siblings
                 for _, name in siblings[sibling].captures} - captured
    # (under another name where this function has its own variable of that name)
    captures = sorted([(name, name) for name in captured]
                      + [(f"ck_outer_{name}" if name in own else name, name)
                         for name in passed_on])
    cache = tr.parsed.__dict__.setdefault("_nested_functions", {})
    key = (id(node), tuple(captures))
    function = cache.get(key)
    if function is None:
        function = cache[key] = NestedFunction(tr, node, captures)
    defined = tr.__dict__.setdefault("nested_functions", {})
    defined_twice = sum(1 for sub in ast.walk(tr.parsed.tree)
                        if isinstance(sub, ast.FunctionDef) and sub.name == node.name
                        and sub is not tr.parsed.tree) > 1
    if not is_lambda and (defined_twice or node.name in tr.locals
                          or tr.assigned_anywhere(node.name)):
        raise tr.typing_error(f"'{node.name}' is defined more than once or also assigned "
                              "(Cannot capture a constant value for variable "
                              f"'{node.name}'); give each nested function its own name", node)
    defined[node.name] = function


def define_lambda(tr: "FunctionTranslator", name: str, node: ast.Lambda) -> None:
    """`name = lambda ...: ...` in a translated function: a nested def."""
    made = tr.parsed.__dict__.setdefault("_lambda_defs", {})
    if (id(node), name) not in made:  # one def per lambda: one device function
        made[(id(node), name)] = _lambda_def(name, node)
    function = made[(id(node), name)]
    if name in tr.locals:
        raise tr.typing_error(f"'{name}' holds a number elsewhere and cannot name a lambda",
                              node)
    define(tr, function, is_lambda=True)


def call(tr: "FunctionTranslator", callee: BoundNested, args: list[Val],
         kwargs: dict[str, Val], node: ast.AST) -> Val:
    """A call of a nested function: its parameters bound (keywords, defaults),
    then its captures, and the device-function call."""
    function = callee.function
    params = [a.arg for a in function.node.args.args]
    extra = args[len(params):]
    args = args[:len(params)]
    if extra and not function.parsed.vararg:
        raise tr.typing_error(f"{function.__name__}() takes {len(params)} arguments, "
                              f"{len(args) + len(extra)} given", node)
    bound: dict[str, Val] = dict(zip(params, args))
    for key, val in kwargs.items():
        if key not in params:
            raise tr.typing_error(f"{function.__name__}() has no parameter '{key}'", node)
        if key in bound:
            raise tr.typing_error(f"{function.__name__}() got two values for '{key}'", node)
        bound[key] = val
    for name in params:
        if name not in bound:
            if name not in function.defaults:
                raise tr.typing_error(f"{function.__name__}() is missing the argument "
                                      f"'{name}'", node)
            bound[name] = tr.python_object(function.defaults[name], node)
    values = [bound[name] for name in params]
    frozen = dict(callee.frozen)
    for _, name in function.captures:
        through = getattr(tr.parsed, "captured", {}).get(name)
        if function.definer is tr.parsed:
            values.append(tr.load_name(ast.Name(id=name, ctx=ast.Load())))
        elif getattr(tr.parsed, "definer", None) is function.definer and through:
            # a sibling's call: the variable it was given for this one
            values.append(tr.load_name(ast.Name(id=through, ctx=ast.Load())))
        elif name in frozen:
            values.append(tr.python_object(frozen[name], node))
        else:
            raise tr.typing_error(
                f"Cannot capture the non-constant value associated with '{name}' in the "
                f"nested function '{function.__name__}' called outside the function that "
                f"defines it; pass '{name}' to it as an argument instead", node)
    return tr.device_call(function, values + extra, node)
