"""ReductionKernel with a struct ``dtype_out`` (PyCUDA's struct reductions):
``dtype_out`` is a numpy structured dtype registered under the C name of a
struct the preamble defines (``cudakit.tools.get_or_register_dtype``).

cudakit's GPUArrays hold numbers, so the result is a ``StructResult``: the
struct's bytes in device memory, whose ``get()`` gives the 0-d structured
numpy array PyCUDA's ``GPUArray.get()`` gives (``result.get()["field"]``).

Two launches, as PyCUDA's: each block folds a grid-stride share of the
indices and then its threads' values through shared memory; one block folds
the blocks' results. ``reduce_expr`` must be associative and commutative (as
PyCUDA requires). The struct needs what PyCUDA's needs of it: an empty
default constructor (it lives in shared memory) and copy assignment.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core

_BLOCK = 128
_MAX_BLOCKS = 256


class StructResult:
    """A struct value in device memory (the result of a struct reduction)."""

    def __init__(self, storage: Any, dtype: np.dtype) -> None:
        self._storage = storage  # a uint8 GPUArray of dtype.itemsize bytes
        self.dtype = dtype
        self.shape: tuple[int, ...] = ()
        self.size = 1
        self.nbytes = dtype.itemsize

    @property
    def gpudata(self) -> int:
        return self._storage.gpudata

    ptr = gpudata

    @property
    def allocator(self) -> Any:
        return self._storage.allocator

    @property
    def stream(self) -> Any:
        return self._storage.stream

    def get(self, stream: Any = None) -> np.ndarray:
        """The value as a 0-d structured numpy array."""
        raw = self._storage.get(stream=stream)
        return np.frombuffer(raw.tobytes(), dtype=self.dtype).reshape(())

    def __repr__(self) -> str:
        return f"StructResult({self.get()!r})"


def _first_array(args: tuple[Any, ...]) -> Any:
    for a in args:
        if isinstance(a, _core.GPUArray):
            return a
    raise ValueError("ReductionKernel: no GPUArray argument (the element count is the first "
                     "array's size)")


class StructReductionKernel:
    def __init__(self, dtype_out: np.dtype, c_type: str, neutral: str, reduce_expr: str,
                 map_expr: str, arguments: str, name: str, preamble: str) -> None:
        self.dtype_out = dtype_out
        self.name = name
        def fold(map_value: str) -> str:
            # A grid-stride share of the indices per thread, then the block's
            # threads' values through shared memory (a power-of-two tree).
            # Written out in each kernel: the CPU backend finds the kernels'
            # __syncthreads() in their source.
            return f"""
  __shared__ {c_type} folded[{_BLOCK}];
  {c_type} acc = {neutral};
  for (long long i = (long long)blockIdx.x * {_BLOCK} + threadIdx.x; i < n;
       i += (long long)gridDim.x * {_BLOCK})
    acc = {name}_fold(acc, {map_value});
  folded[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = {_BLOCK} / 2; s > 0; s >>= 1) {{
    if (threadIdx.x < s)
      folded[threadIdx.x] = {name}_fold(folded[threadIdx.x], folded[threadIdx.x + s]);
    __syncthreads();
  }}"""

        stage1_body = fold(f"({map_expr})")
        stage2_body = fold("cudakit_partials[i]")
        self.source = f"""
{preamble}

static_assert(sizeof({c_type}) == {dtype_out.itemsize},
              "the dtype registered for {c_type} is {dtype_out.itemsize} bytes, "
              "which is not sizeof({c_type})");

__device__ {c_type} {name}_fold({c_type} a, {c_type} b) {{ return ({reduce_expr}); }}

extern "C" __global__ void {name}_stage1({c_type} *cudakit_partials, {arguments},
                                         long long n) {{{stage1_body}
  if (threadIdx.x == 0) cudakit_partials[blockIdx.x] = folded[0];
}}

extern "C" __global__ void {name}_stage2({c_type} *cudakit_out,
                                         const {c_type} *cudakit_partials,
                                         long long n) {{{stage2_body}
  if (threadIdx.x == 0) cudakit_out[0] = folded[0];
}}
"""
        self._functions: tuple[Any, Any] | None = None

    def _compiled(self) -> tuple[Any, Any]:
        if self._functions is None:
            from .compiler import SourceModule

            module = SourceModule(self.source, no_extern_c=True)
            self._functions = (module.get_function(f"{self.name}_stage1"),
                               module.get_function(f"{self.name}_stage2"))
        return self._functions

    def __call__(self, args: tuple[Any, ...], stream: Any, allocator: Any) -> StructResult:
        first = _first_array(args)
        for a in args:
            if isinstance(a, _core.GPUArray) and not a.flags.c_contiguous:
                raise ValueError(f"ReductionKernel {self.name}: a struct reduction takes "
                                 "C-contiguous arrays; pass a.copy()")
        if stream is not None:
            args = tuple(_core._on_stream(a, stream) if a is first else a for a in args)
        n = int(first.size)
        blocks = max(1, min(_MAX_BLOCKS, -(-n // _BLOCK)))
        itemsize = self.dtype_out.itemsize
        partials = _core._full((blocks * itemsize,), np.uint8, None, "C")
        if allocator is not None:
            out = _core._allocate(allocator, (itemsize,), np.uint8, "C", stream)
        else:
            out = _core._full((itemsize,), np.uint8, None, "C")
        if stream is not None:
            partials = _core._on_stream(partials, stream)
            out = _core._on_stream(out, stream)
        stage1, stage2 = self._compiled()
        stage1(partials, *args, np.int64(n), block=(_BLOCK, 1, 1), grid=(blocks, 1),
               stream=stream)
        stage2(out, partials, np.int64(blocks), block=(_BLOCK, 1, 1), grid=(1, 1),
               stream=stream)
        return StructResult(out, self.dtype_out)
