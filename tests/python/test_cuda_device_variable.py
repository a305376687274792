"""CUDA_DEVICE (PyCUDA's variable): the device `import cudakit.autoinit` and
cudakit.tools.make_default_context() use; a bad value is an error that names
the variable, the value and the valid range (README, Choosing a device)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from child_process import run_code

PROGRAM = """
import cudakit.driver as drv
try:
    import cudakit.autoinit as autoinit
except drv.ArgumentError as error:
    print("ArgumentError:", error)
else:
    print("device", autoinit.device.pci_bus_id(), "of", drv.Device.count())
    expected = drv.Device(int(__import__("os").environ.get("CUDA_DEVICE", "0")))
    print("same as Device(n):", autoinit.device.pci_bus_id() == expected.pci_bus_id())
"""


@dataclass
class Case:
    name: str
    value: str | None
    output: str


# Two devices on the CPU backend whatever the machine has; on a GPU machine
# the same cases with CUDAKIT_BACKEND unset would use its GPUs.
CASES = [
    Case("unset: device 0", None, r"same as Device\(n\): True"),
    Case("device 1", "1", r"same as Device\(n\): True"),
    Case("out of range", "7", r"ArgumentError: CUDA_DEVICE='7': there is no device 7 "
                              r"\(2 visible\): set it to 0\.\.1"),
    Case("negative", "-1", r"ArgumentError: CUDA_DEVICE='-1': there is no device -1 "
                           r"\(2 visible\): set it to 0\.\.1"),
    Case("not a number", "first", r"ArgumentError: CUDA_DEVICE='first' is not a device number: "
                                  r"set it to 0\.\.1"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_cuda_device_picks_autoinits_device_or_says_the_range(case: Case, monkeypatch) -> None:
    monkeypatch.delenv("CUDA_DEVICE", raising=False)
    env = {"CUDAKIT_BACKEND": "cpu", "CUDAKIT_CPU_DEVICES": "2"}
    if case.value is not None:
        env["CUDA_DEVICE"] = case.value
    result = run_code(PROGRAM, **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(case.output, result.stdout), result.stdout
