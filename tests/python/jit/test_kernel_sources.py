"""Kernels wherever Python has their code, as in Numba: defined by exec() of
a string, by compile() + exec(), by `python -c`, by a script on stdin, by
closures and by code generators. Each result is compared with the function
run in the interpreter on fresh random input (translate/sources.py)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np
import pytest
from child_process import checked, run_code
from hostile_cases import Case, case_id, check_refused

from cudakit import cuda
from cudakit.cuda.translate.errors import UnsupportedError

from .interpreted import run_threads

N = 300  # not a multiple of the block size
BLOCK = 128
GRID = (N + BLOCK - 1) // BLOCK

SCALE_KERNEL = """
def scale(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * {factor} + {offset}
"""


def fresh(seed_offset: int = 0) -> np.ndarray:
    return np.random.default_rng().standard_normal(N + seed_offset)


def check_against_interpreter(kernel, x: np.ndarray) -> None:
    out = cuda.device_array_like(x)
    kernel[GRID, BLOCK](cuda.to_device(x), out)
    expected = run_threads(kernel, x.size, x, np.zeros_like(x))[1]
    # atol: the GPU fuses x * a + b into one FMA, whose rounding differs by
    # an ulp of the terms where they cancel.
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-12,
                               atol=1e-14 * np.abs(expected).max())


def test_kernel_from_exec_of_a_string():
    namespace = {"cuda": cuda}
    exec(SCALE_KERNEL.format(factor=3.0, offset=-1.5), namespace)
    check_against_interpreter(cuda.jit(namespace["scale"]), fresh())


def test_kernel_from_compile_then_exec_with_its_own_filename():
    code = compile(SCALE_KERNEL.format(factor=0.5, offset=2.0), "<generated scale>", "exec")
    namespace = {"cuda": cuda}
    exec(code, namespace)
    check_against_interpreter(cuda.jit(namespace["scale"]), fresh())


def test_strings_sharing_the_name_string_each_give_their_own_kernel():
    # Every exec'd string is named "<string>": each kernel is its own text.
    kernels = []
    for factor in (2.0, -4.0, 7.0):
        namespace = {"cuda": cuda}
        exec(SCALE_KERNEL.format(factor=factor, offset=factor / 2), namespace)
        kernels.append(cuda.jit(namespace["scale"]))
    for kernel in kernels:
        check_against_interpreter(kernel, fresh())


def make_affine(factor: float, offset: float):
    """A kernel factory: each call gives a kernel closing over its constants."""
    @cuda.jit
    def affine(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * factor + offset
    return affine


def test_closure_capturing_constants():
    factor, offset = np.random.default_rng().uniform(-3, 3, 2)
    check_against_interpreter(make_affine(float(factor), float(offset)), fresh())


def test_factory_generating_kernels_in_a_loop():
    kernels = [make_affine(float(f), float(-f)) for f in np.random.default_rng().uniform(1, 9, 3)]
    for kernel in kernels:  # all made before the first is translated
        check_against_interpreter(kernel, fresh())


def test_closure_made_by_a_factory_defined_in_exec():
    namespace = {"cuda": cuda}
    exec("def make(power):\n"
         "    def raise_to(x, out):\n"
         "        i = cuda.grid(1)\n"
         "        if i < x.size:\n"
         "            out[i] = x[i] ** power\n"
         "    return raise_to\n", namespace)
    for power in (2, 3):
        check_against_interpreter(cuda.jit(namespace["make"](power)), fresh())


def test_factory_generating_kernels_in_a_loop_from_strings():
    operations = {"add": "x[i] + y", "mul": "x[i] * y", "sub": "x[i] - y"}
    generated = {}
    for name, expression in operations.items():
        source = (f"def {name}_kernel(x, out):\n"
                  f"    i = cuda.grid(1)\n"
                  f"    if i < x.size:\n"
                  f"        out[i] = {expression}\n")
        namespace = {"cuda": cuda, "y": 1.25}
        exec(compile(source, f"<generated {name}>", "exec"), namespace)
        generated[name] = cuda.jit(namespace[f"{name}_kernel"])
    for kernel in generated.values():
        check_against_interpreter(kernel, fresh())


def test_device_function_from_exec_called_by_a_file_kernel():
    namespace = {"cuda": cuda}
    exec("def cube_plus(v, c):\n    return v * v * v + c\n", namespace)
    cube_plus = cuda.jit(device=True)(namespace["cube_plus"])

    @cuda.jit
    def apply(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = cube_plus(x[i], 0.75)

    x = fresh()
    out = cuda.device_array_like(x)
    apply[GRID, BLOCK](cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), x ** 3 + 0.75, rtol=1e-12)


CHILD_SCRIPT = textwrap.dedent("""
    import numpy as np
    from cudakit import cuda

    @cuda.jit
    def shifted(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * 2.5 - 1.0

    x = np.random.default_rng().standard_normal(300)
    out = cuda.device_array_like(x)
    shifted[3, 128](cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), x * 2.5 - 1.0, rtol=1e-12)
    print("kernel ok")
""")


def test_kernel_from_python_dash_c():
    assert "kernel ok" in checked(run_code(CHILD_SCRIPT))


def run_python_on_stdin(stdin) -> subprocess.CompletedProcess[str]:
    """`python -` reading its script from `stdin` (a file or a str piped in),
    importing the cudakit imported here."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(Path(cuda.__file__).parents[2]), os.environ.get("PYTHONPATH")])))
    feed = {"input": stdin} if isinstance(stdin, str) else {"stdin": stdin}
    return subprocess.run([sys.executable, "-"], capture_output=True, text=True, timeout=300,
                          env=environment, **feed)


def test_kernel_from_a_script_on_stdin(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(CHILD_SCRIPT)
    with open(script) as stdin:
        assert "kernel ok" in checked(run_python_on_stdin(stdin))


PROMPT_LINES = [
    "import numpy as np", "from cudakit import cuda", "@cuda.jit", "def typed(x, out):",
    "    i = cuda.grid(1)", "    if i < x.size:", "        out[i] = x[i] * 4.0 - 2.0", "",
    "x = np.random.default_rng().standard_normal(300)", "out = cuda.device_array_like(x)",
    "typed[3, 128](cuda.to_device(x), out)",
    "print('kernel', np.allclose(out.copy_to_host(), x * 4.0 - 2.0))", "exit()"]


def test_kernel_typed_at_the_interactive_prompt():
    # A terminal, so that the prompt reads lines through readline.
    pty = pytest.importorskip("pty")
    pytest.importorskip("readline")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(Path(cuda.__file__).parents[2]), os.environ.get("PYTHONPATH")])))
    pid, terminal = pty.fork()
    if pid == 0:
        os.execve(sys.executable, [sys.executable, "-q", "-W", "ignore", "-i"], environment)
    for line in PROMPT_LINES:
        os.write(terminal, (line + "\n").encode())
    output = b""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and b"kernel True" not in output:
        ready, _, _ = select.select([terminal], [], [], 1)
        try:
            chunk = os.read(terminal, 4096) if ready else b""
        except OSError:  # the prompt exited
            break
        if ready and not chunk:
            break
        output += chunk
    if b"kernel True" not in output:
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.close(terminal)
    assert b"kernel True" in output, output.decode(errors="replace")[-2000:]


