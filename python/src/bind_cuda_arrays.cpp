// cudakit.driver's CUDA arrays and box copies: the CudaArray class (the base
// of driver.Array) and _copy_3d, which runs one of PyCUDA's Memcpy2D /
// Memcpy3D / Memcpy3DPeer objects (python/cudakit/_cuda_arrays.py) by
// reading its PyCUDA-named fields. Every check is the core's (copy_3d.cpp)
// except what only Python knows: the size of the host and device objects.
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "backend/backend.hpp"
#include "cudakit/cuda_array.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/stream.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

std::size_t field(nb::handle copy, const std::string& name, const char* use) {
  nb::object value = nb::getattr(copy, name.c_str(), nb::int_(0));
  return static_cast<std::size_t>(unsigned_argument(value, use, name.c_str()));
}

// One end of the copy from the object's `src_*` / `dst_*` fields and what
// set_src_* / set_dst_* stored (`_src_kind`, `_src`, `_src_ordinal`).
CopyEnd read_end(nb::handle copy, const std::string& side, bool is_destination, bool three_d,
                 const char* use) {
  CopyEnd end;
  const nb::object kind_object = nb::getattr(copy, ("_" + side + "_kind").c_str(), nb::none());
  if (kind_object.is_none())
    throw ArgumentError(
        use, "the " + std::string(is_destination ? "destination" : "source") + " is not set",
        "call set_" + side + "_host / set_" + side + "_device / set_" + side + "_array (or set_" +
            side + "_unified) first");
  std::string kind = nb::cast<std::string>(kind_object);
  nb::object target = nb::getattr(copy, ("_" + side).c_str());
  end.x_bytes = field(copy, side + "_x_in_bytes", use);
  end.y = field(copy, side + "_y", use);
  if (three_d) {
    end.z = field(copy, side + "_z", use);
    end.height = field(copy, side + "_height", use);
  }
  end.pitch = field(copy, side + "_pitch", use);
  const nb::object ordinal = nb::getattr(copy, ("_" + side + "_ordinal").c_str(), nb::none());
  if (!ordinal.is_none()) end.device_ordinal = nb::cast<int>(ordinal);
  if (kind == "unified") {
    // An address the driver tells apart: device memory when an allocation
    // holds it, else host memory; a buffer object is host memory.
    kind = "host";
    if (nb::isinstance<nb::int_>(target) || nb::hasattr(target, "__cuda_array_interface__") ||
        nb::hasattr(target, "gpudata")) {
      kind = "device";
      if (nb::isinstance<nb::int_>(target)) {
        const auto address = nb::cast<std::uint64_t>(target);
        try {
          detail::backend_of(Device::current()).address_range(address);
        } catch (const Error&) {
          end.kind = CopyEnd::Kind::host;
          end.host = reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
          return end;
        }
      }
    }
  }
  if (kind == "array") {
    end.kind = CopyEnd::Kind::array;
    end.array = nb::cast<const CudaArray*>(target);
  } else if (kind == "device") {
    const DeviceTarget device = device_target(target, use);
    end.kind = CopyEnd::Kind::device;
    end.device = device.address;
    if (device.capacity != std::numeric_limits<std::size_t>::max()) end.bytes = device.capacity;
  } else {
    const HostSpan host = host_span(target, is_destination, use);
    end.kind = CopyEnd::Kind::host;
    end.host = host.data;
    end.bytes = host.bytes;
    if (!end.bytes)
      throw ArgumentError(use, "the host " + side + " buffer is empty",
                          "pass a buffer that holds the box");
  }
  return end;
}

