"""numba.cuda's warp intrinsics in kernels: the votes (all_sync, any_sync,
eq_sync, ballot_sync), match_any_sync / match_all_sync, the shuffles on
every type numba.cuda takes (int32, int64, float32, float64), activemask and
lanemask_lt, checked against a per-warp Python reference on fresh random
inputs. Launches use whole warps and a partial last block."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda

RNG = np.random.default_rng()
WARP = 32
N = 3 * WARP  # three warps: blocks of 64, the last one half full


def launch(kernel, *arrays):  # type: ignore[no-untyped-def]
    device = [cuda.to_device(a) for a in arrays]
    kernel[(N + 63) // 64, 64](*device)
    return [d.copy_to_host() for d in device]


def warps(values: np.ndarray) -> list[np.ndarray]:
    return [values[w:w + WARP] for w in range(0, len(values), WARP)]


@cuda.jit
def vote_kernel(x, all_out, any_out, eq_out, ballot_out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        predicate = x[i] > 0
        all_out[i] = cuda.all_sync(0xFFFFFFFF, predicate)
        any_out[i] = cuda.any_sync(0xFFFFFFFF, predicate)
        eq_out[i] = cuda.eq_sync(0xFFFFFFFF, predicate)
        ballot_out[i] = cuda.ballot_sync(0xFFFFFFFF, predicate)


@pytest.mark.parametrize("pattern", ["random", "all true", "all false", "one true"])
def test_votes_match_a_per_warp_reference(pattern):  # type: ignore[no-untyped-def]
    x = RNG.integers(-5, 5, N).astype(np.int32)
    if pattern == "all true":
        x[:] = RNG.integers(1, 5, N)
    elif pattern == "all false":
        x[:] = RNG.integers(-5, 1, N)
    elif pattern == "one true":
        x[:] = 0
        x[RNG.integers(0, N)] = 1
    outs = [np.zeros(N, np.int32) for _ in range(3)] + [np.zeros(N, np.uint32)]
    (_, all_out, any_out, eq_out, ballot_out) = launch(vote_kernel, x, *outs)
    for w, warp in enumerate(warps(x > 0)):
        lanes = slice(w * WARP, (w + 1) * WARP)
        ballot = sum(1 << lane for lane in range(WARP) if warp[lane])
        assert (all_out[lanes] == int(warp.all())).all()
        assert (any_out[lanes] == int(warp.any())).all()
        assert (eq_out[lanes] == int(warp.all() or not warp.any())).all()
        assert (ballot_out[lanes] == ballot).all()


@cuda.jit
def match_kernel(x, any_out, all_out, all_pred):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        any_out[i] = cuda.match_any_sync(0xFFFFFFFF, x[i])
        mask, pred = cuda.match_all_sync(0xFFFFFFFF, x[i])
        all_out[i] = mask
        all_pred[i] = pred


MATCH_DTYPES = [np.int32, np.int64, np.float32, np.float64]


@pytest.mark.parametrize("dtype", MATCH_DTYPES, ids=lambda d: np.dtype(d).name)
def test_match_any_and_all(dtype):  # type: ignore[no-untyped-def]
    x = RNG.integers(-2, 2, N).astype(dtype)  # few distinct values: real groups
    x[WARP:2 * WARP] = x[WARP]  # the second warp all equal
    if np.dtype(dtype).kind == "f":
        x[0] = -0.0  # matched by bits, as CUDA's match: -0.0 is not 0.0
    outs = [np.zeros(N, np.int32), np.zeros(N, np.int32), np.zeros(N, np.bool_)]
    (_, any_out, all_out, all_pred) = launch(match_kernel, x, *outs)
    for w, warp in enumerate(warps(x)):
        bits = warp.view(np.uint32 if warp.itemsize == 4 else np.uint64)
        same_all = bool((bits == bits[0]).all())
        for lane in range(WARP):
            i = w * WARP + lane
            expected = sum(1 << other for other in range(WARP) if bits[other] == bits[lane])
            assert int(any_out[i]) & 0xFFFFFFFF == expected
            assert int(all_out[i]) & 0xFFFFFFFF == (0xFFFFFFFF if same_all else 0)
            assert bool(all_pred[i]) == same_all


@cuda.jit
def shuffle_kernel(x, idx_out, up_out, down_out, xor_out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        lane = cuda.laneid
        idx_out[i] = cuda.shfl_sync(0xFFFFFFFF, x[i], (lane * 7 + 3) % 32)
        up_out[i] = cuda.shfl_up_sync(0xFFFFFFFF, x[i], 3)
        down_out[i] = cuda.shfl_down_sync(0xFFFFFFFF, x[i], 5)
        xor_out[i] = cuda.shfl_xor_sync(0xFFFFFFFF, x[i], 9)


@pytest.mark.parametrize("dtype", MATCH_DTYPES, ids=lambda d: np.dtype(d).name)
def test_shuffles_on_every_type_numba_takes(dtype):  # type: ignore[no-untyped-def]
    if np.dtype(dtype).kind == "f":
        x = RNG.standard_normal(N).astype(dtype)
        x[:3] = [np.nan, -np.inf, -0.0]
    else:
        info = np.iinfo(dtype)
        x = RNG.integers(info.min, info.max, N, dtype=dtype)
        x[:3] = [info.min, -1, 0]
    outs = [np.zeros(N, dtype) for _ in range(4)]
    (_, idx_out, up_out, down_out, xor_out) = launch(shuffle_kernel, x, *outs)
    for w in range(0, N, WARP):
        for lane in range(WARP):
            i = w + lane
            np.testing.assert_array_equal(idx_out[i], x[w + (lane * 7 + 3) % 32])
            np.testing.assert_array_equal(up_out[i], x[w + (lane - 3 if lane >= 3 else lane)])
            np.testing.assert_array_equal(down_out[i], x[w + (lane + 5 if lane + 5 < 32
                                                              else lane)])
            np.testing.assert_array_equal(xor_out[i], x[w + (lane ^ 9)])


@cuda.jit
def mask_kernel(active, below, sleeping):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < active.size:
        active[i] = cuda.activemask()
        below[i] = cuda.lanemask_lt()
        cuda.nanosleep(np.uint32(10))
        sleeping[i] = cuda.laneid


def test_activemask_and_lanemask_lt():
    outs = [np.zeros(N, np.uint32), np.zeros(N, np.uint32), np.zeros(N, np.int32)]
    (active, below, lanes) = launch(mask_kernel, *outs)
    assert (active == 0xFFFFFFFF).all()
    np.testing.assert_array_equal(lanes, np.arange(N) % WARP)
    np.testing.assert_array_equal(below, (1 << (np.arange(N) % WARP)) - 1)


@cuda.jit
def branch_masks(out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i % 2 == 0:
        out[i] = cuda.activemask()
    else:
        out[i] = cuda.activemask()


def test_activemask_in_divergent_branches_as_numba_test_warp_ops():
    """Each branch sees only its own lanes (numba-cuda's test_activemask)."""
    out = np.zeros(WARP, np.uint32)
    dout = cuda.to_device(out)
    branch_masks[1, WARP](dout)
    np.testing.assert_array_equal(dout.copy_to_host(), np.tile([0x55555555, 0xAAAAAAAA], 16))

