"""Grid-wide synchronization: `cuda.cg.this_grid()` and `grid.sync()` in a
kernel make it a cooperative launch (every block resident at once), as
Numba does; checked against NumPy references on fresh random data with
grids that are not powers of two, on the CPU backend and on a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda

RNG = np.random.default_rng()


@cuda.jit
def heat_steps(u, scratch, steps):
    # The Laplace example's pattern: one launch, a grid barrier per step.
    i = cuda.grid(1)
    n = u.shape[0]
    grid = cuda.cg.this_grid()
    for _ in range(steps):
        if i < n:
            if i == 0 or i == n - 1:
                scratch[i] = u[i]
            else:
                scratch[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1]
        grid.sync()
        if i < n:
            u[i] = scratch[i]
        grid.sync()


def heat_reference(u: np.ndarray, steps: int) -> np.ndarray:
    u = u.copy()
    for _ in range(steps):
        nxt = u.copy()
        nxt[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
        u = nxt
    return u


def test_heat_equation_with_a_grid_barrier_per_step():
    n, steps, block = 301, 40, 32  # 10 blocks, the last one partial
    u0 = RNG.random(n)
    u = cuda.to_device(u0)
    scratch = cuda.device_array(n, np.float64)
    grid = (n + block - 1) // block
    heat_steps[grid, block](u, scratch, steps)
    np.testing.assert_allclose(u.copy_to_host(), heat_reference(u0, steps), rtol=1e-12)


@cuda.jit
def block_sums_then_neighbours(values, partial, out):
    # Phase 1 writes one partial sum per block; after the barrier every
    # block reads its right neighbour's.
    tile = cuda.shared.array(64, np.float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    tile[t] = values[i] if i < values.size else np.float32(0)
    cuda.syncthreads()
    if t == 0:
        s = np.float32(0)
        for k in range(cuda.blockDim.x):
            s += tile[k]
        partial[cuda.blockIdx.x] = s
    cuda.cg.this_grid().sync()
    if t == 0:
        right = (cuda.blockIdx.x + 1) % cuda.gridDim.x
        out[cuda.blockIdx.x] = partial[right] - partial[cuda.blockIdx.x]


def test_blocks_read_each_others_partial_sums_after_grid_sync():
    block, blocks = 64, 11
    n = block * blocks - 37
    values = RNG.standard_normal(n).astype(np.float32)
    partial = cuda.device_array(blocks, np.float32)
    out = cuda.device_array(blocks, np.float32)
    block_sums_then_neighbours[blocks, block](cuda.to_device(values), partial, out)
    padded = np.zeros(block * blocks, np.float64)
    padded[:n] = values
    want_partial = padded.reshape(blocks, block).sum(axis=1)
    np.testing.assert_allclose(partial.copy_to_host(), want_partial, rtol=1e-4, atol=1e-4)
    want = np.roll(want_partial, -1) - want_partial
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-4, atol=1e-4)


@cuda.jit(device=True)
def wait_for_grid():
    g = cuda.cg.this_grid()
    g.sync()


@cuda.jit
def shift_left(data, result):
    i = cuda.grid(1)
    v = data[(i + 1) % data.size] if i < data.size else 0
    wait_for_grid()
    if i < data.size:
        result[i] = v


def test_grid_sync_in_a_device_function_makes_the_launch_cooperative():
    data = RNG.integers(1, 1000, 97).astype(np.int32)
    result = cuda.device_array(97, np.int32)
    shift_left[4, 25](cuda.to_device(data), result)  # 100 threads for 97 values
    np.testing.assert_array_equal(result.copy_to_host(), np.roll(data, -1))
    spec = next(iter(shift_left.overloads.values()))
    assert spec.cooperative
    assert "cooperative_groups::this_grid().sync()" in spec.translation.source


def test_taking_the_grid_group_makes_the_launch_cooperative_as_numba():
    @cuda.jit
    def takes_grid(x):
        g = cuda.cg.this_grid()  # no sync: Numba still launches it cooperatively
        i = cuda.grid(1)
        if i < x.size:
            x[i] = 2 * i + 1

    x = cuda.device_array(37, np.int32)
    takes_grid[2, 32](x)
    np.testing.assert_array_equal(x.copy_to_host(), 2 * np.arange(37) + 1)
    assert next(iter(takes_grid.overloads.values())).cooperative


def test_a_kernel_without_grid_sync_is_launched_as_before():
    @cuda.jit
    def plain(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = i

    x = cuda.device_array(10, np.int32)
    plain[1, 16](x)
    assert not next(iter(plain.overloads.values())).cooperative


def test_max_cooperative_grid_blocks_as_numba_has_it():
    sig = (cuda.int32[:, ::1],)

    @cuda.jit(sig)
    def sequential_rows(m):
        col = cuda.grid(1)
        g = cuda.cg.this_grid()
        rows = m.shape[0]
        cols = m.shape[1]
        for row in range(1, rows):
            opposite = cols - col - 1
            m[row, col] = m[row - 1, opposite] + 1
            g.sync()

    overload = sequential_rows.overloads[sig]
    max_blocks = overload.max_cooperative_grid_blocks(32)
    assert max_blocks >= 1
    assert overload.max_cooperative_grid_blocks((16, 2)) == max_blocks
    a = np.zeros((37, 64), dtype=np.int32)
    d = cuda.to_device(a)
    sequential_rows[2, 32](d)
    got = d.copy_to_host()
    want = a.copy()
    for row in range(1, want.shape[0]):
        want[row] = want[row - 1][::-1] + 1
    np.testing.assert_array_equal(got, want)

    with pytest.raises(ValueError, match=f"cooperative.*{max_blocks}"):
        sequential_rows[max_blocks + 1, 32](cuda.to_device(np.zeros((2, 32 * (max_blocks + 1)),
                                                                    dtype=np.int32)))


def test_this_grid_takes_no_arguments():
    from cudakit.cuda import TypingError

    @cuda.jit
    def bad(x):
        cuda.cg.this_grid(1).sync()

    with pytest.raises(TypingError, match="this_grid"):
        bad[1, 1](cuda.device_array(1, np.int32))