# --- no source anywhere -------------------------------------------------------------------

def _sourceless(name: str) -> types.FunctionType:
    """A function whose code object names no file and no kept string."""
    def template(x, out):
        i = cuda.grid(1)
        out[i] = x[i]
    code = template.__code__.replace(co_filename="<made by hand>", co_name=name)
    function = types.FunctionType(code, globals(), name)
    function.__qualname__ = name
    return function


def _launch_sourceless_kernel():
    kernel = cuda.jit(_sourceless("handmade_kernel"))
    kernel[1, 4](cuda.to_device(fresh()[:4]), cuda.device_array(4))


def _call_sourceless_device_function():
    helper = cuda.jit(device=True)(_sourceless("handmade_helper"))

    @cuda.jit
    def caller(x, out):
        helper(x, out)

    caller[1, 4](cuda.to_device(fresh()[:4]), cuda.device_array(4))


CASES = [
    Case("kernel with no source", _launch_sourceless_kernel, UnsupportedError,
         r"source of handmade_kernel .*'<made by hand>'.*Define the function in a file"),
    Case("device function with no source", _call_sourceless_device_function,
         UnsupportedError, r"source of handmade_helper .*give its source text to exec"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case):
    check_refused(case)


def test_script_piped_on_stdin_names_the_kernel_and_the_way_out():
    # A pipe keeps no copy of the script: a clear error, not a crash.
    result = run_python_on_stdin(CHILD_SCRIPT)
    assert result.returncode != 0
    assert "source of shifted" in result.stderr
    assert "python - < FILE" in result.stderr
