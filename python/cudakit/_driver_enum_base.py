"""Bases of cudakit.driver's enums, behaving as PyCUDA's (Boost.Python) ones.

A member is an int with the driver's value; ``repr`` is the qualified name
(``cudakit.driver.limit.STACK_SIZE``, as PyCUDA's
``pycuda._driver.limit.STACK_SIZE``), ``str`` the bare name, and the class has
Boost.Python's ``names`` ({name: member}) and ``values`` ({int: member}).
"""

from __future__ import annotations

import enum
from typing import Any


class DriverEnum(enum.IntEnum):
    def __repr__(self) -> str:
        return f"cudakit.driver.{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(int(self), spec) if spec else self.name


def _boost_dicts(cls: type[DriverEnum]) -> None:
    type.__setattr__(cls, "names", dict(cls.__members__))
    type.__setattr__(cls, "values", {int(m): m for m in cls})


class FlagConstants:
    """PyCUDA's flag classes (host_alloc_flags, ...): int class attributes,
    combined with ``|``."""

    def __init__(self) -> None:
        raise TypeError(f"{type(self).__name__} holds constants (e.g. "
                        f"{type(self).__name__}.PORTABLE); it is not instantiated")


def finish(namespace: dict[str, Any]) -> None:
    """Adds ``names`` / ``values`` to every DriverEnum of a module."""
    for value in list(namespace.values()):
        if isinstance(value, type) and issubclass(value, DriverEnum) and value is not DriverEnum:
            _boost_dicts(value)
