"""scripts/pycuda_surface.py over PyCUDA's sdist: every public name of
PyCUDA is in cudakit, or its absence has a recorded reason; every _driver
enum has cuda.h's values. Skipped when the sdist is not in .deps/sdist."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import pycuda_surface  # noqa: E402

SDIST = pycuda_surface.default_sdist()
pytestmark = pytest.mark.skipif(SDIST is None, reason="the PyCUDA sdist is not in .deps/sdist")


@pytest.fixture(scope="module")
def rows() -> list:
    return pycuda_surface.survey(pycuda_surface.Sdist(SDIST))


def test_every_missing_name_has_a_reason(rows: list) -> None:
    unexplained = [r.key for r in rows if r.status == "missing" and not r.why]
    assert not unexplained, f"PyCUDA names missing from cudakit without a reason: {unexplained}"


def test_driver_enums_have_cuda_h_values(rows: list) -> None:
    members = pycuda_surface.enum_members(pycuda_surface.Sdist(SDIST))
    if not members:
        pytest.skip("cuda.h is not installed")
    enum_rows = [r for r in rows if r.module == "driver" and r.name in members]
    assert {r.name for r in enum_rows} == set(members)
    wrong = [f"{r.name}: {r.why}" for r in enum_rows if r.status == "missing"
             or "missing" in r.why or "cuda.h has" in r.why]
    assert not wrong, wrong


def test_the_surface_covers_the_modules_the_issue_names(rows: list) -> None:
    modules = {r.module for r in rows}
    assert {"driver", "tools", "elementwise", "compiler", "gpuarray", "cumath", "curandom",
            "scan", "reduction", "characterize", "autoprimaryctx", "debug"} <= modules
    names = {r.key for r in rows if r.status != "missing"}
    assert {"driver.limit", "tools.mark_cuda_test", "elementwise.get_axpbyz_kernel",
            "characterize.sizeof", "compiler.get_nvcc_version"} <= names


def test_a_reason_in_the_dicts_names_a_pycuda_name(rows: list) -> None:
    # A stale entry (a name PyCUDA no longer has) is noise in the table's sources.
    keys = {r.key for r in rows}
    stale = [k for k in [*pycuda_surface.MISSING, *pycuda_surface.DIFFERS] if k not in keys]
    assert not stale, stale


def test_the_guide_holds_the_generated_table(rows: list) -> None:
    text = pycuda_surface.DOC.read_text()
    assert pycuda_surface.BEGIN in text and pycuda_surface.END in text
    assert "`pycuda.driver.limit`" in text
