// The driver-level objects the compiler's launch path also takes: device
// allocations, host transfers (In/Out/InOut), and how any Python object
// becomes a device address or a stream.
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

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

// Parts of bind_driver, each in its own file.
void bind_devices(nb::module_& m);
void bind_memory(nb::module_& m);
void bind_host_memory(nb::module_& m);
void bind_streams(nb::module_& m);

}  // namespace cudakit::python
