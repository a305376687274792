// cudakit.driver's memory: mem_alloc (DeviceAllocation), copies between host
// and device, memset, page-locked host memory, In/Out/InOut. Every copy is
// checked against the sizes it can know (a DeviceAllocation's, a
// __cuda_array_interface__'s) before anything is written.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <limits>
#include <string>

#include "backend/backend.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/pinned_buffer.hpp"
#include "cudakit/stream.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

void* as_pointer(std::uint64_t address) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}

void check_fits(const char* use, std::size_t bytes, const DeviceTarget& target, const char* side) {
  if (bytes > target.capacity)
    throw ArgumentError(use,
                        std::to_string(bytes) + " bytes do not fit the " + side + " (" +
                            std::to_string(target.capacity) + " bytes)",
                        "copy at most the allocation's size: allocate more with mem_alloc, or "
                        "copy a slice of the host array");
}

Device current_device() {
  Device d = Device::current();
  d.make_current();
  return d;
}

void copy(void* dst, const void* src, std::size_t bytes, nb::handle stream, bool async) {
  if (bytes == 0) return;
  Device d = current_device();
  void* native = native_stream(stream);
  nb::gil_scoped_release unlocked;
  detail::backend_of(d).copy(dst, src, bytes, native, async);
}

void htod(nb::handle dest, nb::handle src, nb::handle stream, bool async, const char* use) {
  DeviceTarget target = device_target(dest, use);
  HostSpan host = host_span(src, false, use);
  check_fits(use, host.bytes, target, "destination");
  copy(as_pointer(target.address), host.data, host.bytes, stream, async);
}

void dtoh(nb::handle dest, nb::handle src, nb::handle stream, bool async, const char* use) {
  HostSpan host = host_span(dest, true, use);
  DeviceTarget target = device_target(src, use);
  check_fits(use, host.bytes, target, "source");
  copy(host.data, as_pointer(target.address), host.bytes, stream, async);
}

void dtod(nb::handle dest, nb::handle src, std::size_t bytes, nb::handle stream, bool async,
          const char* use) {
  DeviceTarget to = device_target(dest, use), from = device_target(src, use);
  check_fits(use, bytes, to, "destination");
  check_fits(use, bytes, from, "source");
  copy(as_pointer(to.address), as_pointer(from.address), bytes, stream, async);
}

// The value is an unsigned number of the element's width, as the driver's
// cuMemsetD8/D16/D32 (and PyCUDA, which refuses negative values) take it.
void memset(nb::handle dest, nb::handle value_object, unsigned element_bytes,
            nb::handle count_object, nb::handle stream, bool async, const char* use) {
  const std::string hint = "an unsigned " + std::to_string(8 * element_bytes) +
                           "-bit value; for the bits of a negative number v pass v & " +
                           (element_bytes == 1   ? "0xFF"
                            : element_bytes == 2 ? "0xFFFF"
                                                 : "0xFFFFFFFF");
  const auto value = static_cast<std::uint32_t>(unsigned_argument(
      value_object, use, "data", (std::uint64_t{1} << (8 * element_bytes)) - 1, hint.c_str()));
  const auto count = int_argument<std::size_t>(count_object, use, "count");
  DeviceTarget target = device_target(dest, use);
  if (count > std::numeric_limits<std::size_t>::max() / element_bytes)
    throw ArgumentError(use,
                        "count " + std::to_string(count) + " of " + std::to_string(element_bytes) +
                            "-byte values overflows a size",
                        "pass the number of values that fit the destination");
  check_fits(use, count * element_bytes, target, "destination");
  if (count == 0) return;
  Device d = current_device();
  void* native = native_stream(stream);
  detail::backend_of(d).fill(target.address, value, element_bytes, count, native, async);
}

// Page-locked bytes as a 1-D uint8 numpy array that frees them when the last
// view of it goes away.
nb::object pinned_bytes(std::size_t bytes) {
  void* data = detail::allocate_pinned_bytes(bytes ? bytes : 1);
  nb::capsule owner(data, [](void* p) noexcept { detail::free_pinned_bytes(p); });
  std::size_t shape[1] = {bytes};
  return nb::cast(nb::ndarray<nb::numpy, std::uint8_t, nb::ndim<1>>(data, 1, shape, owner));
}

}  // namespace

