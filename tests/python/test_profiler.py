"""cudakit.profiler: profile() records the launches inside a block (kernels,
fused array expressions with their GB/s), writes a Chrome trace, and
benchmark() times a function as cupyx.profiler.benchmark does. Checked on
the backend of the run (the CPU backend without a GPU); the figures a GPU
gives are checked by the tests marked gpu."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
import cudakit.profiler as profiler
from cudakit.compiler import SourceModule
from cudakit.elementwise import ElementwiseKernel
from sanitizer_scripts import cli_or_skip

SCALE = """
__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
__global__ void shift(float *x, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += b;
}
"""

N = 10007  # not a multiple of the block size


@pytest.fixture(scope="module")
def module() -> SourceModule:
    return SourceModule(SCALE)


def random_floats(n: int = N) -> np.ndarray:
    rng = np.random.default_rng()
    return (rng.random(n, dtype=np.float32) * 4 + 0.5).astype(np.float32)


def test_profile_lists_kernels_with_calls_and_shapes(module: SourceModule, capsys) -> None:
    scale, shift = module.get_function("scale"), module.get_function("shift")
    host = random_floats()
    x = gpuarray.to_gpu(host)
    blocks = (N + 127) // 128
    scale(x, np.float32(2), np.int32(N), block=(128, 1, 1), grid=(blocks, 1))  # not recorded
    with profiler.profile() as p:
        for _ in range(3):
            scale(x, np.float32(2), np.int32(N), block=(128, 1, 1), grid=(blocks, 1))
        for _ in range(2):
            shift(x, np.float32(1), np.int32(N), block=(256, 1, 1), grid=((N + 255) // 256, 1))
    np.testing.assert_allclose(x.get(), (host * 16 + 2), rtol=1e-6)

    result = p.result
    assert result is not None and result.launch_count == 5
    assert {r.name for r in result.rows} == {"scale", "shift"}
    row = result.row("scale")
    assert row.calls == 3
    assert row.grid == (blocks, 1, 1) and row.block == (128, 1, 1)
    assert 0 <= row.min_ms <= row.mean_ms <= row.max_ms
    assert row.total_ms == pytest.approx(row.mean_ms * 3)
    assert row.gb_per_s is None  # a hand-written kernel's bytes are not known
    assert result.row("shift").calls == 2
    with pytest.raises(KeyError, match="no launches of 'missing'.*scale"):
        result.row("missing")

    printed = capsys.readouterr().out
    assert "5 launches of 2 kernels" in printed
    assert "GB/s" in printed and "grid" in printed
    assert str(result) == printed
    assert "5 launches of 2 kernels" in repr(result)


def test_profile_of_one_launch_says_it_in_the_singular(module: SourceModule, capsys) -> None:
    scale = module.get_function("scale")
    x = gpuarray.to_gpu(random_floats())
    with profiler.profile() as p:
        scale(x, np.float32(2), np.int32(N), block=(128, 1, 1), grid=((N + 127) // 128, 1))
    assert "1 launch of 1 kernel " in capsys.readouterr().out
    assert "1 launch of 1 kernel>" in repr(p.result)


def test_fused_expression_row_has_its_bytes_and_bandwidth() -> None:
    ha, hb = random_floats(), random_floats()
    a, b = gpuarray.to_gpu(ha), gpuarray.to_gpu(hb)
    with profiler.profile(print_table=False) as p:
        for _ in range(3):
            got = (a * b + a).get()  # one fused launch, run when read
    np.testing.assert_allclose(got, ha * hb + ha, rtol=1e-5)
    assert p.result is not None
    assert len(p.result.rows) == 1, str(p.result)
    row = p.result.rows[0]
    assert row.name == "add(multiply(in0, in1), in0)"
    assert row.calls == 3
    # a and b read, the result written: 3 float32 arrays per call.
    assert row.bytes_moved == 3 * 3 * 4 * N
    assert row.gb_per_s is not None and row.gb_per_s > 0
    assert row.gb_per_s == pytest.approx(row.bytes_moved / (row.total_ms * 1e6), rel=1e-6)


def test_trace_is_chrome_json_with_one_event_per_launch(module: SourceModule,
                                                        tmp_path: Path) -> None:
    scale = module.get_function("scale")
    x = gpuarray.to_gpu(random_floats())
    trace = tmp_path / "trace.json"
    with profiler.profile(trace=str(trace), print_table=False):
        for _ in range(4):
            scale(x, np.float32(1), np.int32(N), block=(128, 1, 1), grid=((N + 127) // 128, 1))
    events = json.loads(trace.read_text())["traceEvents"]
    assert len(events) == 4
    assert {e["name"] for e in events} == {"scale"}
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)


def test_nested_blocks_and_an_error_inside(module: SourceModule, capsys) -> None:
    scale = module.get_function("scale")
    x = gpuarray.to_gpu(random_floats())
    launch = lambda: scale(x, np.float32(1), np.int32(N), block=(128, 1, 1),  # noqa: E731
                           grid=((N + 127) // 128, 1))
    with profiler.profile(print_table=False) as outer:
        launch()
        with profiler.profile(print_table=False) as inner:
            launch()
    assert outer.result.launch_count == 2 and inner.result.launch_count == 1

    p = profiler.profile()
    with pytest.raises(ZeroDivisionError):
        with p:
            launch()
            1 / 0
    assert p.result is not None and p.result.launch_count == 1
    assert capsys.readouterr().out == ""  # no table after an error
    with profiler.profile(print_table=False) as fresh:
        pass
    assert fresh.result.launch_count == 0 and fresh.result.rows == []


def test_profile_object_cannot_be_entered_twice_at_once() -> None:
    p = profiler.profile(print_table=False)
    with p:
        with pytest.raises(RuntimeError, match="already running"):
            p.__enter__()


def test_benchmark_times_each_run_on_host_and_device() -> None:
    a, b = gpuarray.to_gpu(random_floats()), gpuarray.to_gpu(random_floats())
    calls = []

    def add(x: gpuarray.GPUArray, y: gpuarray.GPUArray) -> None:
        calls.append(1)
        (x + y).get()

    r = profiler.benchmark(add, (a, b), n_repeat=7, n_warmup=3)
    assert len(calls) == 10
    assert r.name == "add"
    assert r.cpu_times.shape == (7,) and r.gpu_times.shape == (1, 7)
    assert (r.cpu_times > 0).all() and (r.gpu_times >= 0).all()
    text = repr(r)
    assert text.startswith("add: CPU:") and "GPU:" in text and " us " in text

    r = profiler.benchmark(lambda: None, n_repeat=10000, max_duration=1e-9, name="quick")
    assert r.cpu_times.shape == (1,)  # stopped after the first run
    assert repr(r).startswith("quick:")

    kwargs_seen = {}
    profiler.benchmark(lambda **kw: kwargs_seen.update(kw), kwargs={"k": 3}, n_repeat=1,
                       n_warmup=0)
    assert kwargs_seen == {"k": 3}


def test_benchmark_of_a_source_module_kernel_is_labelled_with_its_name(module) -> None:
    # profiling.md: a SourceModule kernel gets block= and grid= through
    # kwargs=, and the result reads "scale: CPU: ...", not "Function:".
    scale = module.get_function("scale")
    host = random_floats()
    x = gpuarray.to_gpu(host)
    r = profiler.benchmark(scale, (x, np.float32(1.5), np.int32(N)),
                           kwargs={"block": (128, 1, 1), "grid": ((N + 127) // 128, 1)},
                           n_repeat=4, n_warmup=1)
    assert r.name == "scale" and repr(r).startswith("scale: CPU:"), repr(r)
    np.testing.assert_allclose(x.get(), host * np.float32(1.5) ** 5, rtol=1e-5)
    # Without the launch shape: the kernel's own error, naming block=.
    with pytest.raises(drv.ArgumentError, match="no block= was given"):
        profiler.benchmark(scale, (x, np.float32(1.5), np.int32(N)), n_repeat=1)
    fill = ElementwiseKernel("float *x", "x[i] = 2", "fill_two")
    assert profiler.benchmark(fill, (x,), n_repeat=1, n_warmup=0).name == "fill_two"
    np.testing.assert_array_equal(x.get(), np.full(N, 2, np.float32))


def test_benchmark_bad_input_and_errors_from_the_function() -> None:
    with pytest.raises(ValueError, match="n_repeat must be a positive int"):
        profiler.benchmark(lambda: None, n_repeat=0)
    with pytest.raises(ValueError, match="n_warmup must be an int >= 0"):
        profiler.benchmark(lambda: None, n_warmup=-1)
    with pytest.raises(ValueError, match="max_duration must be positive"):
        profiler.benchmark(lambda: None, max_duration=0)
    with pytest.raises(TypeError, match="func must be callable"):
        profiler.benchmark(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="args must be a tuple"):
        profiler.benchmark(lambda x: None, [1])  # type: ignore[arg-type]

    def fails() -> None:
        raise KeyError("inside")

    with pytest.raises(KeyError, match="inside"):
        profiler.benchmark(fails, n_repeat=3)


def test_benchmark_on_a_stream() -> None:
    stream = drv.Stream()
    r = profiler.benchmark(lambda: None, n_repeat=3, n_warmup=0, stream=stream)
    assert r.gpu_times.shape == (1, 3)


def test_cudakit_profile_runs_a_python_script(tmp_path: Path) -> None:
    cli = cli_or_skip()
    script = tmp_path / "work.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import cudakit.autoinit
        import cudakit.gpuarray as gpuarray
        a = gpuarray.to_gpu(np.arange(5000, dtype=np.float32))
        for _ in range(2):
            b = (a * 2 + a).get()
        assert b[4999] == 3 * 4999
        print("script done")
    """))
    trace = tmp_path / "trace.json"
    out = subprocess.run([cli, "profile", "--trace", str(trace), "--", sys.executable,
                          str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "script done" in out.stdout
    assert "2 launches of 1 kernel" in out.stderr, out.stderr
    assert "add(multiply(in0, 2), in0)" in out.stderr
    assert len(json.loads(trace.read_text())["traceEvents"]) == 2


@pytest.mark.gpu
def test_gpu_expression_bandwidth_and_benchmark_device_times() -> None:
    n = 1 << 24
    a, b = gpuarray.to_gpu(random_floats(n)), gpuarray.to_gpu(random_floats(n))
    with profiler.profile(print_table=False) as p:
        for _ in range(10):
            (a * b + a).get()  # the fused kernel runs when the result is read
    row = p.result.rows[0]
    assert row.bytes_moved == 10 * 3 * 4 * n
    # An H200 moves several TB/s; anything above 100 GB/s means device times.
    assert row.gb_per_s > 100, str(p.result)
    r = profiler.benchmark(lambda: (a + b).get(), n_repeat=20)
    assert (r.gpu_times > 0).all()
    assert r.gpu_times.mean() < r.cpu_times.mean()
