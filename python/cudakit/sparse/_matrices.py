"""The sparse matrices cudakit.sparse takes, without needing scipy: a scipy
sparse matrix (anything with ``tocoo()``), a dense 2-D numpy array, or a
``CooMatrix``; held as COO or CSR arrays in numpy."""

from __future__ import annotations

from typing import Any

import numpy as np


class CooMatrix:
    """Coordinate form: ``data[k]`` at ``(row[k], col[k])``; duplicates add."""

    def __init__(self, data: Any, row: Any, col: Any, shape: tuple[int, int],
                 dtype: Any = None) -> None:
        self.data = np.asarray(data, dtype=dtype)
        self.row = np.asarray(row, dtype=np.int64)
        self.col = np.asarray(col, dtype=np.int64)
        self.shape = (int(shape[0]), int(shape[1]))
        if not (self.data.ndim == self.row.ndim == self.col.ndim == 1
                and len(self.data) == len(self.row) == len(self.col)):
            raise ValueError("CooMatrix: data, row and col must be 1-d and of one length, got "
                             f"{self.data.shape}, {self.row.shape}, {self.col.shape}")
        if len(self.row) and (self.row.min() < 0 or self.row.max() >= self.shape[0]
                              or self.col.min() < 0 or self.col.max() >= self.shape[1]):
            raise ValueError(f"CooMatrix: an index lies outside the shape {self.shape}")

    @property
    def nnz(self) -> int:
        return len(self.data)

    def tocoo(self) -> CooMatrix:
        return self


class CsrMatrix:
    """Compressed rows: row i's entries are ``indices/data[indptr[i]:indptr[i+1]]``."""

    def __init__(self, coo: CooMatrix) -> None:
        order = np.lexsort((coo.col, coo.row))
        self.shape = coo.shape
        self.indices = coo.col[order]
        self.data = coo.data[order]
        counts = np.bincount(coo.row, minlength=coo.shape[0])
        self.indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

    @property
    def nnz(self) -> int:
        return len(self.data)

    def symmetric_pattern(self) -> CsrMatrix:
        """The pattern of A + A^T (values 1): an undirected adjacency graph."""
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        pairs = np.unique(np.stack([np.concatenate([rows, self.indices]),
                                    np.concatenate([self.indices, rows])]), axis=1)
        return CsrMatrix(CooMatrix(np.ones(pairs.shape[1]), pairs[0], pairs[1], self.shape))


def as_coo(mat: Any, dtype: Any, use: str) -> CooMatrix:
    """``mat`` (scipy sparse, dense 2-D array or CooMatrix) in COO form, as ``dtype``."""
    if hasattr(mat, "tocoo"):
        coo = mat.tocoo()
        shape = tuple(coo.shape)
        if len(shape) != 2:
            raise ValueError(f"{use}: expected a 2-d matrix, got shape {shape}")
        return CooMatrix(np.asarray(coo.data).astype(dtype), coo.row, coo.col, shape)
    if isinstance(mat, np.ndarray) or isinstance(mat, (list, tuple)):
        dense = np.asarray(mat)
        if dense.ndim != 2:
            raise ValueError(f"{use}: expected a 2-d matrix, got shape {dense.shape}")
        row, col = np.nonzero(dense)
        return CooMatrix(dense[row, col].astype(dtype), row, col, dense.shape)
    raise TypeError(f"{use}: expected a scipy sparse matrix, a dense 2-d numpy array or a "
                    f"cudakit.sparse CooMatrix, got {type(mat).__name__}")


def as_csr(mat: Any, dtype: Any, use: str) -> CsrMatrix:
    return CsrMatrix(as_coo(mat, dtype, use))
