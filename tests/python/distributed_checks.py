"""cudakit.distributed's collectives, run by tests/python/test_distributed.py
in child processes (the CPU backend's device count is read once per
process): each collective against numpy on fresh random input of odd sizes,
and bad input. `python distributed_checks.py NAME [ARGS]` runs one check and
prints "ok"."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from typing import Any, Callable

import numpy as np

import cudakit.autoinit  # noqa: F401
from cudakit import cuda, distributed as dist, gpuarray as ga
from cudakit import _core

RNG = np.random.default_rng()
N = 1001  # not a multiple of any block size


def random(shape: Any, dtype: Any) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(1, 9, size=shape).astype(dtype)
    return RNG.uniform(0.5, 2.0, size=shape).astype(dtype)


def on(device: int, make: Callable[[], Any]) -> Any:
    with cuda.gpus[device]:
        return make()


def upload(hosts: list[np.ndarray], kind: str = "gpuarray") -> list[Any]:
    to_device = ga.to_gpu if kind == "gpuarray" else cuda.to_device
    return [on(i, lambda h=h: to_device(h)) for i, h in enumerate(hosts)]


def host(array: Any) -> np.ndarray:
    return array.get() if isinstance(array, ga.GPUArray) else array.copy_to_host()


def reference(op: str, hosts: list[np.ndarray]) -> np.ndarray:
    """The reduction in rank order, in the arrays' dtype, as the ranks compute it."""
    result = hosts[0].copy()
    for h in hosts[1:]:
        if op in ("sum", "avg"):
            result = result + h
        elif op == "prod":
            result = result * h
        elif op == "max":
            result = np.maximum(result, h)
        else:
            result = np.minimum(result, h)
    if op == "avg":
        result = result / np.asarray(len(hosts), result.dtype)
    return result.astype(hosts[0].dtype)


def close(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)


def local_collectives(ndev: int) -> None:
    comms = dist.Communicator.local(list(range(ndev)), timeout=30)
    assert len(comms) == ndev and [c.rank for c in comms] == list(range(ndev))
    assert all(c.size == ndev for c in comms)
    cases = [("sum", np.float32), ("prod", np.float64), ("max", np.int32), ("min", np.int64),
             ("avg", np.float32), ("sum", np.uint8)]
    for op, dtype in cases:
        hosts = [random(N, dtype) for _ in range(ndev)]
        # In place, on GPUArrays.
        arrays = upload(hosts)
        results = comms.all_reduce(arrays, op=op)
        comms.synchronize()
        assert all(r is a for r, a in zip(results, arrays))
        for a in arrays:
            close(host(a), reference(op, hosts))
        # Into out=, on cudakit.cuda device arrays; the inputs stay as they were.
        arrays = upload(hosts, "device")
        outs = [on(i, lambda: cuda.device_array(N, dtype)) for i in range(ndev)]
        comms.all_reduce(arrays, out=outs, op=op)
        comms.synchronize()
        for a, o, h in zip(arrays, outs, hosts):
            close(host(o), reference(op, hosts))
            close(host(a), h)
    # reduce to the last rank: only its buffer changes.
    hosts = [random((7, 11), np.float32) for _ in range(ndev)]
    arrays = upload(hosts)
    comms.reduce(arrays, op="max", root=ndev - 1)
    comms.synchronize()
    for i, a in enumerate(arrays):
        close(host(a), reference("max", hosts) if i == ndev - 1 else hosts[i])
    # broadcast from rank 1.
    hosts = [random(N, np.int32) for _ in range(ndev)]
    arrays = upload(hosts)
    comms.broadcast(arrays, root=1)
    comms.synchronize()
    for a in arrays:
        close(host(a), hosts[1])
    # all_gather: a new (size, *shape) array per rank.
    hosts = [random((3, 5), np.float64) for _ in range(ndev)]
    gathered = comms.all_gather(upload(hosts))
    comms.synchronize()
    for g in gathered:
        close(host(g), np.stack(hosts))
    # reduce_scatter: rank r gets the sum of every rank's block r.
    k = 333
    hosts = [random((ndev * k,), np.float32) for _ in range(ndev)]
    parts = comms.reduce_scatter(upload(hosts))
    comms.synchronize()
    total = reference("sum", hosts)
    for r, p in enumerate(parts):
        close(host(p), total[r * k:(r + 1) * k])
    # all_to_all: block p of rank r goes to rank p, as block r.
    hosts = [random((ndev * k,), np.int64) for _ in range(ndev)]
    swapped = comms.all_to_all(upload(hosts, "device"))
    comms.synchronize()
    assert all(isinstance(s, type(cuda.device_array(1))) for s in swapped)
    for p, s in enumerate(swapped):
        close(host(s), np.concatenate([hosts[r][p * k:(p + 1) * k] for r in range(ndev)]))
    # send / recv around a ring, in one group.
    hosts = [random(N, np.float32) for _ in range(ndev)]
    sends = upload(hosts)
    recvs = [on(i, lambda: ga.empty(N, np.float32)) for i in range(ndev)]
    with dist.group():
        for r in range(ndev):
            comms[r].send(sends[r], (r + 1) % ndev)
            comms[r].recv(recvs[r], (r - 1) % ndev)
    comms.synchronize()
    for r in range(ndev):
        close(recvs[r].get(), hosts[(r - 1) % ndev])
    print("ok")


