// allocator= on GPUArray functions (PyCUDA's): a callable taking a byte
// count and returning a DeviceAllocation-like object (int() is its device
// address). The array uses that memory and keeps the object alive as long
// as any view of it exists.
#pragma once

#include <optional>

#include "array_object.hpp"

namespace cudakit::python {

// A new contiguous array in memory from allocator(nbytes), on `stream` (the
// default stream when none). An empty array calls no allocator (as PyCUDA).
// TypeError when the allocator's result has no int() address.
nb::object allocate_array(nb::handle allocator, const Shape& shape, DType dtype, Order order,
                          const std::optional<Stream>& stream);

// `result` (a GPUArray) copied into memory from `allocator` (result itself
// when allocator is None).
nb::object into_allocated(nb::object result, nb::handle allocator,
                          const std::optional<Stream>& stream);

// Keeps a Python object alive as long as a cudakit array views its memory.
std::shared_ptr<void> keep_alive(nb::handle object);

}  // namespace cudakit::python
