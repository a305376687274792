"""Dask arrays with GPUArray chunks (cudakit.dask): from_array, map_blocks
with a @cuda.jit kernel, elementwise arithmetic, reductions, rechunk and
compute() giving GPUArrays, each result equal to numpy's on the same fresh
random input (odd shapes and chunks), on Dask's threaded scheduler and on a
distributed LocalDeviceCluster of two workers, one per virtual device
(CUDAKIT_CPU_DEVICES=2). Skipped where Dask is not installed."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

dask = pytest.importorskip("dask", reason="Dask is an optional dependency (pip install dask)")
da = pytest.importorskip("dask.array")

import cudakit.dask  # noqa: E402
from cudakit import cuda, gpuarray  # noqa: E402
from gpuarray_helpers import random_array  # noqa: E402

SHAPE, CHUNKS = (1003, 517), (250, 200)


@cuda.jit
def scale_shift(source, out):
    i, j = cuda.grid(2)
    if i < source.shape[0] and j < source.shape[1]:
        out[i, j] = 2 * source[i, j] + 1


def apply_kernel(block):
    """One chunk through the @cuda.jit kernel (a module-level function, so
    distributed sends it by reference)."""
    out = gpuarray.empty_like(block)
    if block.size:
        grid = ((block.shape[0] + 15) // 16, (block.shape[1] + 15) // 16)
        scale_shift[grid, (16, 16)](block, out)
    return out


def device_name(dask_worker=None) -> str:
    from cudakit import driver

    driver.init()
    return f"{driver.Device.count()} {driver.Device(0).pci_bus_id()}"


def assert_sum_close(result, expected, terms) -> None:
    """A float32 sum within a bound that scales with sum(|terms|)."""
    bound = 8 * np.finfo(np.float32).eps * np.sum(np.abs(terms), dtype=np.float64)
    assert abs(float(result) - float(expected)) <= bound, (result, expected, bound)


def check(result, expected) -> None:
    assert isinstance(result, gpuarray.GPUArray), type(result)
    host = result.get()
    assert host.shape == expected.shape and host.dtype == expected.dtype
    np.testing.assert_allclose(host, expected, rtol=2e-5, atol=2e-5)


@pytest.fixture
def data():
    host = random_array(SHAPE, np.float32, low=-2, high=2)
    return host, da.from_array(host, chunks=CHUNKS).map_blocks(gpuarray.to_gpu)


@pytest.fixture(autouse=True)
def threads():
    with dask.config.set(scheduler="threads"):
        yield


def test_chunks_are_gpuarrays(data) -> None:
    host, x = data
    assert isinstance(x._meta, gpuarray.GPUArray)
    assert isinstance(cudakit.dask.to_gpu(host)._meta, gpuarray.GPUArray)
    blocks = x.to_delayed().ravel()
    assert all(isinstance(b.compute(), gpuarray.GPUArray) for b in blocks[:2])
    check(x.compute(), host)
    check(cudakit.dask.to_gpu(da.from_array(host, chunks=CHUNKS)).compute(), host)


def test_from_array_of_a_gpuarray(data) -> None:
    host, _ = data
    x = da.from_array(gpuarray.to_gpu(host), chunks=CHUNKS, asarray=False)
    assert isinstance(x._meta, gpuarray.GPUArray)
    check((x + 1).compute(), host + 1)


def test_map_blocks_with_a_jit_kernel_then_reductions(data) -> None:
    host, x = data
    y = x.map_blocks(apply_kernel)
    expected = 2 * host + 1
    check(y.compute(), expected)
    total = y.sum().compute()
    assert isinstance(total, gpuarray.GPUArray)
    assert_sum_close(total.get(), expected.sum(dtype=np.float64), expected)
    check(y.mean(axis=0).compute(), expected.mean(axis=0))
    check(y.max(axis=1).compute(), expected.max(axis=1))


def test_map_blocks_with_an_elementwise_kernel(data) -> None:
    from cudakit.elementwise import ElementwiseKernel

    host, x = data
    kernel = ElementwiseKernel("float *out, const float *a", "out[i] = a[i] * a[i] - 3.0f")

    def apply(block):
        out = gpuarray.empty_like(block)
        if block.size:
            kernel(out, block.copy(order="C") if not block.flags.c_contiguous else block)
        return out

    check(x.map_blocks(apply).compute(), host * host - 3)


def test_elementwise_arithmetic_and_ufuncs(data) -> None:
    host, x = data
    other = random_array(SHAPE, np.float32, low=0.5, high=2)
    y = da.from_array(other, chunks=(300, 100)).map_blocks(gpuarray.to_gpu)
    check((x * 3 - y / 2 + 1).compute(), host * 3 - other / 2 + 1)
    check(np.exp(x / 4).compute(), np.exp(host / 4))
    check(da.where(x > 0, x, y).compute(), np.where(host > 0, host, other))
    product = (x.T @ y[:, :7]).compute()
    assert isinstance(product, gpuarray.GPUArray)
    bound = 8 * np.finfo(np.float32).eps * (np.abs(host.T) @ np.abs(other[:, :7]))
    assert np.all(np.abs(product.get() - host.T @ other[:, :7]) <= bound)


def test_reductions_rechunk_and_joins(data) -> None:
    host, x = data
    assert_sum_close(x.sum().compute().get(), host.sum(dtype=np.float64), host)
    check(x.sum(axis=1).compute(), host.sum(axis=1))
    check(x.mean().compute(), np.asarray(host.mean()))
    check(x.std(axis=0).compute(), host.std(axis=0))
    check(x.var().compute(), np.asarray(host.var()))
    check(x.min(axis=0).compute(), host.min(axis=0))
    r = x.rechunk((500, 517))
    assert r.chunks[1] == (517,)
    check(r.compute(), host)
    check(da.concatenate([x, r], axis=0).max(axis=0).compute(), host.max(axis=0))
    check(da.stack([x, x + 1]).sum(axis=0).compute(), 2 * host + 1)


def test_dask_results_back_to_numpy(data) -> None:
    host, x = data
    check(x[10:700:3, 5:400].compute(), host[10:700:3, 5:400])
    back = x.map_blocks(lambda b: b.get(), meta=np.empty((0, 0), np.float32)).compute()
    assert isinstance(back, np.ndarray)
    np.testing.assert_array_equal(back, host)


def test_host_chunks_mixed_with_device_chunks_are_refused(data) -> None:
    host, x = data
    with pytest.raises(TypeError, match=r"numpy\.ndarray \(host memory"):
        (x + da.from_array(host, chunks=CHUNKS)).compute()


def test_local_device_cluster_refuses_bad_devices() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match=r"must be distinct device ordinals below 1"):
        cudakit.dask.LocalDeviceCluster(n_workers=2)
    with pytest.raises(ValueError, match=r"must be distinct device ordinals"):
        cudakit.dask.LocalDeviceCluster(devices=[0, 0])


DISTRIBUTED = """
import numpy as np
import dask.array as da
from distributed import Client
import cudakit.dask
from cudakit import gpuarray
from test_dask_chunks import CHUNKS, SHAPE, apply_kernel, device_name

