"""`for ... else` and `while ... else` in kernels: the else block runs when
the loop ends without a break; a break of a loop nested in it does not
count. Each thread searches its own random row; checked against the
interpreter running the same function."""

from __future__ import annotations

import numpy as np

from cudakit import cuda

from .interpreted import run_threads


@cuda.jit
def search_rows(rows, targets, found_at, sums, counts):
    i = cuda.grid(1)
    if i < rows.shape[0]:
        # for over range() with else: the index of the target, else -1
        for j in range(rows.shape[1]):
            if rows[i, j] == targets[i]:
                found_at[i, 0] = j
                break
        else:
            found_at[i, 0] = -1
        # for over an array, the else using the last loop variable
        total = 0
        for v in rows[i]:
            if v < 0:
                break
            total += v
        else:
            total += 1000 + v
        sums[i, 0] = total
        # for over enumerate(), with a nested loop whose break is its own
        seen = 0
        for k, v in enumerate(rows[i]):
            for m in range(3):
                if m == v % 3:
                    break
                seen += 1
            if v == targets[i] + 1:
                seen += 100
                break
        else:
            seen += 10000
        counts[i, 0] = seen
        # while ... else, its condition counting down
        n = rows.shape[1]
        while n > 0:
            n -= 1
            if rows[i, n] == targets[i]:
                found_at[i, 1] = n
                break
        else:
            found_at[i, 1] = -2
        # a loop with no iterations runs its else block
        for _ in range(0):
            break
        else:
            sums[i, 1] = 7
        # nested for ... else: the inner one's else is per outer iteration
        hits = 0
        for a in range(3):
            for b in range(rows.shape[1]):
                if rows[i, b] == a:
                    break
            else:
                hits += 1
        else:
            hits += 10
        counts[i, 1] = hits


def test_loop_else_blocks_match_the_interpreter():
    rng = np.random.default_rng(20)
    threads, width = 37, 9
    rows = rng.integers(-2, 6, size=(threads, width)).astype(np.int64)
    targets = rng.integers(0, 7, size=threads).astype(np.int64)
    outputs = [np.full((threads, 2), 99, np.int64) for _ in range(3)]
    expected = run_threads(search_rows, threads, rows, targets, *outputs)
    got = [cuda.to_device(o) for o in outputs]
    search_rows[2, 32](cuda.to_device(rows), cuda.to_device(targets), *got)
    for name, want, device in zip(("found_at", "sums", "counts"), expected[2:], got):
        np.testing.assert_array_equal(device.copy_to_host(), want, err_msg=name)
    # (both branches ran: some rows hold their target, some do not)
    assert 0 < (expected[2][:, 0] == -1).sum() < threads
