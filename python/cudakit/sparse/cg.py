"""Conjugate gradients on the device (PyCUDA's ``pycuda.sparse.cg``; ported
from PyCUDA 2026.1, MIT license, Copyright (C) Andreas Kloeckner).

Differences: ``run()`` keeps the host at most two check intervals (40
iterations) ahead of the device, as a GPU's bounded launch queue does (the
CPU backend's queues are unbounded, and the polled inner products would lag
behind the host without bound); the GPU scalars of the linear combinations are pointer
arguments of cudakit's get_linear_combination_kernel (PyCUDA binds them to
texture references); ``reset()`` without ``x`` starts from a zero GPUArray
(PyCUDA's passes a numpy array to the operator).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import driver as drv
from .. import gpuarray
from ._memoize import memoize_method
from .inner import AsyncInnerProduct


class ConvergenceError(RuntimeError):
    pass


class CGStateContainer:
    def __init__(self, operator: Any, precon: Any = None,
                 pagelocked_allocator: Any = None) -> None:
        if precon is None:
            from .operator import IdentityOperator

            precon = IdentityOperator(operator.dtype, operator.shape[0])

        self.operator = operator
        self.precon = precon
        self.pagelocked_allocator = pagelocked_allocator or drv.pagelocked_empty

    @memoize_method
    def make_lc2_kernel(self, dtype: Any, a_is_gpu: bool, b_is_gpu: bool) -> Any:
        from ..elementwise import get_linear_combination_kernel

        return get_linear_combination_kernel(((a_is_gpu, dtype, dtype), (b_is_gpu, dtype, dtype)),
                                             dtype)

    def lc2(self, a: Any, x: Any, b: Any, y: Any, out: Any = None) -> Any:
        """out = a*x + b*y; a and b are numbers or 0-d GPUArrays."""
        if out is None:
            out = gpuarray.empty(x.shape, dtype=x.dtype, allocator=x.allocator)

        if not (x.dtype == y.dtype == out.dtype and x.shape == y.shape == out.shape):
            raise ValueError(f"lc2: x, y and out must agree in shape and dtype, got "
                             f"{x.shape}/{x.dtype}, {y.shape}/{y.dtype}, {out.shape}/{out.dtype}")
        a_is_gpu = isinstance(a, gpuarray.GPUArray)
        b_is_gpu = isinstance(b, gpuarray.GPUArray)
        kernel, _texrefs = self.make_lc2_kernel(x.dtype, a_is_gpu, b_is_gpu)

        args = []
        for scalar, vector in ((a, x), (b, y)):
            if isinstance(scalar, gpuarray.GPUArray):
                if scalar.dtype != x.dtype or scalar.shape != ():
                    raise ValueError(f"lc2: a GPU scalar must be 0-d of dtype {x.dtype}, got "
                                     f"shape {scalar.shape} and dtype {scalar.dtype}")
                args.append(scalar.gpudata)
            else:
                args.append(scalar)
            args.append(vector.gpudata)
        args += [out.gpudata, x.mem_size]
        grid, block = gpuarray.splay(x.mem_size)
        kernel.prepared_call(grid, block, *args)
        return out

    @memoize_method
    def guarded_div_kernel(self, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> Any:
        from ..elementwise import get_elwise_kernel
        from ..tools import dtype_to_ctype

        return get_elwise_kernel(
            "%(tp_x)s *x, %(tp_y)s *y, %(tp_z)s *z" % {
                "tp_x": dtype_to_ctype(dtype_x),
                "tp_y": dtype_to_ctype(dtype_y),
                "tp_z": dtype_to_ctype(dtype_z),
            },
            "z[i] = y[i] == 0 ? 0 : (x[i] / y[i])",
            "divide")

    def guarded_div(self, a: Any, b: Any) -> Any:
        """a / b elementwise, 0 where b is 0."""
        if a.shape != b.shape:
            raise ValueError(f"guarded_div: shapes differ, {a.shape} and {b.shape}")
        result = gpuarray.empty(a.shape, np.result_type(a.dtype, b.dtype),
                                allocator=a.allocator)
        func = self.guarded_div_kernel(a.dtype, b.dtype, result.dtype)
        grid, block = gpuarray.splay(a.mem_size)
        func.prepared_async_call(grid, block, None, a.gpudata, b.gpudata, result.gpudata,
                                 a.mem_size)
        return result

    def reset(self, rhs: Any, x: Any = None) -> None:
        self.rhs = rhs

        if x is None:
            x = gpuarray.zeros(self.operator.shape[0], dtype=rhs.dtype,
                               allocator=rhs.allocator)
        self.x = x

        self.residual = rhs - self.operator(x)

        self.d = self.precon(self.residual)

        # grows at the end
        delta = AsyncInnerProduct(self.residual, self.d, self.pagelocked_allocator)
        self.real_delta_queue = [delta]
        self.delta = delta.gpu_result

    def one_iteration(self, compute_real_residual: bool = False) -> None:
        # typed up from J.R. Shewchuk,
        # An Introduction to the Conjugate Gradient Method
        # Without the Agonizing Pain, Edition 1 1/4 [8/1994]
        # Appendix B3

        q = self.operator(self.d)
        myip = gpuarray.dot(self.d, q)
        alpha = self.guarded_div(self.delta, myip)

        self.lc2(1, self.x, alpha, self.d, out=self.x)

        if compute_real_residual:
            self.residual = self.lc2(1, self.rhs, -1, self.operator(self.x))
        else:
            self.lc2(1, self.residual, -alpha, q, out=self.residual)

        s = self.precon(self.residual)
        delta_old = self.delta
        delta = AsyncInnerProduct(self.residual, s, self.pagelocked_allocator)
        self.delta = delta.gpu_result
        beta = self.guarded_div(self.delta, delta_old)

        self.lc2(1, s, beta, self.d, out=self.d)

        if compute_real_residual:
            self.real_delta_queue.append(delta)

    def run(self, max_iterations: int | None = None, tol: float = 1e-7,
            debug_callback: Callable[..., Any] | None = None) -> Any:
        check_interval = 20

        if max_iterations is None:
            max_iterations = max(3 * check_interval + 1, 10 * self.operator.shape[0])
        real_resid_interval = min(self.operator.shape[0], 50)

        iterations = 0
        delta_0 = None
        checked = None  # the work of the last check: the host stays <= 2 intervals ahead
        while iterations < max_iterations:
            compute_real_residual = iterations % real_resid_interval == 0

            self.one_iteration(compute_real_residual=compute_real_residual)

            if debug_callback is not None:
                what = "it+residual" if compute_real_residual else "it"
                debug_callback(what, iterations, self.x, self.residual, self.d, self.delta)

            # do often enough to allow AsyncInnerProduct
            # to progress through (polled) event chain
            rdq = self.real_delta_queue
            if iterations % check_interval == 0:
                if checked is not None:
                    checked.synchronize()
                checked = drv.Event()
                checked.record()
                if delta_0 is None:
                    delta_0 = rdq[0].get_host_result()
                    if delta_0 is not None:
                        rdq.pop(0)

                if delta_0 is not None:
                    i = 0
                    while i < len(rdq):
                        delta = rdq[i].get_host_result()
                        if delta is not None:
                            if abs(delta) < tol * tol * abs(delta_0):
                                if debug_callback is not None:
                                    debug_callback("end", iterations, self.x, self.residual,
                                                   self.d, self.delta)
                                return self.x
                            rdq.pop(i)
                        else:
                            i += 1

            iterations += 1

        raise ConvergenceError(f"cg failed to converge in {max_iterations} iterations "
                               f"(tol={tol}); raise max_iterations or tol, or precondition")


def solve_pkt_with_cg(pkt_spmv: Any, b: Any, precon: Any = None, x: Any = None,
                      tol: float = 1e-7, max_iterations: int | None = None,
                      debug: bool = False, pagelocked_allocator: Any = None) -> tuple:
    """Solves A x = b (A symmetric positive definite, as a PacketedSpMV) by
    conjugate gradients: ``(x, iteration count, real-residual count)``.
    ``b`` and ``x`` are in the matrix's own row order; ``precon`` works in
    the permuted order (``DiagonalPreconditioner(spmv.permute(inv_diag))``)."""
    from .coordinate import check_vector

    check_vector(b, pkt_spmv.shape[0], pkt_spmv.dtype, "solve_pkt_with_cg (b)")
    if x is None:
        x = gpuarray.zeros(pkt_spmv.shape[0], dtype=pkt_spmv.dtype, allocator=b.allocator)
    else:
        check_vector(x, pkt_spmv.shape[0], pkt_spmv.dtype, "solve_pkt_with_cg (x)")
        x = pkt_spmv.permute(x)

    if pagelocked_allocator is None:
        pagelocked_allocator = drv.pagelocked_empty

    cg = CGStateContainer(pkt_spmv, precon, pagelocked_allocator=pagelocked_allocator)

    cg.reset(pkt_spmv.permute(b), x)

    it_count = [0]
    res_count = [0]

    def debug_callback(what: str, it_number: int, x: Any, resid: Any, d: Any,
                       delta: Any) -> None:
        if what == "it":
            it_count[0] += 1
        elif what == "it+residual":
            res_count[0] += 1
            it_count[0] += 1

    result = cg.run(max_iterations, tol, debug_callback=debug_callback)

    return pkt_spmv.unpermute(result), it_count[0], res_count[0]