def bad_input() -> None:
    comms = dist.Communicator.local([0, 1], timeout=1)
    x = upload([random(N, np.float32) for _ in range(2)])

    def refused(error: type, text: str, call: Callable[[], Any]) -> None:
        try:
            call()
        except error as e:
            assert text in str(e), f"{text!r} not in {e}"
            return
        raise SystemExit(f"accepted: {text}")

    refused(TypeError, "numpy array, in host memory", lambda: comms[0].all_reduce(np.ones(3)))
    refused(TypeError, "must be a device array", lambda: comms[0].all_reduce([1.0, 2.0]))
    refused(ValueError, "is not C-contiguous", lambda: comms[0].all_reduce(x[0][::2]))
    refused(ValueError, "op must be one of 'sum'", lambda: comms[0].all_reduce(x[0], op="mean"))
    refused(_core.ArgumentError, "avg is defined for floating-point dtypes only",
            lambda: comms[0].all_reduce(on(0, lambda: ga.zeros(4, np.int32)), op="avg"))
    small = on(0, lambda: ga.empty(10, np.float32))
    refused(_core.ArgumentError, "holds 10 elements; the operation needs 1001",
            lambda: comms[0].all_reduce(x[0], out=small))
    refused(_core.ArgumentError, "but this rank's device is",
            lambda: comms[0].all_reduce(x[1]))
    refused(_core.ArgumentError, "root 2 is outside 0..1",
            lambda: comms[0].broadcast(x[0], root=2))
    refused(ValueError, "does not split into 2 equal blocks",
            lambda: comms[0].reduce_scatter(on(0, lambda: ga.zeros(5, np.float32))))
    refused(ValueError, "has 1 entries; this communicator has 2 ranks",
            lambda: comms.all_reduce([x[0]]))
    refused(TypeError, "must be a list with one entry per device",
            lambda: comms.all_reduce(x[0]))
    refused(TypeError, "unique_id must be the bytes get_unique_id() returned",
            lambda: dist.Communicator(2, "not bytes", 0))
    refused(TypeError, "a Communicator cannot be pickled", lambda: pickle.dumps(comms[0]))
    # Rank 1 never posts: rank 0's wait ends after the timeout, naming it.
    comms[0].all_reduce(x[0])
    try:
        comms[0].synchronize()
        raise SystemExit("rank 1 never came, yet no error")
    except dist.CommunicatorError as e:
        assert e.missing_ranks == [1] and "rank 1 did not arrive within 1 s" in str(e), e
    # The ranks disagree: rank 1 posts another count (a new communicator: the
    # one above is out of step after its failure, as NCCL's would be).
    comms = dist.Communicator.local([0, 1], timeout=1)
    y = on(1, lambda: ga.zeros(7, np.float32))
    with dist.group():
        comms[0].all_reduce(x[0])
        comms[1].all_reduce(y)
    try:
        comms.synchronize()
        raise SystemExit("ranks with different counts, yet no error")
    except dist.CommunicatorError as e:
        assert "1001" in str(e) and "7" in str(e), e
    print("ok")


RANK_1 = """
import sys, numpy as np
sys.path.insert(0, {here!r})
import cudakit.autoinit
from cudakit import distributed as dist, gpuarray as ga
comm = dist.Communicator(2, bytes.fromhex({uid!r}), 1, timeout=30)
x = ga.to_gpu(np.load({path!r})[1])
comm.all_reduce(x, op="sum")
comm.broadcast(x, root=0)
comm.synchronize()
np.save({out!r}, x.get())
"""


