"""``python -m cudakit ARGS`` and the ``cudakit`` console script: the cudakit
command-line program (the C++ CLI: doctor, info, compile, demo, bench, run,
check, profile), shipped in the package as ``cudakit/bin/cudakit``.

The program replaces this process, so it gets the same arguments, standard
streams, signals and exit status as when started directly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def cli_path() -> Path:
    """Where the package keeps the cudakit program."""
    return Path(__file__).resolve().parent / "bin" / "cudakit"


def main(argv: list[str] | None = None) -> int:
    """Runs the cudakit program with `argv` (default: this process's
    arguments); returns only when it cannot be started."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    program = cli_path()
    if not os.access(program, os.X_OK):
        print(f"cudakit: the cudakit program is not in this installation ({program} "
              f"{'is not executable' if program.exists() else 'is missing'}): install the "
              "package with pip (pip install cudakit, or pip install . in a checkout), or "
              "build it in a checkout with `cmake --build build --target cudakit_cli` and run "
              "build/bin/cudakit", file=sys.stderr)
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    # argv[0] "cudakit": usage and error messages name the command, not its file.
    os.execv(program, ["cudakit", *arguments])
    return 127  # not reached: execv returns only by raising


if __name__ == "__main__":
    sys.exit(main())
