"""The communicator bindings of cudakit._core (the layer cudakit.distributed
builds on), on the CPU backend in child processes: two virtual devices of
one process, and two processes through the hub of get_unique_id(), each
checked against numpy; bad input raises ArgumentError / CommunicatorError
naming what was wrong."""

from __future__ import annotations

from child_process import TWO_CPU_DEVICES, checked, run_code

# Uploads a random array per device; all_reduce in a group; checks; errors.
LOCAL = """
    import numpy as np
    import cudakit.driver as drv
    from cudakit import _core
    drv.init()
    n = 1001
    comms = _core.Communicator.local([0, 1], timeout=1.0)
    assert [c.rank for c in comms] == [0, 1] and comms[0].size == 2 and comms[0].timeout == 1.0
    rng = np.random.default_rng()
    hosts = [rng.standard_normal(n).astype(np.float32) for _ in range(2)]
    allocs = []
    for i in range(2):
        ctx = drv.Device(i).make_context()
        allocs.append(drv.to_device(hosts[i]))
        ctx.pop()
    _core.Communicator.group_start("cpu")
    for c, a in zip(comms, allocs):
        c.all_reduce(int(a), int(a), n, np.float32, "sum")
    _core.Communicator.group_end("cpu")
    for i in range(2):
        ctx = drv.Device(i).make_context()
        out = drv.from_device(allocs[i], (n,), np.float32)
        ctx.pop()
        np.testing.assert_allclose(out, hosts[0] + hosts[1], rtol=0, atol=1e-6)
    try:
        comms[0].all_reduce(int(allocs[0]), int(allocs[0]), n, np.int32, "avg")
        raise SystemExit("avg of int32 was accepted")
    except _core.ArgumentError as e:
        assert "avg is defined for floating-point dtypes only" in str(e), e
    try:
        comms[0].all_reduce(int(allocs[0]), int(allocs[0]), n, np.float32, "mean")
        raise SystemExit("op 'mean' was accepted")
    except _core.ArgumentError as e:
        assert "'mean'" in str(e), e
    comms[0].all_reduce(int(allocs[0]), int(allocs[0]), n, np.float32, "max")
    ctx = drv.Device(0).make_context()
    try:
        ctx.synchronize()
        raise SystemExit("rank 1 never came, yet no error")
    except _core.CommunicatorError as e:
        assert e.missing_ranks == [1], e.missing_ranks
        assert "rank 1 did not arrive within 1 s" in str(e), e
    finally:
        ctx.pop()
    print("ok")
"""

# Rank 0 makes the id, starts rank 1 in another process, both broadcast.
RANK = """
    import os, subprocess, sys
    import numpy as np
    import cudakit.driver as drv
    from cudakit import _core
    drv.init()
    n = 1001
    if "COMM_ID" in os.environ:
        rank, uid = 1, bytes.fromhex(os.environ["COMM_ID"])
    else:
        rank, uid = 0, _core.get_unique_id("cpu")
        assert isinstance(uid, bytes) and len(uid) == 128
        peer = subprocess.Popen([sys.executable, "-c", sys.argv[1]],
                                env={**os.environ, "COMM_ID": uid.hex()})
    comm = _core.Communicator.create(2, uid, rank, 0, timeout=30.0)
    data = np.random.default_rng(7).standard_normal(n)   # the same in both processes
    buf = drv.to_device(data if rank == 1 else np.zeros(n))
    comm.broadcast(int(buf), int(buf), n, np.float64, root=1)
    drv.Context.synchronize()
    assert (drv.from_device(buf, (n,), np.float64) == data).all()
    if rank == 0:
        assert peer.wait(timeout=60) == 0
    print("ok", rank)
"""


def test_local_all_reduce_and_errors_on_two_virtual_devices() -> None:
    assert checked(run_code(LOCAL, **TWO_CPU_DEVICES)).strip() == "ok"


def test_two_processes_broadcast_through_the_hub() -> None:
    import textwrap
    code = textwrap.dedent(RANK)
    out = checked(run_code(f"import sys; sys.argv[1:] = [{code!r}]\n" + code,
                           CUDAKIT_BACKEND="cpu"))
    assert out.split()[-2:] == ["ok", "0"], out
