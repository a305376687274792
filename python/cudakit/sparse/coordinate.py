"""Sparse matrix-vector product from coordinate (COO) form (PyCUDA's
``pycuda.sparse.coordinate``; ported from PyCUDA 2026.1, MIT license,
Copyright (C) Andreas Kloeckner).

PyCUDA's flat kernel reads x through a texture reference (gone in CUDA 12)
and reduces warp-synchronously; this one gives each thread nonzeros of its
grid-stride range and adds ``V[n] * x[J[n]]`` to ``y[I[n]]`` with
``atomicAdd`` (so sums of one row may add in any order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import gpuarray
from ..compiler import SourceModule
from ..tools import DeviceData, dtype_to_ctype
from ._matrices import CooMatrix, as_coo  # noqa: F401  (CooMatrix: for users)
from ._memoize import memoize_method

COO_FLAT_KERNEL_TEMPLATE = """
typedef %(value_type)s value_type;
typedef %(index_type)s index_type;

extern "C" __global__ void
spmv_coo_flat_kernel(const index_type num_nonzeros,
                     const index_type *I,
                     const index_type *J,
                     const value_type *V,
                     const value_type *x,
                           value_type *y)
{
  for (index_type n = blockIdx.x * blockDim.x + threadIdx.x; n < num_nonzeros;
       n += blockDim.x * gridDim.x)
    atomicAdd(y + I[n], V[n] * x[J[n]]);
}
"""


def check_vector(x: Any, length: int, dtype: np.dtype, use: str) -> None:
    """x must be a GPUArray of ``length`` elements of ``dtype``."""
    if not isinstance(x, gpuarray.GPUArray):
        raise TypeError(f"{use}: expected a GPUArray, got {type(x).__name__} "
                        "(gpuarray.to_gpu(a) copies a numpy array)")
    if x.shape != (length,) or x.dtype != dtype:
        raise ValueError(f"{use}: expected a GPUArray of shape ({length},) and dtype {dtype}, "
                         f"got shape {x.shape} and dtype {x.dtype}")


def checked_operands(spmv: Any, x: Any, y: Any, use: str) -> Any:
    """Checks x (spmv.shape[1] elements of spmv.dtype) and y (shape[0]);
    returns y, or a new zeroed one when it is None."""
    check_vector(x, spmv.shape[1], spmv.dtype, use)
    if y is None:
        return gpuarray.zeros(spmv.shape[0], dtype=spmv.dtype, allocator=x.allocator)
    check_vector(y, spmv.shape[0], spmv.dtype, f"{use} (y)")
    return y


class CoordinateSpMV:
    """``spmv(x, y=None)``: y += A x (y new and zeroed when not given)."""

    def __init__(self, mat: Any, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise TypeError(f"CoordinateSpMV: dtype must be float32 or float64 (atomicAdd), "
                            f"got {self.dtype}")
        self.index_dtype = np.dtype(np.int32)
        coo_mat = as_coo(mat, self.dtype, "CoordinateSpMV")
        self.shape = coo_mat.shape
        self.block_size = 128
        self.nnz = coo_mat.nnz
        if self.nnz >= 2**31:
            raise ValueError(f"CoordinateSpMV: {self.nnz} nonzeros; int32 indices hold < 2**31")
        self.row_gpu = gpuarray.to_gpu(coo_mat.row.astype(self.index_dtype))
        self.col_gpu = gpuarray.to_gpu(coo_mat.col.astype(self.index_dtype))
        self.data_gpu = gpuarray.to_gpu(coo_mat.data)
        devdata = DeviceData()
        max_blocks = 4 * devdata.warps_per_mp * devdata.warp_size // self.block_size
        self.num_blocks = max(1, min(max_blocks, -(-self.nnz // self.block_size)))

    @memoize_method
    def get_flat_kernel(self) -> Any:
        mod = SourceModule(COO_FLAT_KERNEL_TEMPLATE % {
            "value_type": dtype_to_ctype(self.dtype),
            "index_type": dtype_to_ctype(self.index_dtype)}, no_extern_c=True)
        func = mod.get_function("spmv_coo_flat_kernel")
        func.prepare(self.index_dtype.char + "PPPPP")
        return func

    def __call__(self, x: Any, y: Any = None) -> Any:
        y = checked_operands(self, x, y, "CoordinateSpMV")
        if self.nnz == 0:
            return y
        self.get_flat_kernel().prepared_call(
            (self.num_blocks, 1), (self.block_size, 1, 1), self.nnz, self.row_gpu.gpudata,
            self.col_gpu.gpudata, self.data_gpu.gpudata, x.gpudata, y.gpudata)
        return y
