#!/usr/bin/env python3
"""Turns every ```cpp (or ```c++, ```cxx) block of the given Markdown files
into a test.

For each Markdown file one C++ translation unit is written, holding each of
its blocks as a function, and a CMake file lists the sources and one test
per block, named "<file>:<line>" after the line of the block's opening fence.
`#line` directives map the block's code back to the Markdown file, so a
compile error names the document and line.

A block is one of:
  - a whole program: it defines `int main()`, which becomes the block's
    function;
  - a fragment, marked by an HTML comment before the fence:
        <!-- fragment: wrapper=NAME -->
    compiled inside tests/docs/wrappers/NAME.inc, whose `// @block` line
    the fragment replaces (the wrapper declares what the fragment uses and
    may check and clean up after it). The `main` wrapper adds nothing.
The #include lines that open a block or a wrapper move to the top of the
translation unit, and `ck` names the cudakit namespace.
A block that needs a GPU says so, and why, in another comment before it:
        <!-- needs-gpu: REASON -->
It is compiled always, and run only where the default backend is a GPU
(labelled `gpu`); elsewhere the test is skipped with the reason.
Only the standard library is used, so no Python package is needed.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

FRAGMENT_MARKER = re.compile(r"<!--\s*fragment:\s*wrapper=([A-Za-z0-9_]+)\s*-->")
GPU_MARKER = re.compile(r"<!--\s*needs-gpu:\s*(.*?)\s*-->")
MAIN_DEFINITION = re.compile(r"^(\s*)int\s+main\s*\(\s*\)", re.MULTILINE)
INCLUDE_LINE = re.compile(r"^\s*#\s*include\s*[<\"].*[>\"]\s*$")
BLOCK_PLACEHOLDER = "// @block"
# Fence languages that mean C++ (GitHub highlights all three as C++).
CPP_LANGUAGES = ("cpp", "c++", "cxx")


@dataclass
class Block:
    document: str  # path relative to the source root, with forward slashes
    line: int  # line of the opening fence, 1-based
    code_lines: list[str]
    wrapper: str | None = None
    gpu_reason: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def test_name(self) -> str:
        return f"{self.document}:{self.line}"

    @property
    def symbol(self) -> str:
        return f"block_line_{self.line}"


def find_blocks(document: str, text: str) -> list[Block]:
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if not stripped.startswith("```"):
            index += 1
            continue
        fence_line = index
        language = stripped[3:].strip()
        end = fence_line + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if language in CPP_LANGUAGES:
            block = Block(document, fence_line + 1, lines[fence_line + 1 : end])
            read_markers(block, lines, fence_line)
            blocks.append(block)
        index = end + 1
    return blocks


def read_markers(block: Block, lines: list[str], fence_line: int) -> None:
    """Reads the HTML comments directly above the fence (blank lines allowed)."""
    above = fence_line - 1
    while above >= 0 and (lines[above].strip() == "" or lines[above].strip().startswith("<!--")):
        comment = lines[above].strip()
        fragment = FRAGMENT_MARKER.fullmatch(comment)
        gpu = GPU_MARKER.fullmatch(comment)
        if fragment:
            block.wrapper = fragment.group(1)
        elif gpu:
            block.gpu_reason = gpu.group(1) or "needs a GPU"
        elif comment:
            block.problems.append(f"unknown marker {comment!r}")
        above -= 1


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wrapper_text(wrapper_dir: Path, name: str) -> str | None:
    path = wrapper_dir / f"{name}.inc"
    return path.read_text() if path.is_file() else None


def hoist_includes(lines: list[str], hoisted: list[str]) -> None:
    """Moves the #include lines that open `lines` (before any other code) to
    `hoisted`, leaving blank lines so that line numbers stay right. Later
    ones are left alone: they may be inside a kernel's source string."""
    for position, line in enumerate(lines):
        text = line.strip()
        if INCLUDE_LINE.match(line):
            hoisted.append(text)
            lines[position] = ""
        elif text and not text.startswith("//") and text != "namespace ck = cudakit;":
            return


