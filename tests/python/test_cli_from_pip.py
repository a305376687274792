"""The cudakit command as pip installs it: the CLI shipped in the package
(cudakit/bin/cudakit), started by the `cudakit` console script and by
`python -m cudakit` with the same arguments and exit status; and
`python -m cudakit.doctor` gives `cudakit doctor`'s verdict and exit status.

Needs the installed package (make python-install, pip install .): from a
source tree without the CLI the tests that run it are skipped with the reason.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import cudakit
import cudakit.__main__ as cudakit_main
from child_process import run_python

CLI = cudakit_main.cli_path()
needs_cli = pytest.mark.skipif(
    not os.access(CLI, os.X_OK),
    reason=f"the package has no CLI at {CLI}: install it (make python-install, or pip install .)")


def run_cli(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})


@needs_cli
def test_version_is_the_package_version_every_way_it_is_started() -> None:
    expected = f"cudakit {cudakit.__version__}"
    module = run_python(["-m", "cudakit", "--version"])
    assert (module.returncode, module.stdout.strip()) == (0, expected), module.stderr
    direct = run_cli(["--version"])
    assert (direct.returncode, direct.stdout.strip()) == (0, expected), direct.stderr
    # The console script pip writes beside this interpreter, where it did.
    script = Path(sys.executable).with_name("cudakit")
    if script.exists():
        installed = subprocess.run([str(script), "--version"], capture_output=True, text=True,
                                   timeout=60)
        assert (installed.returncode, installed.stdout.strip()) == (0, expected)


@dataclass
class DoctorCase:
    name: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


# Both doctors under the same settings: the same exit status and verdict
# (on a GPU machine: 0 and "GPU path ready"; without one: 1, or 0 with
# --cpu-ok when the CPU backend runs).
DOCTOR_CASES = [
    DoctorCase("as is"),
    DoctorCase("--cpu-ok", ["--cpu-ok"]),
    DoctorCase("no host compiler", env={"CUDAKIT_CXX": "/nonexistent/c++"}),
    DoctorCase("no host compiler, --cpu-ok", ["--cpu-ok"], {"CUDAKIT_CXX": "/nonexistent/c++"}),
    DoctorCase("no driver", env={"CUDAKIT_LIBCUDA": "/nonexistent/libcuda.so.1"}),
]


def verdict(output: str) -> str:
    found = re.search(r"^GPU path (ready|unusable)", output, re.MULTILINE)
    assert found, f"no verdict line in:\n{output}"
    return found.group(0)


@needs_cli
@pytest.mark.parametrize("case", DOCTOR_CASES, ids=lambda c: c.name)
def test_python_doctor_and_cli_doctor_agree(case: DoctorCase, tmp_path: Path) -> None:
    env = {"CUDAKIT_CACHE_DIR": str(tmp_path / "cache"), **case.env}
    cli = run_python(["-m", "cudakit", "doctor", *case.args], **env)
    python = run_python(["-m", "cudakit.doctor", *case.args], **env)
    both = f"--- cudakit doctor:\n{cli.stdout}{cli.stderr}\n--- python:\n{python.stdout}{python.stderr}"
    assert cli.returncode == python.returncode, both
    assert verdict(cli.stdout) == verdict(python.stdout), both
    if "CUDAKIT_CXX" in case.env:
        message = "no C++ compiler for the CPU backend: '/nonexistent/c++' (CUDAKIT_CXX)"
        assert message in cli.stdout and message in python.stdout, both
    if cli.returncode != 0:
        assert "fix:" in cli.stdout, both  # says what to do


@dataclass
class CliCase:
    name: str
    args: list[str]
    status: int
    message: str


# Bad command lines through `python -m cudakit`: the CLI's own status and
# message come back unchanged.
CLI_CASES = [
    CliCase("unknown command", ["frobnicate"], 2, r"unknown command 'frobnicate'; the commands "
                                                  r"are doctor, info"),
    CliCase("unknown doctor flag", ["doctor", "--no-such-flag"], 109, r"--no-such-flag"),
    CliCase("missing source file", ["compile", "/nonexistent/k.cu"], 1,
            r"reading /nonexistent/k\.cu: cannot open the file"),
    CliCase("run without a program", ["run"], 106, r"COMMAND is required"),
]


@needs_cli
@pytest.mark.parametrize("case", CLI_CASES, ids=lambda c: c.name)
def test_bad_command_lines_get_the_clis_status_and_message(case: CliCase) -> None:
    module = run_python(["-m", "cudakit", *case.args])
    direct = run_cli(case.args)
    assert module.returncode == direct.returncode == case.status, (module, direct)
    assert re.search(case.message, module.stdout + module.stderr), module
    assert (module.stdout, module.stderr) == (direct.stdout, direct.stderr)


def test_a_package_without_its_cli_says_how_to_get_it(monkeypatch, capsys, tmp_path) -> None:
    missing = tmp_path / "bin" / "cudakit"
    monkeypatch.setattr(cudakit_main, "cli_path", lambda: missing)
    assert cudakit_main.main(["--version"]) == 127
    error = capsys.readouterr().err
    assert f"({missing} is missing)" in error and "pip install" in error
    assert "cmake --build build --target cudakit_cli" in error


def test_the_console_script_is_declared_for_pip() -> None:
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("not run from a checkout")
    text = pyproject.read_text()
    assert re.search(r'^\[project\.scripts\]\ncudakit = "cudakit\.__main__:main"$', text,
                     re.MULTILINE)
