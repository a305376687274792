"""Dask arrays with GPUArray chunks, and a Dask cluster of one worker per device.

``import cudakit.dask`` registers ``GPUArray`` as a Dask chunk type (as Dask
does for CuPy's arrays): ``dask.array`` then runs its graphs on GPUArray
chunks, each chunk's work on the device through numpy's protocols on
GPUArray (``np.sum``, ``np.concatenate``, ufuncs...; see
``cudakit._numpy_functions``)::

    import dask.array as da
    import cudakit.dask
    from cudakit import gpuarray

    x = da.from_array(host, chunks=100_000).map_blocks(gpuarray.to_gpu)
    total = (x * 2 + 1).sum().compute()      # a 0-d GPUArray
    total.get()

``LocalDeviceCluster()`` starts a ``distributed.LocalCluster`` with one worker
process per device (as dask-cuda's ``LocalCUDACluster``): each worker sees
only its device, through ``CUDA_VISIBLE_DEVICES`` on a GPU and
``CUDAKIT_CPU_VISIBLE_DEVICES`` on the CPU backend's virtual devices
(``CUDAKIT_CPU_DEVICES=N``). Dask and distributed are optional dependencies.
"""

from __future__ import annotations

import copy
import os
from typing import Any, Sequence

import numpy as np

try:
    import dask.array as _da
    from dask.array import dispatch as _dispatch
    from dask.array.chunk_types import register_chunk_type as _register_chunk_type
except ImportError as error:  # pragma: no cover - exercised without dask installed
    raise ImportError(
        "cudakit.dask needs Dask: pip install 'dask[array]' (and 'distributed' for "
        "LocalDeviceCluster)") from error

from . import _core, _numpy_functions, _placement
from ._core import GPUArray

__all__ = ["register", "to_gpu", "LocalDeviceCluster", "device_environment", "dask_setup"]


def _concatenate(arrays: Sequence[Any], axis: int = 0) -> Any:
    # Dask joins the metas (empty arrays) of its inputs too: an empty numpy
    # one (of a chunk function whose meta was not inferred) moves no data.
    arrays = [_placement.to_gpu(x) if isinstance(x, np.ndarray) and x.size == 0 else x
              for x in arrays]
    return _numpy_functions._FUNCTIONS[np.concatenate](arrays, axis)


def _empty(shape: Any, dtype: Any = float, order: str = "C", **kwargs: Any) -> Any:
    return _placement.empty(shape, dtype, order=order)


def _numel(x: Any, **kwargs: Any) -> Any:
    from dask.array.backends import _numel_arraylike

    return _numel_arraylike(x, **kwargs)


def _nannumel(x: Any, **kwargs: Any) -> Any:
    return _numpy_functions._FUNCTIONS[np.sum](~_core.cumath.isnan(x), **kwargs)


_registered = False


def register() -> None:
    """Make GPUArray a Dask chunk type (done when this module is imported;
    calling it again does nothing)."""
    global _registered
    if _registered:
        return
    _register_chunk_type(GPUArray)
    _dispatch.concatenate_lookup.register(GPUArray, _concatenate)
    _dispatch.take_lookup.register(GPUArray, _numpy_functions._FUNCTIONS[np.take])
    _dispatch.tensordot_lookup.register(GPUArray, _numpy_functions._FUNCTIONS[np.tensordot])
    _dispatch.empty_lookup.register(GPUArray, _empty)
    _dispatch.numel_lookup.register(GPUArray, _numel)
    _dispatch.nannumel_lookup.register(GPUArray, _nannumel)
    _dispatch.to_numpy_dispatch.register(GPUArray, lambda data, **kwargs: data.get())
    _registered = True


register()


def to_gpu(x: Any) -> Any:
    """A Dask array with GPUArray chunks: each chunk of ``x`` (a Dask array
    of numpy chunks, or a numpy array) copied to the device when computed."""
    if not isinstance(x, _da.Array):
        x = _da.from_array(np.asarray(x))
    meta = _placement.empty((0,) * x.ndim, x.dtype)
    return x.map_blocks(_placement.to_gpu, dtype=x.dtype, meta=meta)


# ---- one worker per device -----------------------------------------------------------

def _device_count() -> int:
    from . import driver

    driver.init()
    return int(driver.Device.count())


def device_environment(index: int, devices: Sequence[int]) -> dict[str, str]:
    """The environment of the worker of ``devices[index]``: it sees only
    that device (its device 0)."""
    from . import driver

    device = int(devices[index])
    if driver.backend() == "cpu":
        return {"CUDAKIT_BACKEND": "cpu", "CUDAKIT_CPU_VISIBLE_DEVICES": str(device)}
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        # Ordinals of this process are positions in its own list.
        entries = [entry.strip() for entry in visible.split(",") if entry.strip()]
        return {"CUDA_VISIBLE_DEVICES": entries[device]}
    return {"CUDA_VISIBLE_DEVICES": str(device)}


