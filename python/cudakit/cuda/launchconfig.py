"""`numba.cuda.launchconfig`: the launch configuration of the launch whose
kernel is being compiled, for code that runs during that compilation (a
Dispatcher's `_compile_for_args`, the typing and lowering functions of
`numba.cuda.extending`).

It is set only while a launch (`kernel[griddim, blockdim](args)`) compiles
the kernel for its arguments, on the launching thread, and cleared when the
compilation ends. A compilation that calls the dispatcher's
`mark_launch_config_sensitive()` makes a kernel that is used only for the
same griddim, blockdim and dynamic shared memory; another configuration
compiles its own, as numba-cuda does.
"""

from __future__ import annotations

import contextlib
import threading
from functools import wraps
from types import MethodType
from typing import Any, Iterator

_local = threading.local()


class LaunchConfig:
    """One launch: the dispatcher, its griddim and blockdim (3-tuples), the
    stream, the bytes of dynamic shared memory and the arguments."""

    def __init__(self, dispatcher: Any, griddim: tuple[int, int, int],
                 blockdim: tuple[int, int, int], stream: Any, sharedmem: int,
                 args: tuple[Any, ...]) -> None:
        self.dispatcher = dispatcher
        self.griddim = griddim
        self.blockdim = blockdim
        self.stream = stream
        self.sharedmem = sharedmem
        self.args = args
        self._kernel_launch_config_sensitive = False

    @property
    def key(self) -> tuple[Any, ...]:
        """What a launch-config-sensitive kernel is compiled for."""
        return (self.griddim, self.blockdim, self.sharedmem)

    def __repr__(self) -> str:
        return (f"<launch config of {getattr(self.dispatcher, '__name__', '?')}: "
                f"griddim={self.griddim}, blockdim={self.blockdim}, "
                f"sharedmem={self.sharedmem}>")


def current_launch_config() -> LaunchConfig | None:
    """The launch configuration being compiled for on this thread, or None."""
    return getattr(_local, "config", None)


def ensure_current_launch_config() -> LaunchConfig:
    """current_launch_config(), or RuntimeError when none is set."""
    config = current_launch_config()
    if config is None:
        raise RuntimeError("No launch config set for this thread (it is set only while a "
                           "kernel launch compiles the kernel)")
    return config


def current_launch_args() -> tuple[Any, ...] | None:
    """The arguments of the launch being compiled on this thread, or None
    (a configured launch's `args`)."""
    config = current_launch_config()
    return None if config is None else config.args


@contextlib.contextmanager
def compiling_for(config: LaunchConfig) -> Iterator[LaunchConfig]:
    """Makes `config` the current one on this thread for the block."""
    previous = current_launch_config()
    _local.config = config
    try:
        yield config
    finally:
        _local.config = previous


@contextlib.contextmanager
def capture_compile_config(dispatcher: Any) -> Iterator[dict[str, Any]]:
    """Records, in the dict it gives ({"config": ...}), the launch config
    seen when a launch compiles `dispatcher` in the block (None when nothing
    was compiled)."""
    if dispatcher is None:
        raise TypeError("capture_compile_config() needs the dispatcher whose compilation to "
                        "watch")
    record: dict[str, Any] = {"config": None}
    missing = object()
    own = dispatcher.__dict__.get("_compile_for_args", missing)
    original = dispatcher._compile_for_args

    @wraps(original)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        record["config"] = current_launch_config()
        return original(*args, **kwargs)

    dispatcher._compile_for_args = MethodType(wrapped, dispatcher)
    try:
        yield record
    finally:
        if own is missing:
            del dispatcher._compile_for_args
        else:
            dispatcher._compile_for_args = own


__all__ = ["current_launch_config", "ensure_current_launch_config", "capture_compile_config"]