def two_processes(folder: str) -> None:
    """Rank 0 here, rank 1 in another process: the id's hub lives here."""
    uid = dist.get_unique_id()
    assert isinstance(uid, bytes) and len(uid) == 128
    hosts = np.stack([random(N, np.float32) for _ in range(2)])
    path, out = os.path.join(folder, "inputs.npy"), os.path.join(folder, "rank1.npy")
    np.save(path, hosts)
    code = RANK_1.format(here=os.path.dirname(__file__), uid=uid.hex(), path=path, out=out)
    child = subprocess.Popen([sys.executable, "-c", code])
    comm = dist.Communicator(2, uid, 0, timeout=30)
    assert comm.rank == 0 and comm.size == 2
    x = ga.to_gpu(hosts[0])
    comm.all_reduce(x, op="sum")
    comm.broadcast(x, root=0)
    comm.synchronize()
    assert child.wait(timeout=120) == 0
    close(x.get(), hosts[0] + hosts[1])
    close(np.load(out), hosts[0] + hosts[1])
    print("ok")


def _check_timeout_error(text: str, operation: str, took: float) -> None:
    assert 1.5 <= took < 20, took
    for part in (operation, "rank 0 of 1", "within 2 s", "did not arrive", "aborted",
                 "create()", "CUDAKIT_COMM_TIMEOUT"):
        assert part in text, (part, text)


def _check_aborted_then_new_one_works(comm: Any) -> None:
    x = ga.to_gpu(random((16,), np.float32))
    try:
        comm.all_reduce(x)
        raise AssertionError("an aborted communicator took another collective")
    except dist.CommunicatorError as e:
        assert "aborted earlier" in str(e), str(e)
    comm.synchronize()  # the error was raised once
    fresh = dist.Communicator(1, dist.get_unique_id(), 0)
    data = random((N,), np.float32)
    y = ga.to_gpu(data)
    fresh.all_reduce(y)
    fresh.synchronize()
    np.testing.assert_array_equal(y.get(), data)


def late_collective() -> None:
    """On a GPU: an all_reduce stuck behind a kernel spinning on a host flag
    is not done within timeout=2; the watchdog aborts the communicator and
    synchronize raises CommunicatorError once the stream moves again, as
    does the next call; a new communicator on the same device works."""
    import time

    import cudakit.driver as drv
    from cudakit.compiler import SourceModule

    spin = SourceModule("""
extern "C" __global__ void spin_until_set(volatile int* flag) {
  while (*flag == 0) {
  }
}""", no_extern_c=True).get_function("spin_until_set")
    flag = drv.pagelocked_zeros(1, np.int32, mem_flags=drv.host_alloc_flags.DEVICEMAP)
    comm = dist.Communicator(1, dist.get_unique_id(), 0, timeout=2)
    x = ga.to_gpu(random((N,), np.float32))
    start = time.monotonic()
    try:
        spin(np.intp(flag.base.get_device_pointer()), block=(1, 1, 1), grid=(1, 1))
        comm.all_reduce(x)  # the same (default) stream: behind the spinning kernel
        time.sleep(4)  # the watchdog fires at 2 s
    finally:
        flag[0] = 1
    try:
        comm.synchronize()
        raise AssertionError("the late all_reduce was not reported")
    except dist.CommunicatorError as e:
        _check_timeout_error(str(e), f"all_reduce of {N} float32", time.monotonic() - start)
    _check_aborted_then_new_one_works(comm)
    print("ok")


def recv_timeout() -> None:
    """On a GPU: a receive no rank sends to (a 1-rank communicator, from peer
    0) would hang NCCL's kernel; with timeout=2 the watchdog aborts it and
    synchronize raises CommunicatorError, as does the next call. Recent NCCL
    refuses such a receive at the call instead: then this prints "refused"."""
    import time

    comm = dist.Communicator(1, dist.get_unique_id(), 0, timeout=2)
    x = ga.to_gpu(random((16,), np.float32))
    start = time.monotonic()
    try:
        comm.recv(x, peer=0)
    except dist.CommunicatorError as e:
        print("refused:", str(e).replace("\n", " "))
        return
    try:
        comm.synchronize()
        raise AssertionError("the receive with no sender completed: NCCL did not hang")
    except dist.CommunicatorError as e:
        _check_timeout_error(str(e), "recv of 16 float32 from peer 0", time.monotonic() - start)
    _check_aborted_then_new_one_works(comm)
    print("ok")


if __name__ == "__main__":
    name, *args = sys.argv[1:]
    if name == "local_collectives":
        local_collectives(int(args[0]))
    elif name == "bad_input":
        bad_input()
    elif name == "recv_timeout":
        recv_timeout()
    elif name == "late_collective":
        late_collective()
    else:
        two_processes(args[0])
