// Managed (unified) memory for cudakit.driver: one allocation that the host
// and the device reach at the same address (cuMemAllocManaged on a GPU,
// device memory on the CPU backend, which the host reaches anyway), its
// attachment to a stream (cuStreamAttachMemAsync), and the allocation an
// address lies in (cuMemGetAddressRange). The numpy-facing class PyCUDA users
// see (ManagedAllocation, managed_empty) is in cudakit/_managed_memory.py.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "backend/backend.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// cuda.h's CU_MEM_ATTACH_* (PyCUDA's mem_attach_flags).
constexpr unsigned kAttachGlobal = 0x1;
constexpr unsigned kAttachHost = 0x2;
constexpr unsigned kAttachSingle = 0x4;

unsigned attach_flags(nb::handle value, const char* use, bool single_allowed) {
  const auto flags = int_argument<unsigned>(value, use, "flags");
  if (flags == kAttachGlobal || flags == kAttachHost || (single_allowed && flags == kAttachSingle))
    return flags;
  throw ArgumentError(use, "flags " + std::to_string(flags) + " is not one attach mode",
                      single_allowed ? "pass mem_attach_flags.GLOBAL (1), HOST (2) or SINGLE (4)"
                                     : "pass mem_attach_flags.GLOBAL (1) or HOST (2): memory "
                                       "is attached to one stream (SINGLE) with attach()");
}

// Owns one managed allocation on the device that was current when it was made.
class ManagedMemory {
 public:
  ManagedMemory(std::size_t bytes, unsigned flags) : device_(Device::current()), bytes_(bytes) {
    device_.make_current();
    // At least one byte, so that even an empty array has an address of its own.
    ptr_ =
        detail::backend_of(device_).allocate_managed(device_.ordinal(), bytes ? bytes : 1, flags);
  }
  ManagedMemory(const ManagedMemory&) = delete;
  ManagedMemory& operator=(const ManagedMemory&) = delete;
  ~ManagedMemory() { detail::backend_of(device_).deallocate(device_.ordinal(), ptr_); }

  std::uint64_t address() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  void attach(unsigned flags, nb::handle stream) {
    device_.make_current();
    void* native = native_stream(stream);
    if (flags == kAttachSingle && native == nullptr)
      throw ArgumentError("ManagedAllocation.attach",
                          "mem_attach_flags.SINGLE names no stream (stream is None)",
                          "pass the stream the memory belongs to: attach(SINGLE, stream)");
    detail::backend_of(device_).attach_managed(native, ptr_, 0, flags);
  }

 private:
  Device device_;
  std::size_t bytes_;
  detail::DevicePtr ptr_ = 0;
};

}  // namespace

void bind_managed_memory(nb::module_& m) {
  nb::class_<ManagedMemory>(m, "_ManagedMemory",
                            "Managed memory: one address for the host and the device.")
      .def(
          "__init__",
          [](ManagedMemory* self, nb::handle bytes, nb::handle flags) {
            const auto size = int_argument<std::size_t>(bytes, "managed_empty", "nbytes");
            const unsigned mode = attach_flags(flags, "managed_empty", false);
            new (self) ManagedMemory(size, mode);
          },
          nb::arg("nbytes"), nb::arg("flags"))
      .def_prop_ro("address", &ManagedMemory::address)
      .def_prop_ro("nbytes", &ManagedMemory::bytes)
      .def(
          "attach",
          [](ManagedMemory& memory, nb::handle flags, nb::handle stream) {
            memory.attach(attach_flags(flags, "ManagedAllocation.attach", true), stream);
          },
          nb::arg("flags"), nb::arg("stream").none() = nb::none());

  m.def(
      "_mem_get_address_range",
      [](nb::handle address) {
        const auto ptr = static_cast<detail::DevicePtr>(
            unsigned_argument(address, "mem_get_address_range", "the address"));
        Device d = Device::current();
        d.make_current();
        return detail::backend_of(d).address_range(ptr);
      },
      nb::arg("address"));
}

}  // namespace cudakit::python
