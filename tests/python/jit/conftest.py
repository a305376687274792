"""Every kernel source the tests generate is also compiled with NVRTC for
sm_90 at the end of the session (no GPU needed), so code that only the GPU
compiler would refuse is caught on machines without one."""

from __future__ import annotations

import pytest

from cudakit.cuda import Dispatcher

GENERATED: dict[str, str] = {}


def _nvrtc_available() -> bool:
    from cudakit import _core
    try:
        _core.jit_compile_for_gpu('extern "C" __global__ void k() {}', "compute_90")
    except Exception:  # noqa: BLE001
        return False
    return True


# Tests of PTX / LTO-IR output: NVRTC needs no GPU, but it must be there.
needs_nvrtc = pytest.mark.skipif(not _nvrtc_available(), reason="NVRTC is not available")


@pytest.fixture(autouse=True)
def collect_generated_sources():
    yield
    for dispatcher in list(_DISPATCHERS):
        for spec in dispatcher.overloads.values():
            GENERATED.setdefault(spec.translation.source, spec.translation.kernel_name)


_DISPATCHERS: list[Dispatcher] = []
_original_init = Dispatcher.__init__


def _recording_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    _original_init(self, *args, **kwargs)
    _DISPATCHERS.append(self)


Dispatcher.__init__ = _recording_init  # type: ignore[method-assign]