void run_copy(nb::handle copy, nb::handle stream, bool async, bool three_d, const char* use) {
  Copy3D c;
  c.src = read_end(copy, "src", false, three_d, use);
  c.dst = read_end(copy, "dst", true, three_d, use);
  c.width_bytes = field(copy, "width_in_bytes", use);
  c.height = field(copy, "height", use);
  c.depth = three_d ? field(copy, "depth", use) : 1;
  if (c.width_bytes == 0 || c.height == 0 || c.depth == 0)
    throw ArgumentError(use,
                        "the box is " + std::to_string(c.width_bytes) + " bytes x " +
                            std::to_string(c.height) + " rows x " + std::to_string(c.depth) +
                            " slices: nothing to copy",
                        three_d ? "set width_in_bytes, height and depth (1 for one slice)"
                                : "set width_in_bytes and height");
  if (async) {
    void* native = native_stream(stream);
    Device device = Device::current();
    if (c.src.kind == CopyEnd::Kind::array && c.src.array && !c.src.array->empty())
      device = c.src.array->device();
    else if (c.dst.kind == CopyEnd::Kind::array && c.dst.array && !c.dst.array->empty())
      device = c.dst.array->device();
    const Stream s = Stream::wrap(device, native);
    copy_3d_async(c, s);
    return;
  }
  nb::gil_scoped_release unlocked;
  copy_3d(c);
}

}  // namespace

void bind_cuda_arrays(nb::module_& m) {
  nb::class_<CudaArray>(m, "CudaArray", "A CUDA array (cuArray3DCreate): the base of driver.Array.")
      .def(
          "__init__",
          [](CudaArray* self, nb::handle width, nb::handle height, nb::handle depth,
             nb::handle format, nb::handle channels, nb::handle flags) {
            const char* use = "Array";
            CudaArrayDescriptor d;
            d.width = static_cast<std::size_t>(unsigned_argument(width, use, "width"));
            d.height = static_cast<std::size_t>(unsigned_argument(height, use, "height"));
            d.depth = static_cast<std::size_t>(unsigned_argument(depth, use, "depth"));
            d.format = static_cast<ArrayFormat>(unsigned_argument(format, use, "format", 0xffff));
            d.channels = static_cast<unsigned>(
                unsigned_argument(channels, use, "num_channels", 0xffffffffu));
            d.flags = static_cast<unsigned>(unsigned_argument(flags, use, "flags", 0xffffffffu));
            Device device = Device::current();
            device.make_current();
            new (self) CudaArray(device, d);
          },
          nb::arg("width").none(), nb::arg("height").none(), nb::arg("depth").none(),
          nb::arg("format").none(), nb::arg("num_channels").none(), nb::arg("flags").none())
      .def("free", &CudaArray::reset, "Gives the array's memory back now.")
      .def_prop_ro("freed", &CudaArray::empty)
      .def_prop_ro(
          "handle",
          [](const CudaArray& a) {
            return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(a.native()));
          })
      .def_prop_ro("_width", [](const CudaArray& a) { return a.descriptor().width; })
      .def_prop_ro("_height", [](const CudaArray& a) { return a.descriptor().height; })
      .def_prop_ro("_depth", [](const CudaArray& a) { return a.descriptor().depth; })
      .def_prop_ro("_format",
                   [](const CudaArray& a) { return static_cast<unsigned>(a.descriptor().format); })
      .def_prop_ro("_num_channels", [](const CudaArray& a) { return a.descriptor().channels; })
      .def_prop_ro("_flags", [](const CudaArray& a) { return a.descriptor().flags; })
      .def_prop_ro("_element_bytes",
                   [](const CudaArray& a) { return a.descriptor().element_bytes(); })
      .def_prop_ro("nbytes", &CudaArray::bytes);

  m.def(
      "_copy_3d",
      [](nb::handle copy, nb::handle stream, bool async, bool three_d, const std::string& use) {
        run_copy(copy, stream, async, three_d, use.c_str());
      },
      nb::arg("copy"), nb::arg("stream").none(), nb::arg("async_"), nb::arg("three_d"),
      nb::arg("use"),
      "Runs a Memcpy2D / Memcpy3D / Memcpy3DPeer object: synchronously, or queued on `stream`.");
}

}  // namespace cudakit::python
