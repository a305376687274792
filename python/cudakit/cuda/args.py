"""`numba.cuda.args`: hints on how a host array argument travels to a
kernel. A NumPy array passed as it is is copied to the device and back
(`InOut`); `cuda.In(a)` copies it only to the device, `cuda.Out(a)` only
back after the launch (the kernel's array starts uninitialized)."""

from __future__ import annotations

from typing import Any


class ArgHint:
    """A kernel argument with a copy direction."""

    copy_in = True
    copy_out = True

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def _numba_type_(self) -> Any:
        from .typing.typeof import typeof
        return typeof(self.value)

    def to_device(self, retr: list, stream: Any = 0) -> Any:
        """The device array the kernel gets; appends the copy back (a
        callable) to `retr` where the direction asks for one."""
        import numpy as np

        from .device_array import DeviceNDArray, device_array, to_device
        value = self.value
        if isinstance(value, DeviceNDArray) or not isinstance(value, np.ndarray):
            return value  # already on the device, or a number: nothing to copy
        if self.copy_in:
            device = to_device(value, stream=stream)
        else:
            device = device_array(value.shape, value.dtype, stream=stream,
                                  order="F" if value.flags.f_contiguous
                                  and not value.flags.c_contiguous else "C")
        if self.copy_out:
            if not value.flags.writeable:
                raise ValueError(f"cuda.{type(self).__name__}(array): the array is read-only, "
                                 "so the kernel's result cannot be copied back into it "
                                 "(pass cuda.In(array), or a writeable copy)")
            retr.append(lambda: device.copy_to_host(value, stream=stream))
        else:
            retr.append(lambda: device)  # keeps the device copy alive for the launch
        return device

    def __repr__(self) -> str:
        return f"cuda.{type(self).__name__}({self.value!r:.60})"


class In(ArgHint):
    """Copied to the device before the launch, not back."""

    copy_out = False


class Out(ArgHint):
    """Not copied to the device; copied back after the launch."""

    copy_in = False


class InOut(ArgHint):
    """Copied to the device before the launch and back after it."""


def wrap_arg(value: Any, default: type = InOut) -> ArgHint:
    """`value` as an ArgHint (`default(value)` unless it is one already)."""
    return value if isinstance(value, ArgHint) else default(value)


__all__ = ["ArgHint", "In", "InOut", "Out", "wrap_arg"]