void bind_memory(nb::module_& m) {
  nb::class_<DeviceAllocation>(m, "DeviceAllocation",
                               "Device memory from mem_alloc: usable wherever a pointer is "
                               "expected. free() gives it back now.")
      .def("__int__", [](const DeviceAllocation& a) { return a.address("int(DeviceAllocation)"); })
      .def("__index__",
           [](const DeviceAllocation& a) { return a.address("int(DeviceAllocation)"); })
      .def("free", &DeviceAllocation::free)
      .def_prop_ro("size", &DeviceAllocation::bytes)
      .def_prop_ro("freed", &DeviceAllocation::freed)
      .def("__len__", &DeviceAllocation::bytes)
      .def("__repr__", [](const DeviceAllocation& a) { return "<" + a.describe() + ">"; });

  m.def(
      "mem_alloc",
      [](nb::handle bytes) {
        return new DeviceAllocation(current_device(),
                                    int_argument<std::size_t>(bytes, "mem_alloc", "bytes"));
      },
      nb::arg("bytes").none(), "Allocates `bytes` of device memory.");
  m.def("mem_get_info", [] {
    MemoryInfo info = mem_get_info();
    return nb::make_tuple(info.free, info.total);
  });

  nb::object none = nb::none();
  m.def(
      "memcpy_htod",
      [](nb::handle d, nb::handle s) { htod(d, s, nb::none(), false, "memcpy_htod"); },
      nb::arg("dest").none(), nb::arg("src").none());
  m.def(
      "memcpy_htod_async",
      [](nb::handle d, nb::handle s, nb::handle st) { htod(d, s, st, true, "memcpy_htod_async"); },
      nb::arg("dest").none(), nb::arg("src").none(), nb::arg("stream").none() = none);
  m.def(
      "memcpy_dtoh",
      [](nb::handle d, nb::handle s) { dtoh(d, s, nb::none(), false, "memcpy_dtoh"); },
      nb::arg("dest").none(), nb::arg("src").none());
  m.def(
      "memcpy_dtoh_async",
      [](nb::handle d, nb::handle s, nb::handle st) { dtoh(d, s, st, true, "memcpy_dtoh_async"); },
      nb::arg("dest").none(), nb::arg("src").none(), nb::arg("stream").none() = none);
  m.def(
      "memcpy_dtod",
      [](nb::handle d, nb::handle s, nb::handle n) {
        dtod(d, s, int_argument<std::size_t>(n, "memcpy_dtod", "size"), nb::none(), false,
             "memcpy_dtod");
      },
      nb::arg("dest").none(), nb::arg("src").none(), nb::arg("size").none());
  m.def(
      "memcpy_dtod_async",
      [](nb::handle d, nb::handle s, nb::handle n, nb::handle st) {
        dtod(d, s, int_argument<std::size_t>(n, "memcpy_dtod_async", "size"), st, true,
             "memcpy_dtod_async");
      },
      nb::arg("dest").none(), nb::arg("src").none(), nb::arg("size").none(),
      nb::arg("stream").none() = none);

  struct Fill {
    const char* name;
    const char* async_name;
    unsigned bytes;
  };
  for (Fill f : {Fill{"memset_d8", "memset_d8_async", 1}, Fill{"memset_d16", "memset_d16_async", 2},
                 Fill{"memset_d32", "memset_d32_async", 4}}) {
    m.def(
        f.name,
        [f](nb::handle d, nb::handle value, nb::handle count) {
          memset(d, value, f.bytes, count, nb::none(), false, f.name);
        },
        nb::arg("dest").none(), nb::arg("data").none(), nb::arg("count").none());
    m.def(
        f.async_name,
        [f](nb::handle d, nb::handle value, nb::handle count, nb::handle st) {
          memset(d, value, f.bytes, count, st, true, f.async_name);
        },
        nb::arg("dest").none(), nb::arg("data").none(), nb::arg("count").none(),
        nb::arg("stream").none() = none);
  }

  m.def(
      "_pinned_bytes",
      [](nb::handle bytes) {
        return pinned_bytes(int_argument<std::size_t>(bytes, "pagelocked_empty", "bytes"));
      },
      nb::arg("bytes"));

  nb::class_<HostArg>(m, "_HostArg")
      .def_prop_ro("array", [](const HostArg& h) { return h.array; })
      .def("__repr__", [](const HostArg& h) {
        return std::string(h.name()) + "(" + std::to_string(h.span.bytes) + " bytes of " +
               h.span.element.describe() + ")";
      });
  m.def(
      "In", [](nb::object a) { return new HostArg(std::move(a), TransferDirection::in); },
      nb::arg("array").none(), "Host data copied to the device before the launch.");
  m.def(
      "Out", [](nb::object a) { return new HostArg(std::move(a), TransferDirection::out); },
      nb::arg("array").none(), "Host memory the kernel's output is copied into after the launch.");
  m.def(
      "InOut", [](nb::object a) { return new HostArg(std::move(a), TransferDirection::in_out); },
      nb::arg("array").none(), "Host data copied in before the launch and back after it.");
}

}  // namespace cudakit::python
