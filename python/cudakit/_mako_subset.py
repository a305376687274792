"""The part of the Mako template language PyCUDA's source templates use
(``pycuda.scan``'s SCAN_INTERVALS_SOURCE and friends), so they render
without Mako installed: ``${expression}``; control lines ``% if / elif /
else / endif``, ``% for / endfor``, ``% while / endwhile``; ``<% code %>``
blocks; ``<%def name="f(args)">...</%def>`` called as ``${f(...)}``; and
``##`` comment lines. A template compiles to Python once; ``render(**names)``
runs it with those names (a name it needs and lacks is a NameError).
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

_TOKENS = re.compile(
    r"(?P<def><%def\s+name=\"(?P<signature>[^\"]*)\"\s*>)"
    r"|(?P<enddef></%def>[ \t]*\n?)"
    r"|(?P<code><%(?!def)(?P<body>.*?)%>)"
    r"|(?P<comment>^[ \t]*##[^\n]*(?:\n|$))"
    r"|(?P<control>^[ \t]*%(?!%)[ \t]*(?P<statement>[^\n]*)(?:\n|$))",
    re.MULTILINE | re.DOTALL)
_OPENS = ("if", "for", "while", "try", "with")
_CONTINUES = ("elif", "else", "except", "finally")


def _expressions(text: str) -> list[tuple[bool, str]]:
    """Text split into (is_expression, piece) at each ``${...}`` (braces may nest)."""
    pieces: list[tuple[bool, str]] = []
    start = 0
    while True:
        at = text.find("${", start)
        if at < 0:
            pieces.append((False, text[start:]))
            return pieces
        pieces.append((False, text[start:at]))
        depth, end = 1, at + 2
        while depth:
            if end >= len(text):
                raise SyntaxError(f"template: '${{' without its '}}' in {text[at:at + 40]!r}")
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        pieces.append((True, text[at + 2:end - 1]))
        start = end


class Template:
    """``Template(text).render(**names)`` -> str, as ``mako.template.Template``."""

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"Template: expected the template's text, got {type(text).__name__}")
        self.source = text
        self._code = compile(self._python(text), "<template>", "exec")

    def _python(self, text: str) -> str:
        defs: list[str] = []
        body: list[str] = []
        out, indent = body, 1  # inside the generated function
        stack: list[str] = []

        def emit(line: str) -> None:
            out.append("    " * indent + line)

        def literal(piece: str) -> None:
            for is_expr, part in _expressions(piece):
                if is_expr:
                    emit(f"__w(str({part.strip()}))")
                elif part:
                    emit(f"__w({part!r})")

        position = 0
        for match in _TOKENS.finditer(text):
            literal(text[position:match.start()])
            position = match.end()
            if match.group("def"):
                if out is defs:
                    raise SyntaxError("template: a <%def> inside another is not supported")
                out, saved_indent, indent = defs, indent, 0  # at module level
                emit(f"def {match.group('signature')}:")
                indent += 1
                emit("pass")
            elif match.group("enddef"):
                if out is not defs:
                    raise SyntaxError("template: </%def> without its <%def>")
                emit("return ''")
                out, indent = body, saved_indent
            elif match.group("code"):
                for line in textwrap.dedent(match.group("body")).strip("\n").splitlines():
                    emit(line)
            elif match.group("control"):
                statement = match.group("statement").strip()
                word = re.match(r"\w*", statement).group(0)  # type: ignore[union-attr]
                if word.startswith("end"):
                    if not stack or stack[-1] != word[3:]:
                        raise SyntaxError(f"template: '% {statement}' does not close "
                                          f"{'% ' + stack[-1] if stack else 'anything'}")
                    stack.pop()
                    indent -= 1
                elif word in _CONTINUES:
                    indent -= 1
                    emit(statement)
                    indent += 1
                    emit("pass")
                elif word in _OPENS:
                    stack.append(word)
                    emit(statement)
                    indent += 1
                    emit("pass")
                else:
                    raise SyntaxError(f"template: unknown control line '% {statement}'")
        literal(text[position:])
        if stack:
            raise SyntaxError(f"template: '% {stack[-1]}' is not closed")
        return "\n".join(["def __render():", "    pass", *body, *defs])

    def render(self, **names: Any) -> str:
        parts: list[str] = []
        namespace: dict[str, Any] = dict(names)
        namespace["__w"] = parts.append
        try:
            exec(self._code, namespace)
            namespace["__render"]()
        except NameError as error:
            raise NameError(f"template: {error} (pass it to render())") from None
        return "".join(parts)
