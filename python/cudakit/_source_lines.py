"""Where a SourceModule's CUDA C came from, for the debugging tools' reports.

Under ``cudakit run --sanitize`` (CUDAKIT_CPU_DEBUG=1) and ``cudakit check``
(CUDAKIT_LINEINFO=1) the sanitizers name a kernel's file and line. For a
SourceModule that would be ``kernel.cu:5``: a file the user never wrote. So
in those modes the source is compiled behind a ``#line`` directive that
points at the Python file creating the SourceModule:

* the source found in that file (a string literal, however indented):
  ``#line L "/abs/script.py"`` with L the file's line of the source's first
  line, so reports name the line the user sees in the editor (``script.py:11``);
* otherwise (a source built at run time or read from elsewhere): the name
  ``<SourceModule at script.py line 7>`` and the line within the source.

Outside those modes nothing changes: compile errors keep numbering the
source itself, and the compile cache does not depend on where a file is.
"""

from __future__ import annotations

import linecache
import os
import sys
from types import FrameType

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _flag_on(name: str) -> bool:
    value = os.environ.get(name, "")
    return value not in ("", "0")


def lines_wanted() -> bool:
    """Whether a debugging tool runs the program (reports will name lines)."""
    return _flag_on("CUDAKIT_CPU_DEBUG") or _flag_on("CUDAKIT_LINEINFO")


def _line_directive(path: str, line: int) -> str:
    escaped = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{escaped}"\n'


def _user_frame(depth: int) -> FrameType | None:
    """The frame `depth` levels above the caller, when it is the user's code
    (a SourceModule cudakit itself creates keeps its default name)."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return None
    filename = os.path.abspath(frame.f_code.co_filename)
    if filename.startswith(_PACKAGE_DIR + os.sep):
        return None
    return frame


def _first_line_in_file(source: str, file_lines: list[str], near: int) -> int:
    """The 1-based file line holding the source's first line, 0 if the
    source is not in the file. Lines compare without their indentation (a
    dedented literal still matches); the first line may follow the opening
    quotes and the last one precede the closing quotes. Of several matches
    the one nearest the call wins."""
    wanted = [line.strip() for line in source.split("\n")]
    while len(wanted) > 1 and wanted[-1] == "":
        wanted.pop()  # the closing quotes' line
    if not any(wanted):
        return 0
    stripped = [line.strip() for line in file_lines]
    best = 0
    for start in range(len(stripped) - len(wanted) + 1):
        last = len(wanted) - 1
        for offset, text in enumerate(wanted):
            have = stripped[start + offset]
            if offset == 0 and len(wanted) > 1:
                ok = have.endswith(text)
            elif offset == last and len(wanted) > 1:
                ok = have.startswith(text)
            else:
                ok = have == text if len(wanted) > 1 else text in have
            if not ok:
                break
        else:
            line = start + 1
            if best == 0 or abs(line - near) < abs(best - near):
                best = line
    return best


def source_line_directive(source: str, depth: int) -> str:
    """The ``#line`` directive to put before `source`, or "" when no
    debugging tool is running or the caller is cudakit itself. `depth`: how
    many frames above the caller the user's SourceModule(...) call is."""
    if not lines_wanted():
        return ""
    frame = _user_frame(depth + 1)
    if frame is None:
        return ""
    path = os.path.abspath(frame.f_code.co_filename)
    call_line = frame.f_lineno or 1
    file_lines = linecache.getlines(path) if os.path.isfile(path) else []
    first = _first_line_in_file(source, file_lines, call_line)
    if first > 0:
        return _line_directive(path, first)
    return _line_directive(f"<SourceModule at {os.path.basename(path)} line {call_line}>", 1)
