"""numba-cuda's public module layout under cudakit.cuda: `core.config`,
`core.errors` (a program's `except errors.TypingError` catches cudakit's
typing errors) and the HAS_NUMBA flag."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda.core import config, errors


def test_config_and_flags() -> None:
    import importlib

    assert config is cuda.config
    assert importlib.import_module("cudakit.cuda.core.config") is cuda.config
    assert config.ENABLE_CUDASIM is False
    assert cuda.HAS_NUMBA is False


def test_a_typing_error_is_caught_under_numbas_name() -> None:
    @cuda.jit
    def adds_a_string(out):  # type: ignore[no-untyped-def]
        out[0] = out[0] + "x"

    with pytest.raises(errors.TypingError):
        adds_a_string[1, 1](cuda.to_device(np.zeros(1)))
    assert issubclass(errors.TypingError, errors.NumbaError)
    assert issubclass(errors.TypingError, TypeError)
