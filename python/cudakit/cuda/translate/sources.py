"""The source text of functions that have no file: kernels are translated
from their Python source, and Numba (which reads bytecode) accepts kernels
defined by exec()/compile() of a string, by `python -c` and by a script
read from stdin.

An audit hook on the "compile" event keeps each source text compile(),
exec() and eval() are given under a name that is no file on disk (imports
compile files, which linecache already reads). `python -c`'s text comes
from sys.orig_argv, a script fed from a file on stdin from that file, and
what was typed at the interactive prompt from readline's history.
Several exec'd strings share the name "<string>": the one whose compiled
bytecode is the function's own is chosen.
"""

from __future__ import annotations

import __future__
import os
import stat
import sys
import threading
from types import CodeType

_MAX_SOURCES_PER_NAME = 256
_kept: dict[str, list[str]] = {}
_lock = threading.Lock()
_checking = threading.local()
_installed = False
# The `from __future__` flags exec() passes on from its caller: the code object
# keeps them, and the candidate source must be compiled with them to compare.
_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _on_audit(event: str, args: tuple) -> None:
    if event != "compile" or getattr(_checking, "active", False):
        return
    try:
        source, filename = args[0], args[1]
        if isinstance(source, (bytes, bytearray)):
            if b"def" not in source and b"lambda" not in source:
                return
            source = bytes(source).decode("utf-8", "replace")
        if not isinstance(source, str) or ("def" not in source and "lambda" not in source):
            return
        filename = os.fsdecode(filename) if filename is not None else "<string>"
        if os.path.isfile(filename):
            return
        with _lock:
            sources = _kept.setdefault(filename, [])
            if source in sources:
                sources.remove(source)
            sources.append(source)
            del sources[:-_MAX_SOURCES_PER_NAME]
    except Exception:  # an audit hook must never break the compile it watches
        pass


def install() -> None:
    """Starts keeping sources (once per process; audit hooks stay)."""
    global _installed
    if not _installed:
        _installed = True
        sys.addaudithook(_on_audit)


def _command_line_source(filename: str) -> str | None:
    """`python -c TEXT`'s TEXT, for code named "<string>"."""
    argv = getattr(sys, "orig_argv", [])
    if filename == "<string>" and "-c" in argv[:-1]:
        return argv[argv.index("-c") + 1]
    return None


def _stdin_file_source(filename: str) -> str | None:
    """The script `python - < FILE` ran: FILE is still there to read."""
    if filename != "<stdin>":
        return None
    try:
        if not stat.S_ISREG(os.fstat(0).st_mode):
            return None
        return os.pread(0, os.fstat(0).st_size, 0).decode("utf-8", "replace")
    except OSError:
        return None


def _prompt_statements(filename: str) -> list[str]:
    """The statements typed at the interactive prompt, newest first, from
    readline's history (each is compiled on its own as "<stdin>")."""
    readline = sys.modules.get("readline")
    if filename != "<stdin>" or readline is None or not hasattr(sys, "ps1"):
        return []
    try:
        history = [readline.get_history_item(i)
                   for i in range(1, readline.get_current_history_length() + 1)]
    except Exception:  # an unusual readline (libedit builds differ)
        return []
    lines = [line for line in history if line is not None]
    statements = []
    for start, line in enumerate(lines):
        if not line.strip() or line[0].isspace() or ("def" not in line and "@" not in line
                                                    and "lambda" not in line):
            continue
        end = start + 1
        while end < len(lines) and (lines[end][:1].isspace()
                                    or lines[end - 1].lstrip().startswith("@")):
            end += 1
        statements.append("\n".join(lines[start:end]) + "\n")
    return statements[::-1]


def _code_objects(code: CodeType):
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from _code_objects(constant)


def _same_function(candidate: str, code: CodeType) -> tuple[bool, bool]:
    """(a function of the same name starts on the same line, its bytecode is
    the same) when `candidate` is compiled as the function's file was."""
    _checking.active = True
    try:
        module = compile(candidate, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS,
                         dont_inherit=True)
    except (SyntaxError, ValueError):
        return False, False
    finally:
        _checking.active = False
    same_place = False
    for inner in _code_objects(module):
        if inner.co_name == code.co_name and inner.co_firstlineno == code.co_firstlineno:
            same_place = True
            if inner == code:  # bytecode, constants, names and line table
                return True, True
    return same_place, False


def kept_source(code: CodeType) -> str | None:
    """The text of the file, string or command line `code` was compiled from,
    or None when none was kept."""
    filename = code.co_filename
    with _lock:
        candidates = list(reversed(_kept.get(filename, [])))
    for extra in (_command_line_source(filename), _stdin_file_source(filename)):
        if extra is not None:
            candidates.append(extra)
    candidates += _prompt_statements(filename)
    placed = []
    for candidate in candidates:
        same_place, same_code = _same_function(candidate, code)
        if same_code:
            return candidate
        if same_place:
            placed.append(candidate)
    # Compiled with other settings (optimize=...): a function at the same
    # place, when only one text has one there.
    return placed[0] if len(placed) == 1 else None


def why_no_source(code: CodeType) -> str:
    """A sentence on why `code` has no source here, for the error message."""
    filename = code.co_filename
    if filename == "<stdin>" and hasattr(sys, "ps1"):
        return ("it was typed at the interactive prompt and readline's history does not "
                "hold it")
    if filename == "<stdin>":
        return ("it was read from stdin through a pipe, which keeps no copy (a script on "
                "stdin from a file, `python - < FILE`, works)")
    if filename.startswith("<") and not _installed:
        return "it was compiled from a string before cudakit.cuda was imported"
    if filename.startswith("<"):
        return (f"no string compiled under the name {filename!r} since cudakit.cuda was "
                "imported holds it (was it compiled before that, or its code object built "
                "by hand?)")
    return f"the file {filename!r} cannot be read"
