"""PyCUDA's ``pycuda.sparse`` on cudakit: sparse matrix-vector products
(``coordinate.CoordinateSpMV``, ``packeted.PacketedSpMV``), a conjugate
gradient solver (``cg.solve_pkt_with_cg``), operators (``operator``) and
asynchronous inner products (``inner``).

Ported from PyCUDA 2026.1 (pycuda/sparse, MIT license, Copyright (C) Andreas
Kloeckner and contributors). As PyCUDA's, importing it warns that it is
deprecated. Differences: scipy is optional (matrices may be scipy sparse
matrices or dense 2-D numpy arrays); without pymetis, PacketedSpMV splits
the rows into contiguous blocks (``packeted.partition_rows``); the COO
product runs one thread per nonzero with ``atomicAdd`` (PyCUDA's reads x
through a texture reference, which CUDA 12 removed).
"""

from __future__ import annotations

from warnings import warn

warn("cudakit.sparse (PyCUDA's pycuda.sparse) is deprecated, as PyCUDA's is",
     DeprecationWarning, stacklevel=2)
