"""Expands a source's own macros that spell kernel structure, before the CPU
backend compiles it.

The CPU backend finds kernels, their ``__launch_bounds__`` and whether they
synchronize by scanning the source, which does not expand macros. Sources
written for PyCUDA's CLUDA layer (``pycuda.scan``'s templates:
``#define KERNEL extern "C" __global__``, ``REQD_WG_SIZE(X,Y,Z)``,
``local_barrier()``) hide all three behind macros. This expands, in the code
outside preprocessor lines, comments and string literals, every macro the
source defines once, on one line, whose replacement names ``__global__``,
``__launch_bounds__``, ``__shared__`` or a barrier; a function-like use
expands only when its arguments are on the same line (so the lines keep their
numbers). The compiler sees the same program.
"""

from __future__ import annotations

import re
from collections import Counter

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\(([^)]*)\))?(.*)$", re.MULTILINE)
_STRUCTURE = re.compile(r"\b(?:__global__|__launch_bounds__|__shared__|__syncthreads\w*|"
                        r"__syncwarp)\b")
_TOKEN = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|//[^\n]*|/\*.*?\*/"
                    r"|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*|[A-Za-z_]\w*", re.MULTILINE | re.DOTALL)

Macro = tuple[list[str] | None, str]  # parameters (None: object-like), replacement


def _macros(source: str) -> dict[str, Macro]:
    counts: Counter[str] = Counter()
    found: dict[str, Macro] = {}
    for match in _DEFINE.finditer(source):
        name, params, body = match.group(1), match.group(3), match.group(4)
        counts[name] += 1
        if body.rstrip().endswith("\\"):
            continue  # a multi-line replacement: left to the compiler
        body = re.sub(r"/\*.*?\*/|//.*", " ", body).strip()
        if _STRUCTURE.search(body):
            parameters = None if match.group(2) is None else \
                [p.strip() for p in params.split(",") if p.strip()]
            found[name] = (parameters, body)
    return {name: macro for name, macro in found.items() if counts[name] == 1}


def _arguments(text: str, start: int) -> tuple[list[str], int] | None:
    """The comma-separated arguments of a call whose '(' is at or after
    ``start`` on the same line, and the index after its ')'."""
    at = start
    while at < len(text) and text[at] in " \t":
        at += 1
    if at >= len(text) or text[at] != "(":
        return None
    depth, args, current = 0, [], ""
    for index in range(at, len(text)):
        char = text[index]
        if char == "\n":
            return None
        if char == "(":
            depth += 1
            if depth == 1:
                continue
        elif char == ")":
            depth -= 1
            if depth == 0:
                args.append(current.strip())
                return (args if args != [""] else []), index + 1
        elif char == "," and depth == 1:
            args.append(current.strip())
            current = ""
            continue
        current += char
    return None


def _expand(text: str, macros: dict[str, Macro]) -> str:
    out: list[str] = []
    position = 0
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token not in macros or match.start() < position:
            continue
        parameters, body = macros[token]
        end = match.end()
        if parameters is not None:
            call = _arguments(text, end)
            if call is None or len(call[0]) != len(parameters):
                continue
            args, end = call
            for name, value in zip(parameters, args):
                body = re.sub(rf"\b{re.escape(name)}\b", lambda _m, v=value: v, body)
        inner = {k: v for k, v in macros.items() if k != token}  # no self-expansion, as cpp
        out += [text[position:match.start()], _expand(body, inner)]
        position = end
    out.append(text[position:])
    return "".join(out)


def expand_kernel_macros(source: str) -> str:
    macros = _macros(source)
    return _expand(source, macros) if macros else source
