// cudakit.driver's devices and versions (PyCUDA's pycuda.driver); memory is
// in bind_memory.cpp, streams and events in bind_streams.cpp. Context is
// pure Python (cudakit/driver.py) over Device: cudakit always uses the
// device's primary context.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "array_object.hpp"
#include "backend/backend.hpp"
#include "bindings.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "driver_types.hpp"

#ifndef CUDAKIT_TOOLKIT_VERSION
#define CUDAKIT_TOOLKIT_VERSION 13000
#endif

namespace cudakit::python {
namespace {

ContextLimit to_limit(int value) {
  // cudakit.driver.limit's values are CUlimit's (STACK_SIZE 0 ... PERSISTING_L2_CACHE_SIZE
  // 6); SHMEM_SIZE and the CIG ones (7-9) belong to CIG contexts, which cudakit does not make.
  if (value >= 0 && value < kContextLimitCount) return static_cast<ContextLimit>(value);
  throw ArgumentError("Context limit", "unknown limit " + std::to_string(value),
                      "use a cudakit.driver.limit value: STACK_SIZE, PRINTF_FIFO_SIZE, "
                      "MALLOC_HEAP_SIZE, DEV_RUNTIME_SYNC_DEPTH, DEV_RUNTIME_PENDING_LAUNCH_COUNT, "
                      "MAX_L2_FETCH_GRANULARITY or PERSISTING_L2_CACHE_SIZE");
}

}  // namespace

void bind_devices(nb::module_& m) {
  nb::class_<Device>(m, "Device", "A device (PyCUDA's Device); its context is the primary one.")
      .def(
          "__init__",
          [](Device* self, nb::handle ordinal) {
            new (self) Device(Device::get(int_argument<int>(ordinal, "Device", "ordinal")));
          },
          nb::arg("ordinal").none() = 0)
      .def_static(
          "count", [] { return Device::count(); }, "Number of devices.")
      .def_static("_current", [] { return Device::current(); })
      .def("name", [](const Device& d) { return d.name(); })
      .def("compute_capability",
           [](const Device& d) {
             auto [major, minor] = d.compute_capability();
             return nb::make_tuple(major, minor);
           })
      .def("total_memory", [](const Device& d) { return d.total_memory(); })
      .def("pci_bus_id", [](const Device& d) { return d.pci_bus_id(); })
      .def(
          "can_access_peer",
          [](const Device& d, const Device& peer) { return d.can_access_peer(peer); },
          nb::arg("dev"),
          "Whether this device can access dev's memory directly (cuDeviceCanAccessPeer).")
      .def(
          "get_attribute",
          [](const Device& d, nb::handle attribute) {
            return d.attribute(static_cast<DeviceAttribute>(
                int_argument<int>(attribute, "Device.get_attribute", "attribute")));
          },
          nb::arg("attribute").none())
      .def("_attributes", [](const Device& d) { return d.attributes(); })
      .def("_make_current", [](const Device& d) { d.make_current(); })
      .def("_synchronize",
           [](const Device& d) {
             evaluate_all_pending();
             d.synchronize();
           })
      .def("_limit",
           [](const Device& d, nb::handle which) {
             return d.limit(to_limit(int_argument<int>(which, "Context.get_limit", "limit")));
           })
      .def("_set_limit",
           [](const Device& d, nb::handle which, nb::handle value) {
             const ContextLimit limit =
                 to_limit(int_argument<int>(which, "Context.set_limit", "limit"));
             d.set_limit(limit, int_argument<std::size_t>(value, "Context.set_limit", "value"));
           })
      .def("_cache_config", [](const Device& d) { return static_cast<int>(d.cache_preference()); })
      .def("_set_cache_config",
           [](const Device& d, nb::handle value) {
             d.set_cache_preference(cache_preference_from_int(
                 int_argument<long long>(value, "Context.set_cache_config", "config"),
                 "Context.set_cache_config"));
           })
      .def("_shared_config",
           [](const Device& d) { return static_cast<int>(d.shared_memory_bank_size()); })
      .def("_set_shared_config",
           [](const Device& d, nb::handle value) {
             d.set_shared_memory_bank_size(shared_memory_bank_size_from_int(
                 int_argument<long long>(value, "Context.set_shared_config", "config"),
                 "Context.set_shared_config"));
           })
      .def("_memory_info",
           [](const Device& d) {
             MemoryInfo info = d.memory_info();
             return nb::make_tuple(info.free, info.total);
           })
      .def_prop_ro("ordinal", &Device::ordinal)
      .def_prop_ro("backend",
                   [](const Device& d) { return std::string(to_string(d.backend_kind())); })
      .def("arch", &Device::arch)
      .def("describe", &Device::describe)
      .def("__eq__",
           [](const Device& a, nb::handle b) {
             return nb::isinstance<Device>(b) && a == nb::cast<const Device&>(b);
           })
      .def("__hash__", [](const Device& d) { return d.ordinal() * 2 + int(d.backend_kind()); });

  m.def("_device_attribute_items", [] {
    nb::list items;
    for (const DeviceAttributeName& entry : device_attribute_names())
      items.append(nb::make_tuple(std::string(entry.name), int(entry.attribute)));
    return items;
  });
  m.def("_driver_version", [] {
    const BackendKind kind = default_backend_kind();
    return kind == BackendKind::cuda ? detail::backend_of(Device::get(0)).driver_version() : 0;
  });
  m.def("_toolkit_version", [] { return CUDAKIT_TOOLKIT_VERSION; });
  m.def("_backend", [] { return std::string(to_string(default_backend_kind())); });
}

void bind_driver(nb::module_& m) {
  bind_devices(m);
  bind_memory(m);
  bind_cuda_arrays(m);
  bind_host_memory(m);
  bind_managed_memory(m);
  bind_ipc_memory(m);
  bind_streams(m);
  bind_graph(m);
}

}  // namespace cudakit::python
