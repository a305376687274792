"""The package and its extension import (with or without a GPU)."""

import cudakit


def test_import_has_core_and_version() -> None:
    assert cudakit.__version__
    assert cudakit._core.__doc__
