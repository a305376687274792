"""PyCUDA's scan source templates (pycuda.scan.SHARED_PREAMBLE,
SCAN_INTERVALS_SOURCE, INCLUSIVE_UPDATE_SOURCE, EXCLUSIVE_UPDATE_SOURCE):
the same text as PyCUDA's; rendered, compiled and driven as PyCUDA's
_ScanKernelBase drives them, they scan as numpy's cumsum / maximum.accumulate
on fresh random input; and bad input to them is refused."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit import scan
from cudakit._mako_subset import Template
from cudakit.compiler import SourceModule
from cudakit.tools import dtype_to_ctype
from hostile_cases import Case, case_id, check_refused

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import pycuda_surface  # noqa: E402

rng = np.random.default_rng()


def pycuda_template_texts() -> dict[str, str]:
    """The four names' text in PyCUDA's pycuda/scan.py (sdist), by ast."""
    sdist_path = pycuda_surface.default_sdist()
    if sdist_path is None:
        pytest.skip("the PyCUDA sdist is not in .deps/sdist")
    sdist = pycuda_surface.Sdist(sdist_path)
    cluda = ast.parse(sdist.text("pycuda/_cluda.py") or "")
    names = {"CLUDA_PREAMBLE": next(ast.literal_eval(n.value) for n in cluda.body
                                    if isinstance(n, ast.Assign)
                                    and n.targets[0].id == "CLUDA_PREAMBLE")}
    for node in ast.parse(sdist.text("pycuda/scan.py") or "").body:
        if isinstance(node, ast.Assign) and node.targets[0].id in scan.__all__:
            value = node.value
            if isinstance(value, ast.Call):  # mako.template.Template(...)
                value = value.args[0]
            names[node.targets[0].id] = eval(compile(ast.Expression(value), "scan", "eval"),
                                             dict(names))
    return names


def test_same_text_as_pycuda() -> None:
    texts = pycuda_template_texts()
    assert scan.SHARED_PREAMBLE == texts["SHARED_PREAMBLE"]
    for name in ("SCAN_INTERVALS_SOURCE", "INCLUSIVE_UPDATE_SOURCE", "EXCLUSIVE_UPDATE_SOURCE"):
        assert getattr(scan, name).source == texts[name], name


def uniform_interval_splitting(n: int, granularity: int, max_intervals: int):
    """pytools.uniform_interval_splitting, which PyCUDA's scan calls."""
    grains = (n + granularity - 1) // granularity
    if grains < max_intervals:
        max_intervals = grains
    grains_per_interval = (grains + max_intervals - 1) // max_intervals
    interval_size = grains_per_interval * granularity
    num_intervals = (n + interval_size - 1) // interval_size
    return interval_size, num_intervals


class PyCudaScan:
    """PyCUDA's _ScanKernelBase (pycuda/scan.py) over the templates."""

    def __init__(self, dtype, scan_expr, neutral, exclusive, name_prefix="scan"):
        self.dtype = np.dtype(dtype)
        self.scan_wg_size, self.update_wg_size, self.scan_wg_seq_batches = 128, 256, 6
        kw = {"preamble": "", "name_prefix": name_prefix, "scan_type": dtype_to_ctype(dtype),
              "scan_expr": scan_expr, "neutral": neutral}
        source = str(scan.SCAN_INTERVALS_SOURCE.render(
            wg_size=self.scan_wg_size, wg_seq_batches=self.scan_wg_seq_batches, **kw))
        self.scan_intervals = SourceModule(source, no_extern_c=True).get_function(
            name_prefix + "_scan_intervals")
        self.scan_intervals.prepare("PNIPP")
        template = scan.EXCLUSIVE_UPDATE_SOURCE if exclusive else scan.INCLUSIVE_UPDATE_SOURCE
        source = str(template.render(wg_size=self.update_wg_size, **kw))
        self.final_update = SourceModule(source, no_extern_c=True).get_function(
            name_prefix + "_final_update")
        self.final_update.prepare("PNIP")

    def __call__(self, ary):
        (n,) = ary.shape
        dev = drv.Context.get_device()
        max_groups = 3 * dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
        interval_size, num_groups = uniform_interval_splitting(
            n, self.scan_wg_size * self.scan_wg_seq_batches, max_groups)
        block_results = drv.mem_alloc(self.dtype.itemsize * num_groups)
        dummy_results = drv.mem_alloc(self.dtype.itemsize)
        self.scan_intervals.prepared_async_call(
            (num_groups, 1), (self.scan_wg_size, 1, 1), None,
            ary.gpudata, n, interval_size, ary.gpudata, block_results)
        self.scan_intervals.prepared_async_call(
            (1, 1), (self.scan_wg_size, 1, 1), None,
            block_results, num_groups, interval_size, block_results, dummy_results)
        self.final_update.prepared_async_call(
            (num_groups, 1), (self.update_wg_size, 1, 1), None,
            ary.gpudata, n, interval_size, block_results)
        return ary


