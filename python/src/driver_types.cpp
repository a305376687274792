// Conversions shared by the driver functions and the launch path.
#include "driver_types.hpp"

#include <nanobind/stl/string.h>

#include <cstdio>
#include <string>

#include "cudakit/error.hpp"
#include "cudakit/stream.hpp"

namespace cudakit::python {
namespace {

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string python_type_name(nb::handle obj) { return nb::type_name(obj.type()).c_str(); }

// Struct-module format of a buffer -> element type.
ElementType element_from_format(const char* format, Py_ssize_t itemsize) {
  ElementType e;
  e.size = static_cast<unsigned char>(itemsize);
  if (!format) return {'u', 1};
  const char* f = format;
  while (*f == '<' || *f == '>' || *f == '=' || *f == '@' || *f == '!') ++f;
  if (f[0] == 0 || f[1] != 0) {
    e.kind = 'V';
    return e;
  }
  switch (*f) {
    case 'e':
    case 'f':
    case 'd':
      e.kind = 'f';
      break;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n':
      e.kind = 'i';
      break;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N':
    case 'c':
      e.kind = 'u';
      break;
    case '?':
      e.kind = 'b';
      break;
    default:
      e.kind = 'V';
  }
  return e;
}

// `value` as a Python int, or a TypeError naming the argument.
nb::object python_index(nb::handle value, const char* use, const char* name) {
  PyObject* index = PyNumber_Index(value.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw nb::type_error((std::string(use) + ": " + name + " must be an integer, got " +
                          python_type_name(value) + " " + nb::cast<std::string>(nb::repr(value)))
                             .c_str());
  }
  return nb::steal(index);
}

[[noreturn]] void out_of_range(const nb::object& index, const char* use, const char* name,
                               const std::string& min, const std::string& max, const char* hint) {
  throw ArgumentError(use,
                      std::string(name) + " must be in " + min + ".." + max + ", got " +
                          nb::cast<std::string>(nb::str(index)),
                      hint != nullptr ? hint : "pass a value in that range");
}

}  // namespace

std::int64_t signed_argument(nb::handle value, const char* use, const char* name, std::int64_t min,
                             std::int64_t max, const char* hint) {
  const nb::object index = python_index(value, use, name);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow == 0 && v == -1 && PyErr_Occurred()) throw nb::python_error();
  if (overflow != 0 || v < min || v > max)
    out_of_range(index, use, name, std::to_string(min), std::to_string(max), hint);
  return v;
}

std::uint64_t unsigned_argument(nb::handle value, const char* use, const char* name,
                                std::uint64_t max, const char* hint) {
  const nb::object index = python_index(value, use, name);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow == 0 && v == -1 && PyErr_Occurred()) throw nb::python_error();
  std::uint64_t u = 0;
  if (overflow == 0) {
    if (v < 0) out_of_range(index, use, name, "0", std::to_string(max), hint);
    u = static_cast<std::uint64_t>(v);
  } else if (overflow > 0) {
    u = PyLong_AsUnsignedLongLong(index.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      out_of_range(index, use, name, "0", std::to_string(max), hint);
    }
  } else {
    out_of_range(index, use, name, "0", std::to_string(max), hint);
  }
  if (u > max) out_of_range(index, use, name, "0", std::to_string(max), hint);
  return u;
}

DeviceAllocation::DeviceAllocation(const Device& device, std::size_t bytes)
    : buffer_(device, bytes, Allocator::direct), address_(buffer_.address()), bytes_(bytes) {}

std::uint64_t DeviceAllocation::address(const char* use) const {
  if (freed_)
    throw ArgumentError(use, "the " + describe() + " was freed (DeviceAllocation.free())",
                        "allocate new memory with mem_alloc, or keep the allocation until the "
                        "last use of it");
  return address_;
}

void DeviceAllocation::free() {
  if (freed_) return;
  buffer_.reset();
  freed_ = true;
}

std::string DeviceAllocation::describe() const {
  return "DeviceAllocation of " + std::to_string(bytes_) + " bytes at " + hex(address_);
}

HostSpan host_span(nb::handle obj, bool writable, const char* use) {
  Py_buffer view;
  int flags = PyBUF_ANY_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj.ptr(), &view, flags) != 0) {
    PyErr_Clear();
    // Tell apart "not contiguous" and "read-only" from "not a buffer at all".
    Py_buffer any;
    if (PyObject_GetBuffer(obj.ptr(), &any, PyBUF_STRIDES) == 0) {
      const bool read_only = any.readonly != 0;
      std::string layout;  // " of shape (5, 10) with strides (80, 8)"
      if (any.ndim > 0 && any.shape && any.strides) {
        std::string shape, strides;
        for (int d = 0; d < any.ndim; ++d) {
          shape += (d ? ", " : "") + std::to_string(any.shape[d]);
          strides += (d ? ", " : "") + std::to_string(any.strides[d]);
        }
        if (any.ndim == 1) shape += ",", strides += ",";
        layout = " of shape (" + shape + ") with strides (" + strides + ")";
      }
      PyBuffer_Release(&any);
      if (writable && read_only)
        throw ArgumentError(use, "the host " + python_type_name(obj) + " is read-only",
                            "pass a writable array (numpy.array(a) makes a writable copy)");
      // C- and Fortran-ordered arrays (a.T of a C array) are one block and
      // are copied as their bytes lie, as PyCUDA copies them.
      throw ArgumentError(use,
                          "the host " + python_type_name(obj) + layout +
                              " is not contiguous (a strided view such as a[::2] or a[:, :3]): "
                              "its elements are not one block of memory",
                          "pass numpy.ascontiguousarray(a), and for Out/InOut copy the result "
                          "back into the view (view[...] = result)");
    }
    PyErr_Clear();
    throw ArgumentError(
        use, "expected a host buffer (a numpy array, bytes, ...), got " + python_type_name(obj),
        "pass a numpy array");
  }
  HostSpan span{view.buf, static_cast<std::size_t>(view.len),
                element_from_format(view.format, view.itemsize)};
  PyBuffer_Release(&view);
  return span;
}

