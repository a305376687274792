"""datetime64 and timedelta64 in kernels: arrays and scalar arguments,
subtraction, addition, comparison (NaT in, NaT out; NaT unequal), units
mixed as NumPy mixes them; against the interpreter's numpy on fresh random
dates with NaT. And a device array's view as another dtype."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda.translate.errors import TypingError

from .interpreted import run_threads

RNG = np.random.default_rng()
N = 45  # threads, not a multiple of the block
BLOCK = 32


@cuda.jit
def date_arithmetic(start, end, step, hours, target, deltas, in_hours, dates,  # type: ignore
                    flags):
    i = cuda.grid(1)
    if i < start.size:
        deltas[i, 0] = end[i] - start[i]
        deltas[i, 1] = step[i] + step[i]
        deltas[i, 2] = step[i] + 3
        in_hours[i] = (end[i] - start[i]) - hours[i]  # days and hours: in hours
        dates[i, 0] = start[i] + step[i]
        dates[i, 1] = end[i] - step[i]
        dates[i, 2] = step[i] + start[i]
        dates[i, 3] = start[i] - 7  # an integer counts in the datetime's unit
        flags[i, 0] = start[i] == target
        flags[i, 1] = start[i] != end[i]
        flags[i, 2] = start[i] < end[i]
        flags[i, 3] = step[i] >= hours[i]


def test_datetime_arithmetic_matches_the_interpreter():
    start = np.datetime64("2005-02-01") + RNG.integers(0, 400, N).astype("m8[D]")
    end = start + RNG.integers(-30, 30, N).astype("m8[D]")
    step = RNG.integers(-5, 5, N).astype("m8[D]")
    hours = RNG.integers(-200, 200, N).astype("m8[h]")
    start[1], end[2], step[3], hours[4] = "NaT", "NaT", "NaT", "NaT"
    target = start[5]
    end[5] = start[5]
    # (Each result is stored in its own unit: numpy's store of a NaT
    # scalar into an array of another unit gives 0, not NaT.)
    args = (start, end, step, hours, target, np.zeros((N, 3), "m8[D]"), np.zeros(N, "m8[h]"),
            np.zeros((N, 4), "M8[D]"), np.zeros((N, 4), np.bool_))
    device = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    date_arithmetic[(N + BLOCK - 1) // BLOCK, BLOCK](*device)
    expected = run_threads(date_arithmetic, N, *args)
    for got, want in zip(device[5:], expected[5:]):
        np.testing.assert_array_equal(got.copy_to_host(), want)


def test_a_datetime_to_a_coarser_unit_is_refused():
    @cuda.jit
    def coarser(a, out):  # type: ignore[no-untyped-def]
        out[0] = a[0]

    with pytest.raises(TypingError, match="equal or finer unit"):
        coarser[1, 1](np.zeros(1, "M8[h]"), np.zeros(1, "M8[D]"))


def test_adding_two_datetimes_is_refused():
    @cuda.jit
    def add(a, out):  # type: ignore[no-untyped-def]
        out[0] = a[0] + a[0]

    with pytest.raises(TypingError, match="unsupported operand types for Add"):
        add[1, 1](np.zeros(1, "M8[D]"), np.zeros(1, "M8[D]"))


def test_device_array_view_reads_the_same_memory():
    dates = np.datetime64("2001-01-01") + RNG.integers(0, 9000, 37).astype("m8[D]")
    d = cuda.to_device(dates)
    counts = d.view(np.int64)
    assert counts.gpu_data == d.gpu_data
    np.testing.assert_array_equal(counts.copy_to_host(), dates.view(np.int64))
    values = RNG.standard_normal((3, 8)).astype(np.float32)
    halves = cuda.to_device(values).view(np.uint16)
    np.testing.assert_array_equal(halves.copy_to_host(), values.view(np.uint16))
    with pytest.raises(ValueError, match="contiguous"):
        cuda.to_device(values)[:, ::2].view(np.float64)


def test_years_against_days_are_refused():
    @cuda.jit
    def years_and_days(a, b, out):  # type: ignore[no-untyped-def]
        out[0] = a[0] - b[0]

    with pytest.raises(TypingError, match="years and months"):
        years_and_days[1, 1](np.zeros(1, "M8[Y]"), np.zeros(1, "M8[D]"), np.zeros(1, "m8[D]"))
