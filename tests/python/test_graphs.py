"""cudakit.graphs: capture runs nothing, replay runs the recorded work in
order with the bits direct launches give (PyCUDA-style calls, GPUArray
operations, ElementwiseKernels, @cuda.jit), and misuse is refused clearly
with the capture left intact. Runs on both backends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit import cuda, gpuarray, graphs
from cudakit.compiler import SourceModule
from cudakit.elementwise import ElementwiseKernel

N = 1000 + 37  # not a multiple of the block size
BLOCK = (128, 1, 1)
GRID = ((N + 127) // 128, 1)

STEP_SOURCE = r"""
__global__ void step_axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void step_square(float* z, const float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 0.5f * y[i] * y[i] - x[i];
}
__global__ void step_mix(float* x, const float* z, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = b * z[i] + 0.001f * (float)(i % 7);
}
"""


@pytest.fixture(scope="module")
def step_module() -> SourceModule:
    return SourceModule(STEP_SOURCE)


@pytest.fixture()
def fresh() -> Callable[[], tuple[Any, Any, Any]]:
    rng = np.random.default_rng(1202)
    x0 = rng.uniform(-0.5, 0.5, N).astype(np.float32)
    y0 = rng.uniform(-0.5, 0.5, N).astype(np.float32)

    def make() -> tuple[Any, Any, Any]:
        return gpuarray.to_gpu(x0), gpuarray.to_gpu(y0), gpuarray.zeros(N, np.float32)
    return make


def step(mod: SourceModule, x: Any, y: Any, z: Any, stream: Any = None,
         a: float = 0.75, b: float = 0.9) -> None:
    n = np.int32(N)
    mod.get_function("step_axpy")(y, x, np.float32(a), n, block=BLOCK, grid=GRID, stream=stream)
    mod.get_function("step_square")(z, y, x, n, block=BLOCK, grid=GRID, stream=stream)
    mod.get_function("step_mix")(x, z, np.float32(b), n, block=BLOCK, grid=GRID, stream=stream)


def test_capture_runs_nothing_and_replay_matches_direct_bit_for_bit(step_module, fresh) -> None:
    x, y, z = fresh()
    x0 = x.get()
    dx, dy, dz = fresh()
    with graphs.capture() as g:
        for _ in range(30):
            step(step_module, x, y, z)
    assert g.node_count == 90
    np.testing.assert_array_equal(x.get(), x0)  # nothing ran
    g.replay()
    for _ in range(30):
        step(step_module, dx, dy, dz)
    assert x.get().tobytes() == dx.get().tobytes()
    assert y.get().tobytes() == dy.get().tobytes()
    g.replay()
    for _ in range(30):
        step(step_module, dx, dy, dz)
    assert x.get().tobytes() == dx.get().tobytes()


def test_gpuarray_elementwise_and_jit_launches_are_captured(fresh) -> None:
    x, y, _ = fresh()
    xh, yh = x.get(), y.get()
    axpy = ElementwiseKernel("float a, float *x, float *y", "y[i] = a * x[i] + y[i]", "graph_axpy")

    @cuda.jit
    def halve(v):
        i = cuda.grid(1)
        if i < v.size:
            v[i] = v[i] * 0.5

    vh = np.random.default_rng(7).uniform(-1, 1, N).astype(np.float32)
    vd = cuda.to_device(vh)
    halve[GRID[0], BLOCK[0]](vd)  # compiled before the capture
    cuda.synchronize()
    vh = vh * np.float32(0.5)
    with graphs.capture() as g:
        axpy(np.float32(2.0), x, y)
        halve[GRID[0], BLOCK[0]](vd)
        x *= 3
    np.testing.assert_array_equal(y.get(), yh)  # nothing ran
    np.testing.assert_array_equal(vd.copy_to_host(), vh)
    g.replay()
    np.testing.assert_array_equal(y.get(), np.float32(2.0) * xh + yh)
    np.testing.assert_array_equal(vd.copy_to_host(), vh * np.float32(0.5))
    np.testing.assert_array_equal(x.get(), xh * np.float32(3))


def test_driver_stream_begin_and_end_capture(step_module, fresh) -> None:
    x, y, z = fresh()
    dx, dy, dz = fresh()
    s = drv.Stream()
    s.begin_capture()
    assert s.is_capturing()
    step(step_module, x, y, z, stream=s)
    graph = s.end_capture()
    assert not s.is_capturing()
    exec_ = graph.instantiate()
    exec_.launch(s)
    s.synchronize()
    step(step_module, dx, dy, dz)
    assert x.get().tobytes() == dx.get().tobytes()


def test_update_takes_new_parameters(step_module, fresh) -> None:
    x, y, z = fresh()
    dx, dy, dz = fresh()
    with graphs.capture() as g:
        step(step_module, x, y, z, a=0.75)
    with graphs.capture() as changed:
        step(step_module, x, y, z, a=-1.25, b=0.5)
    with graphs.capture() as longer:
        step(step_module, x, y, z)
        step(step_module, x, y, z)
    assert g.update(changed)
    assert not g.update(longer)
    g.replay()
    step(step_module, dx, dy, dz, a=-1.25, b=0.5)
    assert x.get().tobytes() == dx.get().tobytes()


def test_graphed_replays_with_the_results_of_direct_calls(step_module, fresh) -> None:
    x, y, z = fresh()
    dx, dy, dz = fresh()

    @graphs.graphed
    def ten_steps(x, y, z):
        for _ in range(10):
            step(step_module, x, y, z)

    for _ in range(4):
        ten_steps(x, y, z)
        for _ in range(10):
            step(step_module, dx, dy, dz)
        assert x.get().tobytes() == dx.get().tobytes()
    assert ten_steps.graph_count == 1


def test_graphed_refuses_host_reads_and_host_arrays(step_module, fresh) -> None:
    x, y, z = fresh()

    @graphs.graphed
    def reads(x, y, z):
        step(step_module, x, y, z)
        return x.get()

    reads(x, y, z)  # the first call runs directly
    with pytest.raises(graphs.NotReplayableError, match="cannot replay"):
        reads(x, y, z)
    with pytest.raises(graphs.NotReplayableError, match="host .numpy. array"):
        graphs.graphed(lambda a: a)(np.zeros(3))


# ---- misuse, each refused with the capture left usable ------------------------

@dataclass
class Case:
    name: str
    run: Callable[[Any, Any], Any]
    message: str


MISUSE = [
    Case("context synchronize", lambda s, x: drv.Context.synchronize(), "synchroniz"),
    Case("stream synchronize", lambda s, x: s.synchronize(), "capturing stream"),
    Case("read to the host", lambda s, x: x.get(), "captur"),
    Case("memcpy_dtoh", lambda s, x: drv.memcpy_dtoh(np.empty(N, np.float32), x.gpudata),
         "synchronous copy"),
    # A graph would write into the numpy array at each replay, long after it is gone.
    Case("memcpy_dtoh_async into a numpy array",
         lambda s, x: drv.memcpy_dtoh_async(np.empty(N, np.float32), x.gpudata, s),
         "pageable host memory"),
    Case("memcpy_htod_async from a numpy array",
         lambda s, x: drv.memcpy_htod_async(x.gpudata, np.ones(N, np.float32), s),
         "pageable host memory"),
]


@pytest.mark.parametrize("case", MISUSE, ids=lambda c: c.name)
def test_refused_inside_a_capture_and_the_capture_survives(case, step_module, fresh) -> None:
    x, y, z = fresh()
    dx, dy, dz = fresh()
    with graphs.capture() as g:
        step(step_module, x, y, z)
        with pytest.raises(drv.Error, match=case.message):
            case.run(g.stream, x)
        step(step_module, x, y, z)
    g.replay()
    step(step_module, dx, dy, dz)
    step(step_module, dx, dy, dz)
    assert x.get().tobytes() == dx.get().tobytes()


def test_capturing_the_legacy_default_stream_is_refused() -> None:
    with pytest.raises(drv.Error, match="legacy default stream"):
        with graphs.capture(stream=drv.Stream.wrap(0)):
            pass


def test_replay_after_its_buffer_was_freed_is_refused(step_module) -> None:
    buf = drv.mem_alloc(N * 4)
    drv.memcpy_htod(buf, np.ones(N, np.float32))
    with graphs.capture() as g:
        step_module.get_function("step_mix")(buf, buf, np.float32(0.5), np.int32(N),
                                             block=BLOCK, grid=GRID)
    g.replay()
    drv.Context.synchronize()
    buf.free()
    with pytest.raises(drv.Error, match="freed after the capture"):
        g.replay()


def test_using_a_graph_before_its_capture_ended_is_refused() -> None:
    with graphs.capture() as g:
        with pytest.raises(RuntimeError, match="has not ended"):
            g.replay()
    g.replay()


@pytest.mark.gpu
def test_thousand_step_graph_on_the_gpu_matches_direct(step_module, fresh) -> None:
    x, y, z = fresh()
    dx, dy, dz = fresh()
    with graphs.capture() as g:
        for _ in range(1000):
            step(step_module, x, y, z)
    g.upload()
    g.replay()
    for _ in range(1000):
        step(step_module, dx, dy, dz)
    assert x.get().tobytes() == dx.get().tobytes()
    assert z.get().tobytes() == dz.get().tobytes()


def test_an_event_recorded_in_a_capture_is_recorded_by_each_replay(step_module, fresh) -> None:
    x, y, z = fresh()
    dx, dy, dz = fresh()
    done = drv.Event()
    with graphs.capture() as g:
        step(step_module, x, y, z, stream=g.stream)
        done.record(g.stream)
    for _ in range(3):
        g.replay(g.stream)
        done.synchronize()  # waits for this replay's work, as for direct work
        step(step_module, dx, dy, dz)
        assert done.query()
        assert x.get().tobytes() == dx.get().tobytes()
