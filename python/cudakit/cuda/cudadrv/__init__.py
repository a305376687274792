"""`numba.cuda.cudadrv`: the driver-level names programs touch: errors,
the device-array module, the driver and runtime versions, streams."""

from . import devicearray, driver, error, nvrtc, runtime  # noqa: F401
