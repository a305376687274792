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
  - a fragment of a complete example, which says so, for the reader too,
    in its first line:
        // fragment of examples/docs/NAME.cpp
    The example holds the fragment's lines verbatim (indentation aside;
    its opening #include lines among the example's), with what the fragment
    needs before it and checks of its result after it, and runs as the
    ctest test example.docs_NAME. The block's own test checks that the
    example still holds the fragment as the document shows it.
The #include lines that open a block move to the top of the translation
unit, and `ck` names the cudakit namespace.
A block that needs a GPU says so, and why, in a comment line at its top:
        // needs a GPU: REASON
(or, unseen by the reader, `<!-- needs-gpu: REASON -->` before the fence).
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

FRAGMENT_LINE = re.compile(r"^\s*//\s*fragment of (examples/[A-Za-z0-9_./-]+\.cpp)\b")
GPU_LINE = re.compile(r"^\s*//\s*needs a GPU:\s*(.*?)\s*$")
GPU_MARKER = re.compile(r"<!--\s*needs-gpu:\s*(.*?)\s*-->")
MAIN_DEFINITION = re.compile(r"^(\s*)int\s+main\s*\(\s*\)", re.MULTILINE)
INCLUDE_LINE = re.compile(r"^\s*#\s*include\s*[<\"].*[>\"]\s*$")
# Fence languages that mean C++ (GitHub highlights all three as C++).
CPP_LANGUAGES = ("cpp", "c++", "cxx")


@dataclass
class Block:
    document: str  # path relative to the source root, with forward slashes
    line: int  # line of the opening fence, 1-based
    code_lines: list[str]
    example: str | None = None  # the complete example a fragment is part of
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
            read_comment_lines(block)
            blocks.append(block)
        index = end + 1
    return blocks


def read_markers(block: Block, lines: list[str], fence_line: int) -> None:
    """Reads the HTML comments directly above the fence (blank lines allowed)."""
    above = fence_line - 1
    while above >= 0 and (lines[above].strip() == "" or lines[above].strip().startswith("<!--")):
        comment = lines[above].strip()
        gpu = GPU_MARKER.fullmatch(comment)
        if gpu:
            block.gpu_reason = gpu.group(1) or "needs a GPU"
        elif comment:
            block.problems.append(f"unknown marker {comment!r}")
        above -= 1


def read_comment_lines(block: Block) -> None:
    """Reads the `// fragment of ...` and `// needs a GPU: ...` lines that
    open the block (the reader sees them)."""
    for line in block.code_lines:
        if not line.strip():
            continue
        if not line.strip().startswith("//"):
            return
        if fragment := FRAGMENT_LINE.match(line):
            block.example = fragment.group(1)
        elif gpu := GPU_LINE.match(line):
            block.gpu_reason = gpu.group(1) or "needs a GPU"


def significant_lines(lines: list[str]) -> list[str]:
    """Lines as compared between a fragment and its example: stripped,
    blank ones dropped."""
    return [line.strip() for line in lines if line.strip()]


def missing_from_example(block: Block, source_root: Path) -> str | None:
    """Why the block's example does not hold it as shown, or None when it does."""
    path = source_root / str(block.example)
    if not path.is_file():
        return f"the block says it is a fragment of {block.example}, which does not exist"
    example_lines = path.read_text().splitlines()
    code = [line for line in block.code_lines
            if not FRAGMENT_LINE.match(line) and not GPU_LINE.match(line)]
    includes: list[str] = []
    hoist_includes(code, includes)
    for include in includes:
        if include not in significant_lines(example_lines):
            return f"{block.example} lacks the fragment's `{include}`"
    wanted = significant_lines(code)
    have = significant_lines(example_lines)
    if not wanted:
        return "the fragment has no code"
    for start in range(len(have) - len(wanted) + 1):
        if have[start:start + len(wanted)] == wanted:
            return None
    # The longest run of the fragment's first lines the example has, to say
    # where they part.
    best = 0
    for start in range(len(have)):
        run = 0
        while run < len(wanted) and start + run < len(have) and have[start + run] == wanted[run]:
            run += 1
        best = max(best, run)
    return (f"{block.example} does not hold the fragment's lines as the document shows "
            f"them: from the fragment's line `{wanted[best]}` on they differ (edit both)")


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


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


def render_block(block: Block, source_root: Path, hoisted: list[str]) -> str:
    out: list[str] = [f"namespace {block.symbol} {{", "namespace ck = cudakit;"]
    location = f'#line {block.line + 1} "{block.document}"'
    code = list(block.code_lines)
    if block.example is not None:
        # Compiled and run as part of its example (which runs its GPU part
        # where there is a GPU); here, everywhere: the example holds it.
        block.gpu_reason = None
        if problem := missing_from_example(block, source_root):
            block.problems.append(problem)
        out.append("int block_main() { return 0; }")
    else:
        hoist_includes(code, hoisted)
        joined = "\n".join(code)
        if not MAIN_DEFINITION.search(joined):
            block.problems.append(
                "the block defines no `int main()` and does not say, in its first line, "
                "`// fragment of examples/docs/NAME.cpp`")
        if block.problems:
            out.append("int block_main() { return -1; }")
        else:
            # main may end without a return; `auto` makes that a void function.
            code = MAIN_DEFINITION.sub(r"\1auto block_main()", "\n".join(code)).split("\n")
            out += [location, *code, "#line 1 \"<generated>\""]
    out.append("}  // namespace " + block.symbol)
    gpu = c_string(block.gpu_reason) if block.gpu_reason else "nullptr"
    problem = c_string("; ".join(block.problems)) if block.problems else "nullptr"
    runner = f"cudakit_doc::as_runner<&{block.symbol}::block_main>()"
    out.append(f"static const bool {block.symbol}_registered = cudakit_doc::register_block("
               f"{c_string(block.test_name)}, {runner}, {gpu}, {problem});")
    return "\n".join(out)


def render_unit(document: str, blocks: list[Block], source_root: Path) -> str:
    hoisted: list[str] = []
    bodies = [render_block(block, source_root, hoisted) for block in blocks]
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
        write_if_changed(unit, render_unit(document, blocks, source_root))
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
