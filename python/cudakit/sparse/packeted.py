"""Packeted sparse matrix-vector product (PyCUDA's ``pycuda.sparse.packeted``;
ported from PyCUDA 2026.1, MIT license, Copyright (C) Andreas Kloeckner).

The rows are split into packets of at most ``rows_per_packet`` (what two
vectors of that length take in a block's shared memory); one block multiplies
a packet's own entries from shared memory, and a CoordinateSpMV adds the
entries that couple two packets. The vectors it multiplies are permuted so
that each packet's rows are contiguous: ``permute(x)`` before,
``unpermute(y)`` after.

Partitioning: with pymetis installed, as PyCUDA (METIS on the graph of
A + A^T); without it, ``partition_rows`` (contiguous row blocks), which is as
correct but leaves more entries to the COO product when the matrix's
coupling is not local in its row numbering.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import gpuarray
from ..compiler import SourceModule
from ..tools import DeviceData, dtype_to_ctype
from ._matrices import CooMatrix, CsrMatrix, as_csr
from ._memoize import memoize_method
from .coordinate import check_vector, checked_operands

PKT_KERNEL_TEMPLATE = """
typedef %(index_type)s index_type;
typedef %(value_type)s value_type;
typedef %(packed_index_type)s packed_index_type;

#define ROWS_PER_PACKET %(rows_per_packet)d
#define THREADS_PER_PACKET %(threads_per_packet)d

template <typename IndexType, typename ValueType>
__device__ void memcpy_device(
  ValueType *dest, const ValueType *src,
  const IndexType num_values)
{
  for(unsigned int i = threadIdx.x; i < num_values; i += blockDim.x)
  {
    dest[i] = src[i];
  }
}

#define pkt_unpack_row_index(packed_index) ( packed_index >> 16  )
#define pkt_unpack_col_index(packed_index) (packed_index & 0xFFFF)

