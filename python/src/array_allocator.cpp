#include "array_allocator.hpp"

#include <nanobind/stl/string.h>

#include <string>

#include "array_streams.hpp"

namespace cudakit::python {

std::shared_ptr<void> keep_alive(nb::handle object) {
  PyObject* o = object.ptr();
  Py_INCREF(o);
  return std::shared_ptr<void>(o, [](void* p) {
    // After nanobind's teardown (static destructors at exit) nothing may be released.
    if (!nb::is_alive()) return;
    // Released from Python, or while the interpreter clears the modules at
    // exit (Py_IsInitialized() is false by then, but this thread holds the
    // GIL): drop the reference, so the owner goes too and no leak is reported.
    if (PyGILState_Check()) {
      Py_DECREF(static_cast<PyObject*>(p));
      return;
    }
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(p));
  });
}

nb::object allocate_array(nb::handle allocator, const Shape& shape, DType dtype, Order order,
                          const std::optional<Stream>& stream) {
  const std::size_t bytes = static_cast<std::size_t>(shape_size(shape)) * itemsize(dtype);
  if (bytes == 0) {
    Array a = numpy_errors(
        [&] { return stream ? empty(shape, dtype, *stream, order) : empty(shape, dtype, order); });
    nb::object out = wrap(std::move(a));
    as_gpuarray(out).allocator = nb::borrow(allocator);
    return out;
  }
  nb::object allocation = allocator(bytes);
  std::uint64_t address = 0;
  try {
    address = nb::cast<std::uint64_t>(nb::int_(allocation));
  } catch (const std::exception&) {
    throw nb::type_error(("allocator(" + std::to_string(bytes) + ") returned a " +
                          std::string(nb::type_name(allocation.type()).c_str()) +
                          ", which has no int() device address: return a DeviceAllocation "
                          "(cudakit.driver.mem_alloc(nbytes), a DeviceMemoryPool's "
                          "allocate(nbytes)) or an object whose int() is the address")
                             .c_str());
  }
  if (address == 0)
    throw nb::value_error(
        ("allocator(" + std::to_string(bytes) + ") returned a null device address").c_str());
  std::vector<std::int64_t> strides_bytes;
  for (std::int64_t st : contiguous_strides(shape, order))
    strides_bytes.push_back(st * static_cast<std::int64_t>(itemsize(dtype)));
  Array a = numpy_errors([&] {
    return from_pointer(address, shape, strides_bytes, dtype, Device::current(),
                        keep_alive(allocation), false, stream);
  });
  nb::object out = wrap(std::move(a));
  as_gpuarray(out).allocator = nb::borrow(allocator);
  return out;
}

nb::object into_allocated(nb::object result, nb::handle allocator,
                          const std::optional<Stream>& stream) {
  if (!allocator.is_valid() || allocator.is_none()) return result;
  GPUArrayObject& source = as_gpuarray(result);
  const Array& value = source.value();
  nb::object out = allocate_array(allocator, value.shape(), value.dtype(), Order::C,
                                  stream ? stream : std::optional<Stream>(value.stream()));
  Array target = as_gpuarray(out).value();
  numpy_errors([&] { target.assign(value); });
  return out;
}

}  // namespace cudakit::python
