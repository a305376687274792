"""Every ```python block of README.md and docs/guide/*.md runs as written.

Each block is a complete program, written to a file and run with
`python FILE` in a fresh process (on the CPU backend here), exactly as a
reader who copies it would run it: no code is added around it. Two
conventions, visible to the reader as the block's first comment lines:

    # continues the block above
        the block is run after the blocks before it on the same page (they
        are written, in order, into one file), as a reader pastes them one
        after the other into one session;
    # needs a GPU: REASON
        the block (and what continues it) runs only where cudakit's default
        backend is a GPU (the `gpu` marker); elsewhere it is skipped with
        REASON;
    # fails on purpose: ERROR
        the block shows a bug that the CPU backend's checks catch (the
        debugging guide's): it runs on the CPU backend and must exit with an
        error whose text contains ERROR (a crash or a clean exit fails the
        test). On a GPU such a bug may pass unnoticed, which is the point.

A block whose imports are not installed (torch, cupy) is skipped with the
module's name. The test ids are "<file>:<line of the opening fence>".
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs" / "guide").glob("*.md"))]
CONTINUES = re.compile(r"^#\s*continues the block above\b", re.IGNORECASE)
NEEDS_GPU = re.compile(r"^#\s*needs a GPU:\s*(.+)$", re.IGNORECASE)
FAILS = re.compile(r"^#\s*fails on purpose:\s*(.+)$", re.IGNORECASE)
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")


@dataclass
class Block:
    document: str  # relative to the repository, with forward slashes
    line: int  # of the opening fence, 1-based
    code: str

    def header(self) -> list[str]:
        """The comment lines that open the block."""
        lines = []
        for text in self.code.splitlines():
            if not text.startswith("#"):
                break
            lines.append(text)
        return lines

    @property
    def continues(self) -> bool:
        return any(CONTINUES.match(text) for text in self.header())

    @property
    def gpu_reason(self) -> str | None:
        for text in self.header():
            if found := NEEDS_GPU.match(text):
                return found.group(1).strip()
        return None

    @property
    def expected_error(self) -> str | None:
        for text in self.header():
            if found := FAILS.match(text):
                return found.group(1).strip()
        return None


@dataclass
class Program:
    """Blocks run in one process: a block and those that continue it."""
    blocks: list[Block] = field(default_factory=list)

    @property
    def name(self) -> str:
        first = self.blocks[0]
        return f"{first.document}:{first.line}"

    @property
    def gpu_reason(self) -> str | None:
        return next((b.gpu_reason for b in self.blocks if b.gpu_reason), None)

    def source(self) -> tuple[str, list[tuple[int, Block]]]:
        """The file's text and, for each block, the file line it starts on."""
        parts, starts, line = [], [], 1
        for block in self.blocks:
            starts.append((line, block))
            parts.append(block.code)
            line += block.code.count("\n")
        return "".join(parts), starts


def python_blocks(path: Path) -> list[Block]:
    """The ```python blocks of one Markdown file, their indentation removed."""
    document = path.relative_to(REPOSITORY).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, language = len(opening.group(1)), opening.group(2)
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if language == "python":
            code = "".join(text[indent:] + "\n" for text in lines[index + 1:end])
            blocks.append(Block(document, index + 1, code))
        index = end + 1
    return blocks


def programs() -> list[Program]:
    found: list[Program] = []
    for path in DOCUMENTS:
        page: list[Program] = []
        for block in python_blocks(path):
            if block.continues:
                assert page, f"{block.document}:{block.line} continues a block, but none is above"
                page[-1].blocks.append(block)
            else:
                page.append(Program([block]))
        found += page
    return found


PROGRAMS = programs()

# Blocks of pages that others are rewriting now, to be made complete there;
# strict: the test fails once such a block runs, so the entry is removed.
PENDING: dict[str, str] = {}


def missing_modules(program: Program) -> list[str]:
    names = set()
    for block in program.blocks:
        for node in ast.walk(ast.parse(block.code)):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return sorted(n for n in names if importlib.util.find_spec(n) is None)


def test_the_pages_have_python_blocks() -> None:
    # The extraction itself: a fence it missed would silently test nothing.
    blocks = [b for p in PROGRAMS for b in p.blocks]
    fences = sum(len(re.findall(r"^\s*```python\s*$", path.read_text(encoding="utf-8"),
                                re.MULTILINE)) for path in DOCUMENTS)
    assert len(blocks) == fences and len(blocks) >= 15


def marks(program: Program) -> list[pytest.MarkDecorator]:
    if program.name in PENDING:
        return [pytest.mark.xfail(strict=True, reason=PENDING[program.name])]
    if not program.gpu_reason:
        return []
    import cudakit.driver as drv

    # The block's own reason (a skipif is reported before conftest's skip).
    return [pytest.mark.gpu, pytest.mark.skipif(drv.backend() != "cuda",
                                                reason=f"needs a GPU: {program.gpu_reason}")]


@pytest.mark.parametrize("program", [pytest.param(p, id=p.name, marks=marks(p))
                                     for p in PROGRAMS])
def test_block_runs_as_written(program: Program, tmp_path: Path) -> None:
    import cudakit.driver as drv

    if missing := missing_modules(program):
        pytest.skip(f"needs {', '.join(missing)}, not installed here")
    source, starts = program.source()
    script = tmp_path / "program.py"
    script.write_text(source, encoding="utf-8")
    environment = dict(os.environ)
    expected = next((b.expected_error for b in program.blocks if b.expected_error), None)
    if expected is not None:
        environment["CUDAKIT_BACKEND"] = "cpu"
    package_root = str(Path(drv.__file__).parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [package_root, environment.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env=environment)
    where = ", ".join(f"line {line} of program.py is {b.document}:{b.line + 1}"
                      for line, b in starts)
    if expected is not None:
        assert result.returncode == 1 and expected in result.stderr, (
            f"{program.name} should fail with {expected!r} ({where}); exit "
            f"{result.returncode}\nstderr:\n{result.stderr}")
        return
    assert result.returncode == 0, (
        f"{program.name} failed ({where}); exit {result.returncode}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