def dask_setup(worker: Any) -> None:
    """Run by each LocalDeviceCluster worker at start (preload): checks that
    the worker sees only its device. It sees more when cudakit was
    initialised before the worker's environment was set (a script that
    imports cudakit.autoinit at its top runs again in each spawned worker)."""
    device = os.environ.get("CUDAKIT_DASK_DEVICE")
    if device is None:
        return
    count = _device_count()
    if count != 1:
        from . import driver

        variable = ("CUDAKIT_CPU_VISIBLE_DEVICES" if driver.backend() == "cpu"
                    else "CUDA_VISIBLE_DEVICES")
        raise RuntimeError(
            f"LocalDeviceCluster worker for device {device} sees {count} devices: cudakit "
            f"was initialised in this worker process before {variable} was set. Start the "
            "cluster under `if __name__ == \"__main__\":` and initialise cudakit (import "
            "cudakit.autoinit, make a context) inside it, not at the top of the script")


def _cluster_base() -> Any:
    try:
        from distributed import LocalCluster
    except ImportError as error:
        raise ImportError("cudakit.dask.LocalDeviceCluster needs distributed: pip install "
                          "distributed") from error
    return LocalCluster


def LocalDeviceCluster(n_workers: int | None = None, devices: Sequence[int] | None = None,
                       threads_per_worker: int = 1, **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` with one worker process per device.

    ``devices``: the device ordinals to use (default all of this process's,
    or the first ``n_workers``). Worker ``i`` sees only ``devices[i]`` (as
    its device 0): ``CUDA_VISIBLE_DEVICES`` on a GPU, ``CUDAKIT_CPU_VISIBLE_DEVICES``
    on the CPU backend (start the cluster with ``CUDAKIT_CPU_DEVICES=N`` for
    N virtual devices). Each worker imports ``cudakit.dask`` at start.
    Other keyword arguments go to ``distributed.LocalCluster``.
    """
    return _device_cluster_class()(n_workers=n_workers, devices=devices,
                                   threads_per_worker=threads_per_worker, **kwargs)


_cluster_class: Any = None


def _device_cluster_class() -> Any:
    global _cluster_class
    if _cluster_class is not None:
        return _cluster_class
    base = _cluster_base()

    class _LocalDeviceCluster(base):  # type: ignore[misc, valid-type]
        __doc__ = LocalDeviceCluster.__doc__

        def __init__(self, n_workers: int | None = None,
                     devices: Sequence[int] | None = None, threads_per_worker: int = 1,
                     **kwargs: Any) -> None:
            count = _device_count()
            if devices is None:
                devices = list(range(count if n_workers is None else n_workers))
            devices = [int(d) for d in devices]
            if n_workers is None:
                n_workers = len(devices)
            bad = [d for d in devices if not 0 <= d < count]
            if bad or len(set(devices)) != len(devices) or n_workers != len(devices) \
                    or n_workers < 1:
                raise ValueError(
                    f"LocalDeviceCluster: devices {devices} (n_workers={n_workers}) must be "
                    f"distinct device ordinals below {count} (this process sees {count} "
                    "device(s); on the CPU backend set CUDAKIT_CPU_DEVICES=N for N virtual "
                    "devices), one per worker")
            if kwargs.get("processes") is False:
                raise ValueError("LocalDeviceCluster: processes=False is not supported: each "
                                 "worker is a process that sees only its device")
            self.devices = devices
            preload = list(kwargs.pop("preload", None) or [])
            kwargs["processes"] = True
            # Started with no worker, then scaled: each worker is made by
            # new_worker_spec, which gives it its device.
            super().__init__(n_workers=0, threads_per_worker=threads_per_worker,
                             preload=["cudakit.dask", *preload], **kwargs)
            self.scale(n_workers)
            self.sync(self._correct_state)

        def new_worker_spec(self) -> dict[Any, Any]:
            # Worker names are positions in `devices`; the first free one is next.
            free = sorted(set(range(len(self.devices))) - set(self.worker_spec))
            if not free:
                raise ValueError(f"LocalDeviceCluster: every device {self.devices} already "
                                 "has a worker; it cannot grow beyond one worker per device")
            index = free[0]
            spec = copy.deepcopy(self.new_spec)
            options = spec.setdefault("options", {})
            options["env"] = {**options.get("env", {}),
                              **device_environment(index, self.devices),
                              "CUDAKIT_DASK_DEVICE": str(self.devices[index])}
            return {index: spec}

    _LocalDeviceCluster.__name__ = _LocalDeviceCluster.__qualname__ = "LocalDeviceCluster"
    _cluster_class = _LocalDeviceCluster
    return _cluster_class
