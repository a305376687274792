"""The tutorial's shared-memory matmul, translated: its generated C++ and the
PTX NVRTC makes of it for sm_90 (no GPU needed) stay as lean as the same
kernel written in CUDA C. No timing: instruction counts in the k loop.

The Python kernel's `tmp = 0.` is float64 in Numba, so each step is a
float32 product converted to float64 and added in float64. That arithmetic
is kept (results match Numba); its reference is the CUDA C kernel with a
double sum. With `tmp = np.float32(0.)` the reference is the CUDA C kernel
as the tutorial writes it (one fused multiply-add per step).
"""

from __future__ import annotations

import collections
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

from cudakit import _core
from cudakit.cuda.translate import types as t
from cudakit.cuda.translate.typing import translate_kernel

ROOT = Path(__file__).resolve().parents[3]
TUTORIAL = Path(__file__).resolve().parent / "tutorial" / "matmul_shared.py"
FLOAT2D = t.ArrayT(t.float32, 2, "C")

# 64-bit integer work that the k loop of a tiled matmul never needs: index
# widening and 64-bit multiplies (row * stride belongs before the loop).
WIDE_INTEGER = re.compile(r"^(cvt\.[su]64\.[su](8|16|32)|cvt\.[su](8|16|32)\.[su]64|"
                          r"mul\.wide|mul\.lo\.[su]64|mad\.(lo|wide)\.[su]64|mad\.wide)")


def _nvrtc_or_skip() -> None:
    try:
        _core.jit_compile_for_gpu('extern "C" __global__ void probe() {}', "compute_90")
    except Exception as error:  # noqa: BLE001
        pytest.skip(f"NVRTC is not available: {error}")


def _tutorial_module(tmp_path: Path, float32_sum: bool) -> Any:
    text = TUTORIAL.read_text(encoding="utf-8")
    if float32_sum:
        assert "tmp = 0.0" in text
        text = text.replace("tmp = 0.0", "tmp = np.float32(0.0)")
    path = tmp_path / ("matmul_f32.py" if float32_sum else "matmul.py")
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _generated_source(tmp_path: Path, float32_sum: bool = False) -> str:
    kernel = _tutorial_module(tmp_path, float32_sum).matmul_shared_mem
    translation = translate_kernel(kernel.parsed, (FLOAT2D,) * 3, kernel.options)
    return translation.source


def _cuda_c_source(accumulator: str) -> str:
    text = (ROOT / "tools" / "workloads" / "tiled_matmul.hpp").read_text(encoding="utf-8")
    body = text.split('R"(', 1)[1].split(')";', 1)[0]
    if accumulator == "double":
        assert "float sum = 0.0f;" in body
        body = body.replace("float sum = 0.0f;", "double sum = 0.0;")
    return 'extern "C" {\n' + body + "\n}\n"


def _k_loop(ptx: str) -> list[str]:
    """The instructions of the longest loop (a backward branch): the k loop,
    as NVRTC unrolls the 16-step inner loop completely."""
    lines = [line.strip() for line in ptx.splitlines()]
    labels = {line[:-1]: i for i, line in enumerate(lines) if re.fullmatch(r"\$L__\w+:", line)}
    loops = []
    for i, line in enumerate(lines):
        match = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", line)
        if match and labels.get(match.group(1), len(lines)) < i:
            loops.append((labels[match.group(1)], i))
    assert loops, "no loop in the PTX"
    start, end = max(loops, key=lambda span: span[1] - span[0])
    return [line for line in lines[start:end + 1]
            if line and not line.startswith(("$", "//", "{", "}"))]


def _unpredicated(instruction: str) -> str:
    """`@%p1 bra $L__BB0_2;` -> `bra $L__BB0_2;`"""
    return instruction.split(None, 1)[1] if instruction.startswith("@") else instruction


def _opcodes(instructions: list[str]) -> collections.Counter[str]:
    return collections.Counter(_unpredicated(i).split()[0].rstrip(";") for i in instructions)


def test_generated_source_indexes_shared_arrays_without_strides(tmp_path: Path) -> None:
    source = _generated_source(tmp_path)
    shared_refs = re.findall(r"\bs[AB]\[[^\]]*\]", source)
    assert shared_refs, source
    assert not [ref for ref in shared_refs if "strides" in ref or "shape" in ref], shared_refs
    # Every index is provably >= 0 (thread and block indices, range counters
    # from 0): no wraparound test for Python's negative indices.
    assert "ck_wrap(" not in source, source
    # range(TPB): constant bounds, a 32-bit counter as in CUDA C.
    assert re.search(r"for \(int ck_i\d+ = 0, ck_stop\d+ = 16;", source), source
    # One conversion per product, none for the indices: Numba's float64 sum.
    step = next(line for line in source.splitlines() if "tmp = (tmp +" in line)
    assert step.count("(double)") == 1, step


def test_float64_sum_k_loop_is_as_lean_as_cuda_c_with_a_double_sum(tmp_path: Path) -> None:
    _nvrtc_or_skip()
    python_loop = _k_loop(_core.jit_compile_for_gpu(_generated_source(tmp_path), "compute_90"))
    c_loop = _k_loop(_core.jit_compile_for_gpu(_cuda_c_source("double"), "compute_90"))
    ops = _opcodes(python_loop)
    # Numba's arithmetic, exactly: a float32 product, converted, added in float64.
    assert ops["mul.f32"] == 16 and ops["cvt.f64.f32"] == 16 and ops["add.f64"] == 16, ops
    assert ops["ld.shared.f32"] == 32, ops
    assert not [i for i in python_loop if WIDE_INTEGER.match(_unpredicated(i))], python_loop
    assert len(python_loop) <= len(c_loop), (
        f"the Python kernel's k loop has {len(python_loop)} PTX instructions, the CUDA C "
        f"kernel's with a double sum {len(c_loop)}: {dict(ops)} vs {dict(_opcodes(c_loop))}")


def test_float32_sum_k_loop_is_as_lean_as_the_tutorial_cuda_c(tmp_path: Path) -> None:
    _nvrtc_or_skip()
    source = _generated_source(tmp_path, float32_sum=True)
    python_loop = _k_loop(_core.jit_compile_for_gpu(source, "compute_90"))
    c_loop = _k_loop(_core.jit_compile_for_gpu(_cuda_c_source("float"), "compute_90"))
    ops = _opcodes(python_loop)
    assert ops["fma.rn.f32"] == 16 and not any(op.startswith("cvt.f64") for op in ops), ops
    assert not [i for i in python_loop if WIDE_INTEGER.match(_unpredicated(i))], python_loop
    assert len(python_loop) <= len(c_loop), (
        f"{len(python_loop)} PTX instructions in the k loop against CUDA C's "
        f"{len(c_loop)}: {dict(ops)} vs {dict(_opcodes(c_loop))}")
