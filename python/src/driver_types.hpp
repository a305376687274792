// The driver-level objects the compiler's launch path also takes: device
// allocations, host transfers (In/Out/InOut), and how any Python object
// becomes a device address or a stream.
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "bindings.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/host_transfer.hpp"
#include "support/c_types.hpp"

namespace cudakit::python {

// PyCUDA's DeviceAllocation: device memory from mem_alloc, usable wherever a
// pointer is expected (int(), kernel arguments, copies). free() gives it back
// now; any later use is an ArgumentError instead of a dangling address.
class DeviceAllocation {
 public:
  DeviceAllocation(const Device& device, std::size_t bytes);
  std::uint64_t address(const char* use) const;  // ArgumentError once freed
  std::size_t bytes() const noexcept { return bytes_; }
  bool freed() const noexcept { return freed_; }
  const Device& device() const { return buffer_.device(); }
  void free();
  std::string describe() const;

 private:
  UntypedBuffer buffer_;
  std::uint64_t address_;
  std::size_t bytes_;
  bool freed_ = false;
};

// Element types (what an array says it holds) are cudakit::ElementType
// (cudakit/kernel_args.hpp): the launch compares them with the kernel's
// pointee types.

// A contiguous host buffer (numpy array, bytes, ...), checked.
struct HostSpan {
  void* data = nullptr;
  std::size_t bytes = 0;
  ElementType element;
};
// `use` names the call for the messages ("memcpy_htod", "In").
HostSpan host_span(nb::handle obj, bool writable, const char* use);

// In / Out / InOut(host array): staged through device memory by the launch.
struct HostArg {
  nb::object array;  // keeps the memory alive
  HostSpan span;
  TransferDirection direction;
  HostArg(nb::object obj, TransferDirection dir);
  const char* name() const noexcept;
};

// A device address and how many bytes from it belong to the object
// (max() when unknown, e.g. a bare int).
struct DeviceTarget {
  std::uint64_t address = 0;
  std::size_t capacity = std::numeric_limits<std::size_t>::max();
  ElementType element;
};
// DeviceAllocation, int, an object with __cuda_array_interface__ (torch,
// CuPy, GPUArray), an object with `gpudata` holding one of those, or one with
// get_pointer() (PyCUDA's PointerHolderBase).
// ArgumentError saying what is accepted otherwise.
DeviceTarget device_target(nb::handle obj, const char* use);
// The same, or nullopt-like {false} when `obj` is none of those (the launch
// path tries the other conversions).
bool try_device_target(nb::handle obj, DeviceTarget& out, const char* use);

// A native stream from None (the default stream), a cudakit Stream, an int
// handle, an object with __cuda_stream__ (CUDA's stream protocol), or one
// with a `cuda_stream` attribute (torch.cuda.Stream).
void* native_stream(nb::handle obj);

// ---- integer arguments ----------------------------------------------------------
// An integer argument of a bound function, read from a Python int or anything
// with __index__ (numpy integers, IntEnum members) and checked against the
// C type it becomes, in place of nanobind's raw "incompatible function
// arguments" / std::bad_cast: TypeError "USE: NAME must be an integer, got
// float"; ArgumentError (a ValueError) "USE: NAME must be in MIN..MAX, got
// VALUE" for a value outside [min, max], with `hint` (what to pass) when given.
std::int64_t signed_argument(nb::handle value, const char* use, const char* name,
                             std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                             std::int64_t max = std::numeric_limits<std::int64_t>::max(),
                             const char* hint = nullptr);
std::uint64_t unsigned_argument(nb::handle value, const char* use, const char* name,
                                std::uint64_t max = std::numeric_limits<std::uint64_t>::max(),
                                const char* hint = nullptr);
// The same for the C type T (its whole range).
template <class T>
T int_argument(nb::handle value, const char* use, const char* name) {
  if constexpr (std::is_signed_v<T>)
    return static_cast<T>(signed_argument(value, use, name, std::numeric_limits<T>::min(),
                                          std::numeric_limits<T>::max()));
  else
    return static_cast<T>(unsigned_argument(value, use, name, std::numeric_limits<T>::max()));
}

// Parts of bind_driver, each in its own file.
void bind_devices(nb::module_& m);
void bind_memory(nb::module_& m);
void bind_host_memory(nb::module_& m);
void bind_managed_memory(nb::module_& m);
void bind_ipc_memory(nb::module_& m);
void bind_cuda_arrays(nb::module_& m);  // bind_cuda_arrays.cpp
void bind_streams(nb::module_& m);
void bind_graph(nb::module_& m);  // bind_graph.cpp: needs Stream bound first

}  // namespace cudakit::python
