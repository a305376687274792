"""Linear operators for the CG solver (PyCUDA's ``pycuda.sparse.operator``;
ported from PyCUDA 2026.1, MIT license, Copyright (C) Andreas Kloeckner)."""

from __future__ import annotations

from typing import Any


class OperatorBase:
    @property
    def dtype(self) -> Any:
        raise NotImplementedError

    @property
    def shape(self) -> tuple[int, int]:
        raise NotImplementedError


class IdentityOperator(OperatorBase):
    def __init__(self, dtype: Any, n: int) -> None:
        self.my_dtype = dtype
        self.n = n

    @property
    def dtype(self) -> Any:
        return self.my_dtype

    @property
    def shape(self) -> tuple[int, int]:
        return self.n, self.n

    def __call__(self, operand: Any) -> Any:
        return operand


class DiagonalPreconditioner(OperatorBase):
    """``operand * diagonal`` elementwise (give it the inverse of the
    matrix's diagonal, permuted as the operator's vectors are)."""

    def __init__(self, diagonal: Any) -> None:
        if getattr(diagonal, "ndim", None) != 1:
            raise ValueError("DiagonalPreconditioner: the diagonal must be a 1-d GPUArray, got "
                             f"{type(diagonal).__name__} of shape {getattr(diagonal, 'shape', '?')}")
        self.diagonal = diagonal

    @property
    def dtype(self) -> Any:
        return self.diagonal.dtype

    @property
    def shape(self) -> tuple[int, int]:
        n = self.diagonal.shape[0]
        return n, n

    def __call__(self, operand: Any) -> Any:
        return self.diagonal * operand