@pytest.mark.parametrize("n", [1, 129, 768 * 3 + 5, 100_003])
@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
def test_sum_scan_matches_numpy(n: int, exclusive: bool) -> None:
    x = rng.integers(-1000, 1000, size=n).astype(np.int64)
    got = PyCudaScan(np.int64, "a+b", "0", exclusive)(gpuarray.to_gpu(x)).get()
    expected = np.cumsum(x)
    if exclusive:
        expected = np.concatenate([[0], expected[:-1]])
    np.testing.assert_array_equal(got, expected)


def test_max_scan_matches_numpy() -> None:
    x = rng.standard_normal(50_001).astype(np.float32)
    got = PyCudaScan(np.float32, "fmaxf(a, b)", "-1e30f", False)(gpuarray.to_gpu(x)).get()
    np.testing.assert_array_equal(got, np.maximum.accumulate(x))


def test_shared_preamble_is_a_string_defining_the_cluda_macros() -> None:
    assert isinstance(scan.SHARED_PREAMBLE, str)
    for macro in ("WG_SIZE", "SCAN_EXPR", "local_barrier", "KERNEL", "LID_0", "GID_0"):
        assert f"#define {macro}" in scan.SHARED_PREAMBLE


BAD = [
    Case("render without scan_expr", lambda: scan.INCLUSIVE_UPDATE_SOURCE.render(
        wg_size=256, preamble="", name_prefix="s", scan_type="int"), NameError,
        "scan_expr.*pass it to render"),
    Case("scan intervals without wg_seq_batches", lambda: scan.SCAN_INTERVALS_SOURCE.render(
        wg_size=128, preamble="", name_prefix="s", scan_type="int", scan_expr="a+b"),
        NameError, "wg_seq_batches"),
    Case("exclusive update without neutral", lambda: scan.EXCLUSIVE_UPDATE_SOURCE.render(
        wg_size=256, preamble="", name_prefix="s", scan_type="int", scan_expr="a+b"),
        NameError, "neutral"),
    Case("template of a non-string", lambda: Template(42), TypeError,
         "expected the template's text"),
    Case("unclosed control line", lambda: Template("% if x:\nA\n"), SyntaxError,
         "is not closed"),
    Case("mismatched end", lambda: Template("% for i in x:\nA\n% endif\n"), SyntaxError,
         "does not close"),
    Case("unclosed expression", lambda: Template("a ${b"), SyntaxError, "without its"),
    Case("bad scan expression", lambda: SourceModule(scan.INCLUSIVE_UPDATE_SOURCE.render(
        wg_size=256, preamble="", name_prefix="s", scan_type="int", scan_expr="a+",
        neutral="0"), no_extern_c=True), drv.CompileError, "SCAN_EXPR|expected"),
]


@pytest.mark.parametrize("case", BAD, ids=case_id)
def test_bad_input_is_refused(case: Case) -> None:
    check_refused(case)


def test_cpu_kernel_macro_expansion_keeps_lines_strings_and_other_macros() -> None:
    from cudakit._kernel_macros import expand_kernel_macros

    source = ('#define KERNEL extern "C" __global__ // a kernel\n'
              "#define BOUNDS(X, Y) __launch_bounds__(X*Y, 1)\n"
              "#define SYNC() __syncthreads();\n"
              "#define N 4\n"
              'KERNEL BOUNDS(N, 2) void k(const char *s = "KERNEL") { SYNC() /* SYNC() */ }\n'
              "BOUNDS(\n1, 2)\n")
    expanded = expand_kernel_macros(source)
    assert expanded.count("\n") == source.count("\n")
    assert ('extern "C" __global__ __launch_bounds__(N*2, 1) void k(const char *s = "KERNEL") '
            "{ __syncthreads(); /* SYNC() */ }") in expanded
    assert "BOUNDS(\n1, 2)" in expanded  # arguments on another line: left to the compiler
    assert expand_kernel_macros("int x;\n") == "int x;\n"


def test_kernel_behind_a_macro_runs_on_every_backend() -> None:
    mod = SourceModule("""
        #define KERNEL extern "C" __global__
        #define BAR() __syncthreads();
        KERNEL void rev(float *a, int n) {
            __shared__ float t[64];
            int i = threadIdx.x;
            if (i < n) t[i] = a[i];
            BAR()
            if (i < n) a[i] = t[n - 1 - i];
        }""", no_extern_c=True)
    x = rng.standard_normal(50).astype(np.float32)
    a = gpuarray.to_gpu(x)
    mod.get_function("rev")(a.gpudata, np.int32(50), block=(64, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(a.get(), x[::-1])