def render_block(block: Block, wrapper_dir: Path, source_root: Path, hoisted: list[str]) -> str:
    out: list[str] = [f"namespace {block.symbol} {{", "namespace ck = cudakit;"]
    location = f'#line {block.line + 1} "{block.document}"'
    code = list(block.code_lines)
    hoist_includes(code, hoisted)
    if block.wrapper is None:
        joined = "\n".join(code)
        if not MAIN_DEFINITION.search(joined):
            block.problems.append(
                "the block defines no `int main()` and has no "
                "`<!-- fragment: wrapper=NAME -->` marker before it")
        if block.problems:
            out.append("int block_main() { return -1; }")
        else:
            # main may end without a return; `auto` makes that a void function.
            code = MAIN_DEFINITION.sub(r"\1auto block_main()", "\n".join(code)).split("\n")
            out += [location, *code, "#line 1 \"<generated>\""]
    else:
        template = wrapper_text(wrapper_dir, block.wrapper)
        if template is None or BLOCK_PLACEHOLDER not in template:
            block.problems.append(
                f"wrapper {block.wrapper!r} is not tests/docs/wrappers/{block.wrapper}.inc "
                f"with a `{BLOCK_PLACEHOLDER}` line")
            out.append("int block_main() { return -1; }")
        else:
            wrapper_file = wrapper_dir / f"{block.wrapper}.inc"
            wrapper_path = wrapper_file.as_posix()
            if wrapper_file.is_relative_to(source_root):
                wrapper_path = wrapper_file.relative_to(source_root).as_posix()
            before, after = template.split(BLOCK_PLACEHOLDER, 1)
            before_lines = before.split("\n")
            hoist_includes(before_lines, hoisted)
            before = "\n".join(before_lines)
            after_line = before.count("\n") + 1
            out += ["auto block_main() {", f'#line 1 "{wrapper_path}"', before.rstrip("\n"),
                    location, *code, f'#line {after_line} "{wrapper_path}"', after.rstrip("\n"),
                    "}", "#line 1 \"<generated>\""]
    out.append("}  // namespace " + block.symbol)
    gpu = c_string(block.gpu_reason) if block.gpu_reason else "nullptr"
    problem = c_string("; ".join(block.problems)) if block.problems else "nullptr"
    runner = f"cudakit_doc::as_runner<&{block.symbol}::block_main>()"
    out.append(f"static const bool {block.symbol}_registered = cudakit_doc::register_block("
               f"{c_string(block.test_name)}, {runner}, {gpu}, {problem});")
    return "\n".join(out)


def render_unit(document: str, blocks: list[Block], wrapper_dir: Path, source_root: Path) -> str:
    hoisted: list[str] = []
    bodies = [render_block(block, wrapper_dir, source_root, hoisted) for block in blocks]
    includes = ["#include <cudakit/cudakit.hpp>"]
    includes += sorted(set(hoisted) - set(includes))
    header = [f"// Generated from {document} by tests/docs/extract_doc_blocks.py: do not edit.",
              '#include "doc_block_registry.hpp"', *includes, ""]
    # Internal linkage: every document has its block_line_N namespaces.
    return "\n".join(header + ["namespace {"] + bodies + ["}  // namespace"]) + "\n"


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def cmake_quote(text: str) -> str:
    for special in ("\\", '"', "$", ";"):
        text = text.replace(special, "\\" + special)
    return '"' + text + '"'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-root", type=Path, required=True)
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("documents", nargs="+", type=Path)
    args = parser.parse_args()
    source_root = args.source_root.resolve()
    wrapper_dir = Path(__file__).resolve().parent / "wrappers"
    args.out_dir.mkdir(parents=True, exist_ok=True)

    sources: list[str] = []
    tests: list[tuple[str, str | None]] = []
    for path in sorted(p.resolve() for p in args.documents):
        document = path.relative_to(source_root).as_posix()
        blocks = find_blocks(document, path.read_text())
        if not blocks:
            continue
        slug = re.sub(r"[^A-Za-z0-9]+", "_", document)
        unit = args.out_dir / f"doc_{slug}.cpp"
        write_if_changed(unit, render_unit(document, blocks, wrapper_dir, source_root))
        sources.append(unit.as_posix())
        tests += [(block.test_name, block.gpu_reason) for block in blocks]

    lines = ["# Generated by tests/docs/extract_doc_blocks.py: do not edit.",
             "set(CUDAKIT_DOC_SOURCES", *[f"  {cmake_quote(s)}" for s in sources], ")",
             "set(CUDAKIT_DOC_TESTS", *[f"  {cmake_quote(name)}" for name, _ in tests], ")",
             "set(CUDAKIT_DOC_GPU_TESTS",
             *[f"  {cmake_quote(name)}" for name, reason in tests if reason], ")"]
    write_if_changed(args.out_dir / "doc_blocks.cmake", "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
