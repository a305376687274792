"""cudakit.distributed: NCCL's collectives on cudakit's arrays. On the CPU
backend (child processes with 2 and 4 virtual devices, and two processes
through the hub of get_unique_id()): every collective against numpy on fresh
random input, in place and into out=, on GPUArrays and cudakit.cuda device
arrays, and bad input (distributed_checks.py). In this process, on whatever
backend runs the suite (NCCL on a GPU): a one-rank communicator's round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
from child_process import checked, run_python
from cudakit import cuda, distributed as dist, gpuarray as ga
from gpuarray_helpers import random_array

CHECKS = str(Path(__file__).with_name("distributed_checks.py"))


@pytest.mark.parametrize("devices", [2, 4])
def test_collectives_on_virtual_devices_of_one_process(devices: int) -> None:
    out = checked(run_python([CHECKS, "local_collectives", str(devices)],
                             CUDAKIT_BACKEND="cpu", CUDAKIT_CPU_DEVICES=str(devices)))
    assert out.strip().endswith("ok")


def test_two_processes_through_the_hub(tmp_path: Path) -> None:
    out = checked(run_python([CHECKS, "two_processes", str(tmp_path)], CUDAKIT_BACKEND="cpu"))
    assert out.strip().endswith("ok")


def test_bad_input_is_refused_with_the_reason() -> None:
    out = checked(run_python([CHECKS, "bad_input"], CUDAKIT_BACKEND="cpu",
                             CUDAKIT_CPU_DEVICES="2"))
    assert out.strip().endswith("ok")


@pytest.mark.gpu
def test_a_collective_not_done_within_the_timeout_is_aborted_and_raised() -> None:
    # In a child process with a 60 s limit: a regression (a hang) fails here.
    out = checked(run_python([CHECKS, "late_collective"], timeout=60))
    assert out.strip().endswith("ok")


@pytest.mark.gpu
def test_a_recv_no_rank_sends_to_times_out_and_a_new_communicator_works() -> None:
    out = checked(run_python([CHECKS, "recv_timeout"], timeout=60)).strip()
    if out.startswith("refused:"):
        pytest.skip(f"NCCL refuses a receive from self without a send (nothing hangs): {out}")
    assert out.endswith("ok")


def test_one_rank_round_trip() -> None:
    comm = dist.Communicator(1, dist.get_unique_id(), 0, timeout=30)
    assert (comm.rank, comm.size) == (0, 1) and comm.timeout == 30
    x = random_array(1001, np.float32)
    g = ga.to_gpu(x)
    assert comm.all_reduce(g, op="max") is g
    gathered = comm.all_gather(g)
    d = cuda.to_device(x.astype(np.float64))
    comm.broadcast(d, root=0)
    parts = comm.reduce_scatter(cuda.to_device(x[:1000]))
    comm.synchronize()
    np.testing.assert_array_equal(g.get(), x)
    np.testing.assert_array_equal(gathered.get(), x[None, :])
    np.testing.assert_array_equal(d.copy_to_host(), x.astype(np.float64))
    np.testing.assert_array_equal(parts.copy_to_host(), x[:1000])
    assert "rank 0 of 1" in repr(comm)
