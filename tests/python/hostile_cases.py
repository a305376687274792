"""Table-driven hostile-input tests: one Case per bad call, so the next case
is one line. ``check_refused(case)`` runs it and asserts the error class and
that the message matches (a regex searched in str(error), hint included)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest


@dataclass(frozen=True)
class Case:
    name: str
    run: Callable[..., Any]  # no arguments, or the fixtures a module's table passes
    error: type[BaseException] | tuple[type[BaseException], ...]
    message: str


def check_refused(case: Case) -> None:
    with pytest.raises(case.error, match=case.message):
        case.run()


def case_id(case: Case) -> str:
    return case.name
