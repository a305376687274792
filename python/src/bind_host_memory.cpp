// Page-locked host memory for cudakit.driver: the registration of an
// existing numpy array (register_host_memory, over the core's
// HostRegistration) and the device address of page-locked memory. The
// Python classes PyCUDA users see (RegisteredHostMemory, HostAllocation) are
// in cudakit/_host_memory.py over these.
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "cudakit/error.hpp"
#include "cudakit/host_registration.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// A registration of a numpy array's memory, keeping the array alive.
struct HostRegistrationObject {
  nb::object array;
  HostRegistration registration;
};

std::uint64_t address_of(const void* p) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
}

}  // namespace

void bind_host_memory(nb::module_& m) {
  nb::class_<HostRegistrationObject>(m, "_HostRegistration",
                                     "A page-locking registration of a host array's memory.")
      .def(
          "__init__",
          [](HostRegistrationObject* self, nb::object array, nb::handle flags_object) {
            const auto flags =
                int_argument<unsigned>(flags_object, "register_host_memory", "flags");
            HostSpan span = host_span(array, false, "register_host_memory");
            if (span.bytes == 0)
              throw ArgumentError("register_host_memory", "the array is empty",
                                  "register an array of at least one element");
            HostRegistration registration;
            {
              // Page-locking gigabytes takes a while; `array` keeps the memory alive.
              nb::gil_scoped_release unlocked;
              registration = HostRegistration(span.data, span.bytes, flags);
            }
            new (self) HostRegistrationObject{std::move(array), std::move(registration)};
          },
          nb::arg("array"), nb::arg("flags").none() = 0)
      .def(
          "unregister",
          [](HostRegistrationObject& r) {
            nb::gil_scoped_release unlocked;
            r.registration.unregister();
          },
          "Ends the registration now; a second call is an ArgumentError.")
      .def_prop_ro("registered",
                   [](const HostRegistrationObject& r) { return r.registration.registered(); })
      .def_prop_ro(
          "address",
          [](const HostRegistrationObject& r) {
            return address_of(r.registration.registered() ? r.registration.data() : nullptr);
          })
      .def_prop_ro("nbytes", [](const HostRegistrationObject& r) { return r.registration.bytes(); })
      .def_prop_ro("flags", [](const HostRegistrationObject& r) { return r.registration.flags(); })
      .def("device_pointer",
           [](const HostRegistrationObject& r) { return r.registration.device_pointer(); });

  m.def(
      "_host_device_pointer",
      [](nb::handle address) {
        return host_device_pointer(reinterpret_cast<const void*>(static_cast<std::uintptr_t>(
            unsigned_argument(address, "get_device_pointer", "address"))));
      },
      nb::arg("address"));
  m.def("_live_host_registrations", [] { return live_host_registrations(); });
}

}  // namespace cudakit::python
