"""A kernel launched through a dispatcher nobody keeps (`cuda.jit(f)[1, 1](...)`,
as Numba allows) runs; and a dispatcher with its cached launchers is freed by
the garbage collector once nothing else refers to it."""

from __future__ import annotations

import gc

import numpy as np

from cudakit import cuda


def triple(out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 3 * i + 1


def test_a_dispatcher_kept_by_nobody_launches() -> None:
    out = cuda.device_array(77, np.int64)
    cuda.jit(triple)[1, 128](out)  # the dispatcher is a temporary
    np.testing.assert_array_equal(out.copy_to_host(), 3 * np.arange(77) + 1)
    launcher = cuda.jit(triple)[3, 128]  # only the launcher is kept
    gc.collect()
    more = cuda.device_array(300, np.int64)
    launcher(more)
    np.testing.assert_array_equal(more.copy_to_host(), 3 * np.arange(300) + 1)


def test_an_unreferenced_dispatcher_and_its_launchers_are_collected() -> None:
    # In a child process: this suite's conftest keeps every kernel it sees
    # (it compiles their sources for sm_90 at the end).
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from child_process import checked, run_code

    out = checked(run_code("""
        import gc, weakref
        import numpy as np
        from cudakit import cuda

        def triple(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = 3 * i + 1

        def launched_three_times():
            dispatcher = cuda.jit(triple)
            out = cuda.device_array(10, np.int64)
            for _ in range(3):
                dispatcher[1, 32](out)  # caches a launcher that refers back to it
            assert (out.copy_to_host() == 3 * np.arange(10) + 1).all()
            return weakref.ref(dispatcher)

        gone = launched_three_times()
        gc.collect()
        print("collected" if gone() is None else "alive")
        """))
    assert out.strip() == "collected", out
