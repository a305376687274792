"""Where does the time go? ``cudakit.profiler`` answers from Python.

``profile()`` records every kernel launch inside a ``with`` block (cudakit's
own kernels, ``SourceModule`` functions, array expressions) and sums them up
per kernel, as ``CUDAKIT_PROFILE=1`` does for a whole program::

    with cudakit.profiler.profile() as p:
        c = a * b + a          # one fused launch
        kernel(c_gpu, block=(256, 1, 1), grid=(40, 1))
    print(p.result.rows[0].gb_per_s)

``benchmark()`` times a function on the host and the device like
``cupyx.profiler.benchmark``: warm-up runs, then each run between two events
and synchronised::

    print(cudakit.profiler.benchmark(add, (a, b), n_repeat=1000))

Both are the C++ library's (``cudakit::ProfileSession``,
``cudakit::benchmark``); nothing is timed in Python.
"""

from __future__ import annotations

import math
import sys
from types import TracebackType
from typing import Any, Callable, TextIO

import numpy as np

from . import _core

__all__ = ["BenchmarkResult", "Profile", "ProfileResult", "ProfileRow", "benchmark", "profile"]

ProfileRow = _core.ProfileRow


class ProfileResult:
    """The launches of a ``profile()`` block, one row per kernel.

    ``rows``: :class:`ProfileRow` objects (``name``, ``calls``, ``total_ms``,
    ``mean_ms``, ``min_ms``, ``max_ms``, ``grid``, ``block``, ``bytes_moved``,
    ``gb_per_s``: ``None`` where the bytes moved are not known), the most
    expensive first. ``str()`` is the table.
    """

    def __init__(self, report: Any) -> None:
        self._report = report
        self.rows: list[ProfileRow] = list(report.rows)
        self.launch_count: int = report.launch_count

    def row(self, name: str) -> ProfileRow:
        """The row of kernel (or array expression) ``name``; KeyError if none."""
        for r in self.rows:
            if r.name == name:
                return r
        known = ", ".join(r.name for r in self.rows) or "none"
        raise KeyError(f"no launches of {name!r} were recorded (recorded: {known})")

    def table(self) -> str:
        return str(self._report.table())

    def write_chrome_trace(self, path: str) -> None:
        """The launches as a Chrome trace (JSON; opens in https://ui.perfetto.dev)."""
        self._report.write_chrome_trace(str(path))

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        launches = "launch" if self.launch_count == 1 else "launches"
        kernels = "kernel" if len(self.rows) == 1 else "kernels"
        return f"<ProfileResult: {self.launch_count} {launches} of {len(self.rows)} {kernels}>"


class Profile:
    """The context manager ``profile()`` returns; ``result`` is set on exit."""

    def __init__(self, trace: str | None, print_table: bool, file: TextIO | None) -> None:
        self.trace = trace
        self.print_table = print_table
        self.file = file
        self.result: ProfileResult | None = None
        self._session: Any = None

    def __enter__(self) -> Profile:
        if self._session is not None:
            raise RuntimeError("this profile() block is already running; use a new profile()")
        self._session = _core._ProfileSession()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        session, self._session = self._session, None
        self.result = ProfileResult(session.stop())
        if exc_type is not None:
            return  # the block's error is what the user needs to see
        if self.trace:
            self.result.write_chrome_trace(self.trace)
        if self.print_table:
            print(self.result.table(), end="", file=self.file or sys.stdout)


def profile(
    trace: str | None = None, *, print_table: bool = True, file: TextIO | None = None
) -> Profile:
    """Records the kernel launches inside the ``with`` block.

    On exit the table (calls, total/mean/min/max ms, GB/s, launch shape per
    kernel) is printed to ``file`` (stdout) unless ``print_table`` is false,
    the launches are written as a Chrome trace to ``trace`` when given, and
    the block's ``Profile`` holds them as ``result`` (a :class:`ProfileResult`).
    """
    return Profile(trace, print_table, file)


class BenchmarkResult:
    """Per-run times of ``benchmark()``, in seconds as cupyx gives them.

    ``cpu_times``: host time of each run (shape ``(n,)``), including the
    wait for the device; ``gpu_times``: device time between the events
    around each run (shape ``(1, n)``: one device).
    """

    def __init__(self, native: Any) -> None:
        self._native = native
        self.name: str = native.name
        self.cpu_times = np.asarray(native.cpu_ms, dtype=np.float64) / 1e3
        self.gpu_times = (np.asarray(native.gpu_ms, dtype=np.float64) / 1e3).reshape(1, -1)

    def __repr__(self) -> str:
        return str(self._native.to_string())

    __str__ = __repr__


def benchmark(
    func: Callable[..., Any],
    args: tuple[Any, ...] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    n_repeat: int = 10000,
    n_warmup: int = 10,
    max_duration: float = math.inf,
    name: str | None = None,
    stream: Any = None,
) -> BenchmarkResult:
    """Times ``func(*args, **kwargs)`` like ``cupyx.profiler.benchmark``.

    ``n_warmup`` untimed runs, then up to ``n_repeat`` runs (fewer once
    ``max_duration`` seconds have passed), each between two events on
    ``stream`` (the default stream when None) and synchronised.
    """
    if not callable(func):
        raise TypeError(f"benchmark: func must be callable, got {type(func).__name__}")
    if not isinstance(args, tuple):
        raise TypeError(f"benchmark: args must be a tuple, got {type(args).__name__}")
    if kwargs is None:
        kwargs = {}
    if name is None:
        # A Python function's __name__; a SourceModule kernel's (and an
        # ElementwiseKernel's) `name`; else the type's name.
        name = next((value for value in (getattr(func, "__name__", None),
                                         getattr(func, "name", None))
                     if isinstance(value, str) and value), type(func).__name__)
    if isinstance(n_repeat, bool) or not isinstance(n_repeat, int) or n_repeat < 1:
        raise ValueError(f"benchmark: n_repeat must be a positive int, got {n_repeat!r}")
    if isinstance(n_warmup, bool) or not isinstance(n_warmup, int) or n_warmup < 0:
        raise ValueError(f"benchmark: n_warmup must be an int >= 0, got {n_warmup!r}")
    if not max_duration > 0:
        raise ValueError(f"benchmark: max_duration must be positive (seconds), got {max_duration!r}")

    def work() -> None:
        func(*args, **kwargs)

    return BenchmarkResult(
        _core._benchmark(work, n_repeat, n_warmup, float(max_duration), str(name), stream)
    )