extern "C" {
__global__ void
spmv_pkt_kernel(const index_type *row_ptr,
                const index_type *pos_start,
                const index_type *pos_end,
                const packed_index_type *index_array,
                const value_type *data_array,
                const value_type *x,
                      value_type *y)
{
  __shared__ value_type s_x[ROWS_PER_PACKET]; // input x-values
  __shared__ value_type s_y[ROWS_PER_PACKET]; // output y-values

  const index_type thread_id =
    THREADS_PER_PACKET * blockIdx.x + threadIdx.x;

  // base index of the submatrix corresponding to this packet
  const index_type packet_base_row = row_ptr[blockIdx.x];
  const index_type packet_num_rows = row_ptr[blockIdx.x+1] - packet_base_row;

  // copy local x and y values from global memory into shared memory
  memcpy_device(s_x, x + packet_base_row, packet_num_rows);
  memcpy_device(s_y, y + packet_base_row, packet_num_rows);

  __syncthreads();

  // process packet

  const index_type packet_start = pos_start[thread_id];
  const index_type packet_end = pos_end[thread_id];

  for(index_type pos = packet_start; pos != packet_end; pos += THREADS_PER_PACKET)
  {
    // row and column indices are stored in the same 32-bit word

    const index_type packed_index = index_array[pos];

    const index_type row = pkt_unpack_row_index(packed_index);
    const index_type col = pkt_unpack_col_index(packed_index);
    const value_type val = data_array[pos];

    s_y[row] += val * s_x[col];
  }

  __syncthreads();

  // copy y-values from shared memory to global array

  memcpy_device(y + packet_base_row, s_y, packet_num_rows);
}
}
"""


def partition_rows(row_count: int, part_count: int) -> np.ndarray:
    """Row i's packet number: ``part_count`` contiguous blocks of rows whose
    sizes differ by at most one (the partitioner without pymetis)."""
    return (np.arange(row_count, dtype=np.int64) * part_count // row_count).astype(np.int64)


def _partition(csr_mat: CsrMatrix, is_symmetric: bool, part_count: int) -> np.ndarray:
    try:
        from pymetis import part_graph
    except ImportError:
        return partition_rows(csr_mat.shape[0], part_count)
    adj_mat = csr_mat if is_symmetric else csr_mat.symmetric_pattern()
    _cut_count, dof_to_packet_nr = part_graph(int(part_count), xadj=adj_mat.indptr,
                                              adjncy=adj_mat.indices)
    return np.asarray(dof_to_packet_nr, dtype=np.int64)


class PacketedSpMV:
    """``spmv(x, y=None)``: y += A x for a square ``mat`` (scipy sparse, dense
    2-d numpy array or CooMatrix), x and y in the permuted order."""

    def __init__(self, mat: Any, is_symmetric: bool, dtype: Any) -> None:
        devdata = DeviceData()

        # all row indices in the data structure generation code are
        # "unpermuted" unless otherwise specified
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise TypeError(f"PacketedSpMV: dtype must be float32 or float64, got {self.dtype}")
        self.index_dtype = np.int32
        self.packed_index_dtype = np.uint32
        self.threads_per_packet = devdata.max_threads

        csr_mat = as_csr(mat, self.dtype, "PacketedSpMV")
        h, w = self.shape = csr_mat.shape
        if h != w:
            raise ValueError(f"PacketedSpMV: only square matrices are supported, got {h}x{w}")
        if h == 0:
            raise ValueError("PacketedSpMV: the matrix is empty (0x0)")

        self.rows_per_packet = min((devdata.shared_memory - 100) // (2 * self.dtype.itemsize),
                                   1 << 16)  # a packet's row and column share 32 bits
        self.block_count = (h + self.rows_per_packet - 1) // self.rows_per_packet

        while True:
            dof_to_packet_nr = _partition(csr_mat, bool(is_symmetric), self.block_count)
            packet_nr_to_dofs = [list(np.flatnonzero(dof_to_packet_nr == i))
                                 for i in range(int(dof_to_packet_nr.max()) + 1)]
            if any(len(dofs) >= self.rows_per_packet for dofs in packet_nr_to_dofs):
                old_block_count = self.block_count
                self.block_count = int(2 + 1.05 * self.block_count)
                print("the partition produced a packet too big at block count "
                      "%d--retrying with %d" % (old_block_count, self.block_count))
                continue
            break
        packet_nr_to_dofs = [dofs for dofs in packet_nr_to_dofs if dofs]
        self.block_count = len(packet_nr_to_dofs)

        # permutations, base rows ---------------------------------------------
        (new2old_fetch_indices, old2new_fetch_indices,
         packet_base_rows) = self.find_simple_index_stuff(packet_nr_to_dofs)
        dof_to_packet_nr = np.empty(h, dtype=np.int64)
        for packet_nr, dofs in enumerate(packet_nr_to_dofs):
            dof_to_packet_nr[dofs] = packet_nr

        # find local row cost and remaining_coo -------------------------------
        local_row_costs, remaining_coo = self.find_local_row_costs_and_remaining_coo(
            csr_mat, dof_to_packet_nr, old2new_fetch_indices)
        assert remaining_coo.nnz == csr_mat.nnz - np.sum(local_row_costs)

        # find thread assignment for each block -------------------------------
        thread_count = len(packet_nr_to_dofs) * self.threads_per_packet
        thread_assignments, thread_costs = self.find_thread_assignment(
            packet_nr_to_dofs, local_row_costs, thread_count)
        max_thread_costs = np.max(thread_costs)

        # build data structure ------------------------------------------------
        from .pkt_build import build_pkt_data_structure

        build_pkt_data_structure(self, packet_nr_to_dofs, max_thread_costs,
                                 old2new_fetch_indices, csr_mat, thread_count,
                                 thread_assignments, local_row_costs)

        self.packet_base_rows = gpuarray.to_gpu(packet_base_rows)
        self.new2old_fetch_indices = gpuarray.to_gpu(new2old_fetch_indices)
        self.old2new_fetch_indices = gpuarray.to_gpu(old2new_fetch_indices)

        from .coordinate import CoordinateSpMV

        self.remaining_coo_gpu = CoordinateSpMV(remaining_coo, dtype)

    def find_simple_index_stuff(self, packet_nr_to_dofs: list) -> tuple:
        new2old_fetch_indices = np.zeros(self.shape[0], dtype=self.index_dtype)
        old2new_fetch_indices = np.zeros(self.shape[0], dtype=self.index_dtype)
        packet_base_rows = np.zeros(self.block_count + 1, dtype=self.index_dtype)

        row_start = 0
        for packet_nr, packet in enumerate(packet_nr_to_dofs):
            packet_base_rows[packet_nr] = row_start
            row_end = row_start + len(packet)
            pkt_indices = np.array(packet, dtype=self.index_dtype)
            new2old_fetch_indices[row_start:row_end] = pkt_indices
            old2new_fetch_indices[pkt_indices] = np.arange(row_start, row_end,
                                                           dtype=self.index_dtype)
            row_start += len(packet)
        packet_base_rows[self.block_count] = row_start
        return new2old_fetch_indices, old2new_fetch_indices, packet_base_rows

    def find_local_row_costs_and_remaining_coo(self, csr_mat: CsrMatrix,
                                               dof_to_packet_nr: np.ndarray,
                                               old2new_fetch_indices: np.ndarray) -> tuple:
        rows = np.repeat(np.arange(self.shape[0]), np.diff(csr_mat.indptr))
        local = dof_to_packet_nr[rows] == dof_to_packet_nr[csr_mat.indices]
        local_row_costs = [int(c) for c in np.bincount(rows[local], minlength=self.shape[0])]
        remaining_coo = CooMatrix(csr_mat.data[~local], old2new_fetch_indices[rows[~local]],
                                  old2new_fetch_indices[csr_mat.indices[~local]], self.shape,
                                  dtype=self.dtype)
        return local_row_costs, remaining_coo

    def find_thread_assignment(self, packet_nr_to_dofs: list, local_row_cost: list,
                               thread_count: int) -> tuple:
        thread_assignments: list[list[int]] = [[] for i in range(thread_count)]
        thread_costs = np.zeros(thread_count)

        for packet_nr, packet_dofs in enumerate(packet_nr_to_dofs):
            row_costs_and_numbers = sorted([(local_row_cost[i], i) for i in packet_dofs],
                                           reverse=True)
            base_thread_nr = packet_nr * self.threads_per_packet
            thread_offset = 0

            # zigzag assignment
            step = 1
            for row_cost, row_number in row_costs_and_numbers:
                ti = base_thread_nr + thread_offset
                thread_assignments[ti].append(row_number)
                thread_costs[ti] += row_cost

                if thread_offset + step >= self.threads_per_packet:
                    step = -1
                elif thread_offset + step < 0:
                    step = 1
                else:
                    thread_offset += step
        return thread_assignments, thread_costs

    # execution ---------------------------------------------------------------
    @memoize_method
    def get_kernel(self) -> Any:
        mod = SourceModule(PKT_KERNEL_TEMPLATE % {
            "value_type": dtype_to_ctype(self.dtype),
            "index_type": dtype_to_ctype(self.index_dtype),
            "packed_index_type": dtype_to_ctype(self.packed_index_dtype),
            "threads_per_packet": self.threads_per_packet,
            "rows_per_packet": self.rows_per_packet,
        }, no_extern_c=True)
        func = mod.get_function("spmv_pkt_kernel")
        func.prepare("PPPPPPP")
        return func

    def permute(self, x: Any) -> Any:
        check_vector(x, self.shape[0], x.dtype if hasattr(x, "dtype") else self.dtype,
                     "PacketedSpMV.permute")
        return gpuarray.take(x, self.new2old_fetch_indices)

    def unpermute(self, x: Any) -> Any:
        check_vector(x, self.shape[0], x.dtype if hasattr(x, "dtype") else self.dtype,
                     "PacketedSpMV.unpermute")
        return gpuarray.take(x, self.old2new_fetch_indices)

    def __call__(self, x: Any, y: Any = None) -> Any:
        y = checked_operands(self, x, y, "PacketedSpMV")

        self.get_kernel().prepared_call(
            (self.block_count, 1), (self.threads_per_packet, 1, 1),
            self.packet_base_rows.gpudata, self.thread_starts.gpudata,
            self.thread_ends.gpudata, self.index_array.gpudata, self.data_array.gpudata,
            x.gpudata, y.gpudata)

        self.remaining_coo_gpu(x, y)
        return y