HostArg::HostArg(nb::object obj, TransferDirection dir)
    : array(std::move(obj)),
      span(host_span(array, dir != TransferDirection::in,
                     dir == TransferDirection::in    ? "In"
                     : dir == TransferDirection::out ? "Out"
                                                     : "InOut")),
      direction(dir) {}

const char* HostArg::name() const noexcept {
  return direction == TransferDirection::in    ? "In"
         : direction == TransferDirection::out ? "Out"
                                               : "InOut";
}

bool try_device_target(nb::handle obj, DeviceTarget& out, const char* use) {
  if (nb::isinstance<DeviceAllocation>(obj)) {
    const DeviceAllocation& a = nb::cast<const DeviceAllocation&>(obj);
    out = {a.address(use), a.bytes(), {}};
    return true;
  }
  if (PyLong_CheckExact(obj.ptr())) {
    out = {unsigned_argument(obj, use, "the device address"), DeviceTarget{}.capacity, {}};
    return true;
  }
  PyObject* cai = PyObject_GetAttrString(obj.ptr(), "__cuda_array_interface__");
  if (cai) {
    nb::object iface = nb::steal(cai);
    nb::tuple data = nb::cast<nb::tuple>(iface["data"]);
    out.address = unsigned_argument(data[0], use, "__cuda_array_interface__['data'][0]");
    std::string typestr = nb::cast<std::string>(iface["typestr"]);
    out.element =
        typestr.size() >= 3
            ? ElementType{typestr[1], static_cast<unsigned char>(std::stoi(typestr.substr(2)))}
            : ElementType{};
    std::size_t count = 1;
    for (nb::handle extent : nb::cast<nb::tuple>(iface["shape"]))
      count *=
          int_argument<std::size_t>(extent, use, "an extent of __cuda_array_interface__['shape']");
    nb::object strides = iface.attr("get")("strides");
    // Contiguous (no strides, or the C-contiguous ones written out, as
    // GPUArrays give them): exactly count elements; strided: at least up to
    // the last one.
    bool contiguous = strides.is_none();
    if (!contiguous) {
      const nb::tuple shape = nb::cast<nb::tuple>(iface["shape"]);
      const nb::tuple steps = nb::cast<nb::tuple>(strides);
      contiguous = steps.size() == shape.size();
      std::int64_t step = out.element.size;
      for (std::size_t k = shape.size(); contiguous && k-- > 0;) {
        const auto extent = int_argument<std::int64_t>(
            shape[k], use, "an extent of __cuda_array_interface__['shape']");
        if (extent != 1 &&
            int_argument<std::int64_t>(steps[k], use,
                                       "a stride of __cuda_array_interface__['strides']") != step)
          contiguous = false;
        step *= extent;
      }
    }
    out.capacity = contiguous ? count * out.element.size : DeviceTarget{}.capacity;
    return true;
  }
  PyErr_Clear();
  PyObject* gpudata = PyObject_GetAttrString(obj.ptr(), "gpudata");
  if (gpudata) {
    nb::object inner = nb::steal(gpudata);
    return try_device_target(inner, out, use);
  }
  PyErr_Clear();
  // PyCUDA's PointerHolderBase: memory allocated elsewhere, its address
  // from get_pointer().
  PyObject* get_pointer = PyObject_GetAttrString(obj.ptr(), "get_pointer");
  if (get_pointer) {
    nb::object method = nb::steal(get_pointer);
    nb::object pointer = method();
    if (!PyLong_Check(pointer.ptr()))
      throw ArgumentError(use,
                          python_type_name(obj) + ".get_pointer() returned a " +
                              python_type_name(pointer) + ", not an int device address",
                          "return int(address) from get_pointer()");
    out = {unsigned_argument(pointer, use, "get_pointer()"), DeviceTarget{}.capacity, {}};
    return true;
  }
  PyErr_Clear();
  return false;
}

DeviceTarget device_target(nb::handle obj, const char* use) {
  DeviceTarget target;
  if (try_device_target(obj, target, use)) return target;
  throw ArgumentError(use, "expected device memory, got " + python_type_name(obj),
                      "pass a DeviceAllocation (mem_alloc), a GPUArray, an int device address, "
                      "or an object with __cuda_array_interface__ (a torch tensor, a CuPy array)");
}

void* native_stream(nb::handle obj) {
  if (obj.is_none()) return nullptr;
  if (nb::isinstance<Stream>(obj)) return nb::cast<const Stream&>(obj).native();
  auto as_handle = [](nb::handle h) {
    return reinterpret_cast<void*>(
        static_cast<std::uintptr_t>(unsigned_argument(h, "choosing the stream", "the handle")));
  };
  if (PyLong_Check(obj.ptr())) return as_handle(obj);
  if (nb::hasattr(obj, "__cuda_stream__")) {
    nb::object protocol = obj.attr("__cuda_stream__")();
    return as_handle(nb::cast<nb::tuple>(protocol)[1]);
  }
  if (nb::hasattr(obj, "cuda_stream")) return as_handle(obj.attr("cuda_stream"));
  throw ArgumentError("choosing the stream", "expected a stream, got " + python_type_name(obj),
                      "pass a cudakit Stream, None for the default stream, an int handle, or an "
                      "object with __cuda_stream__ / cuda_stream (torch.cuda.current_stream())");
}

}  // namespace cudakit::python