if __name__ == "__main__":
    with cudakit.dask.LocalDeviceCluster(dashboard_address=None) as cluster, \\
            Client(cluster) as client:
        print(sorted(client.run(device_name).values()))
        rng = np.random.default_rng()
        host = rng.uniform(-2, 2, SHAPE).astype(np.float32)
        x = da.from_array(host, chunks=CHUNKS).map_blocks(gpuarray.to_gpu)
        y = x.map_blocks(apply_kernel)
        total = y.sum().compute()
        expected = (2 * host + 1).astype(np.float64)
        print(type(total).__name__, abs(float(total.get()) - expected.sum()) <=
              8 * np.finfo(np.float32).eps * np.abs(expected).sum())
        column_means = y.mean(axis=0).compute().get()
        print(np.allclose(column_means, expected.mean(axis=0), rtol=2e-5, atol=2e-5))
"""


def test_distributed_cluster_of_two_virtual_devices(tmp_path) -> None:
    pytest.importorskip("distributed")
    try:
        pickle.dumps(gpuarray.to_gpu(np.ones(3, np.float32)))
    except TypeError as error:
        pytest.skip(f"GPUArrays cannot be pickled in this build ({error}); distributed "
                    "workers send them to each other")
    from pathlib import Path

    from child_process import TWO_CPU_DEVICES, checked, run_python

    script = tmp_path / "cluster.py"
    script.write_text(DISTRIBUTED)
    here = str(Path(__file__).parent)
    out = checked(run_python([str(script)], PYTHONPATH=here, **TWO_CPU_DEVICES))
    lines = out.splitlines()
    assert lines[0] == "['1 ffff:00:00.0', '1 ffff:00:01.0']", out  # a device each
    assert lines[1] == "GPUArray True", out
    assert lines[2] == "True", out


@pytest.mark.gpu
def test_cudakit_chunks_equal_cupy_chunks(data) -> None:
    cupy = pytest.importorskip("cupy", reason="CuPy compares chunks on the GPU")
    host, x = data
    c = da.from_array(host, chunks=CHUNKS).map_blocks(cupy.asarray)
    ours = (np.exp(x / 4) * 3 - x).sum(axis=0).compute().get()
    theirs = cupy.asnumpy((np.exp(c / 4) * 3 - c).sum(axis=0).compute())
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-4)


def test_each_worker_sees_one_device_through_its_environment(monkeypatch) -> None:
    from cudakit import driver

    monkeypatch.setattr(driver, "backend", lambda: "cpu")
    assert cudakit.dask.device_environment(1, [0, 1]) == {
        "CUDAKIT_BACKEND": "cpu", "CUDAKIT_CPU_VISIBLE_DEVICES": "1"}
    monkeypatch.setattr(driver, "backend", lambda: "cuda")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert cudakit.dask.device_environment(1, [2, 3]) == {"CUDA_VISIBLE_DEVICES": "3"}
    # Ordinals are positions in this process's own CUDA_VISIBLE_DEVICES list.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4, GPU-abc")
    assert cudakit.dask.device_environment(1, [0, 1]) == {"CUDA_VISIBLE_DEVICES": "GPU-abc"}
