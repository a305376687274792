"""PyCUDA's two-stage reduction source builders, ``get_reduction_module`` and
``get_reduction_kernel_and_types`` (``pycuda.reduction``), for code that
drives them itself: stage 1 reduces ``seq_count * block_size`` mapped inputs
per block into ``out[blockIdx.x]``, stage 2 reduces those partial results the
same way, until one block is left. cudakit's own ``ReductionKernel`` does not
use them (its reductions come from the C++ core in one launch).

Ported from PyCUDA 2026.1 (pycuda/reduction.py, MIT license, Copyright (C)
2009 Andreas Kloeckner; based on code by Mark Harris, NVIDIA). One change:
the last warp's steps read, ``__syncwarp()``, then write, in the threads below
each step's offset only (PyCUDA's ``volatile`` warp-synchronous steps race
under independent thread scheduling and on the CPU backend, where the threads
of a warp do not run in lockstep, and with 32 threads a block they read past
its shared values: an illegal address on the GPU).
"""

from __future__ import annotations

from typing import Any

__all__ = ["get_reduction_module", "get_reduction_kernel_and_types"]

_SOURCE = """
        #include <pycuda-complex.hpp>

        #define BLOCK_SIZE %(block_size)d
        #define READ_AND_MAP(i) (%(map_expr)s)
        #define REDUCE(a, b) (%(reduce_expr)s)

        %(preamble)s

        typedef %(out_type)s out_type;

        extern "C"
        __global__
        void %(name)s(out_type *out, %(arguments)s,
          unsigned int seq_count, size_t n)
        {
          // Needs to be variable-size to prevent the braindead CUDA compiler from
          // running constructors on this array. Grrrr.
          extern __shared__ out_type sdata[];

          unsigned int tid = threadIdx.x;

          size_t i = blockIdx.x*BLOCK_SIZE*seq_count + tid;

          out_type acc = %(neutral)s;
          for (unsigned s = 0; s < seq_count; ++s)
          {
            if (i >= n)
              break;
            acc = REDUCE(acc, READ_AND_MAP(i));

            i += BLOCK_SIZE;
          }

          sdata[tid] = acc;

          __syncthreads();

          #if (BLOCK_SIZE >= 512)
            if (tid < 256) { sdata[tid] = REDUCE(sdata[tid], sdata[tid + 256]); }
            __syncthreads();
          #endif

          #if (BLOCK_SIZE >= 256)
            if (tid < 128) { sdata[tid] = REDUCE(sdata[tid], sdata[tid + 128]); }
            __syncthreads();
          #endif

          #if (BLOCK_SIZE >= 128)
            if (tid < 64) { sdata[tid] = REDUCE(sdata[tid], sdata[tid + 64]); }
            __syncthreads();
          #endif

          if (tid < 32)
          {
            // Each step reads, waits for the warp, then writes; only the
            // threads below the offset take part, so no read passes the
            // block's BLOCK_SIZE values (PyCUDA's steps read up to
            // sdata[tid + 16] for every tid < 32, past the end for 32).
            const unsigned warp_mask =
                BLOCK_SIZE >= 32 ? 0xffffffffu : ((1u << BLOCK_SIZE) - 1u);
            #define PYCUDA_WARP_STEP(OFFSET) \\
              if (BLOCK_SIZE >= 2 * (OFFSET)) { \\
                if (tid < (OFFSET)) acc = REDUCE(sdata[tid], sdata[tid + (OFFSET)]); \\
                __syncwarp(warp_mask); \\
                if (tid < (OFFSET)) sdata[tid] = acc; \\
                __syncwarp(warp_mask); \\
              }
            PYCUDA_WARP_STEP(32)
            PYCUDA_WARP_STEP(16)
            PYCUDA_WARP_STEP(8)
            PYCUDA_WARP_STEP(4)
            PYCUDA_WARP_STEP(2)
            PYCUDA_WARP_STEP(1)
            #undef PYCUDA_WARP_STEP
          }

          if (tid == 0) out[blockIdx.x] = sdata[0];
        }
        """


def _check_block_size(block_size: Any) -> int:
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1 \
            or block_size > 1024 or block_size & (block_size - 1):
        raise ValueError(f"get_reduction_module: block_size must be a power of two from 1 to "
                         f"1024 (the kernel halves it step by step), got {block_size!r}")
    return block_size


def get_reduction_module(out_type: str, block_size: int, neutral: Any, reduce_expr: str,
                         map_expr: str, arguments: str, name: str = "reduce_kernel",
                         keep: bool = False, options: Any = None, preamble: str = "") -> Any:
    """A SourceModule with the kernel ``name(out_type *out, arguments...,
    unsigned int seq_count, size_t n)``: block b reduces
    ``map_expr`` at ``i = b*block_size*seq_count + tid + s*block_size``
    (s < seq_count, i < n) and writes ``out[b]``. Launch it with ``block_size``
    threads and ``block_size * sizeof(out_type)`` bytes of shared memory."""
    from .compiler import SourceModule

    block_size = _check_block_size(block_size)
    for what, value in (("out_type", out_type), ("reduce_expr", reduce_expr),
                        ("map_expr", map_expr), ("arguments", arguments), ("name", name)):
        if not isinstance(value, str) or not value.strip():
            raise TypeError(f"get_reduction_module: {what} must be a non-empty C string "
                            f"(e.g. arguments='const float *in'), got {value!r}")
    source = _SOURCE % {
        "out_type": out_type, "arguments": arguments, "block_size": block_size,
        "neutral": neutral, "reduce_expr": reduce_expr, "map_expr": map_expr,
        "name": name, "preamble": preamble,
    }
    return SourceModule(source, options=options, keep=keep, no_extern_c=True)


def get_reduction_kernel_and_types(stage: int, out_type: str, block_size: int, neutral: Any,
                                   reduce_expr: str, map_expr: str | None = None,
                                   arguments: str | None = None, name: str = "reduce_kernel",
                                   keep: bool = False, options: Any = None,
                                   preamble: str = "") -> tuple[Any, list[str]]:
    """Stage 1 or 2 of PyCUDA's reduction: ``(func, arg_types)``, ``func``
    prepared as ``"P" + arg_types + "IN"`` (out, the arguments, seq_count, n).
    Stage 1 maps ``in[i]`` by default; stage 2 reads the partial results
    through a first argument ``const out_type *pycuda_reduction_inp``."""
    from .tools import get_arg_type

    if stage == 1:
        if map_expr is None:
            map_expr = "in[i]"
    elif stage == 2:
        if map_expr is None:
            map_expr = "pycuda_reduction_inp[i]"
        in_arg = f"const {out_type} *pycuda_reduction_inp"
        arguments = in_arg + ", " + arguments if arguments else in_arg
    else:
        raise ValueError(f"get_reduction_kernel_and_types: stage must be 1 or 2, got {stage!r}")
    if not arguments:
        raise TypeError("get_reduction_kernel_and_types: stage 1 needs arguments (e.g. "
                        "'const float *in')")
    mod = get_reduction_module(out_type, block_size, neutral, reduce_expr, map_expr, arguments,
                               name, keep, options, preamble)
    func = mod.get_function(name)
    arg_types = [get_arg_type(arg) for arg in arguments.split(",")]
    func.prepare("P{}IN".format("".join(arg_types)))
    return func, arg_types
