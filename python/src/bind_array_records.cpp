// The one primitive behind GPUArrays of numpy structured dtypes
// (gpuarray.vec.float3, registered structs, records; cudakit/_records.py):
// a view of an array's memory with a given dtype, shape, byte strides and
// byte offset, checked to lie inside the allocation, as a GPUArray or an
// instance of a subclass of it that holds records.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <vector>

#include "array_object.hpp"

namespace cudakit::python {
namespace {

GPUArrayObject& any_gpuarray(nb::handle object) {
  GPUArrayObject* p = nullptr;
  if (!nb::try_cast<GPUArrayObject*>(object, p) || p == nullptr)
    throw nb::type_error("_record_view: expected a cudakit GPUArray");
  return *p;
}

// The new object: a plain GPUArray, or an instance of `cls` (a subclass).
nb::object make_instance(nb::handle cls, Array array) {
  if (cls.is_none()) return wrap(std::move(array));
  if (!nb::type_check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()),
                        reinterpret_cast<PyTypeObject*>(nb::type<GPUArrayObject>().ptr())))
    throw nb::type_error("_record_view: cls must be a subclass of GPUArray");
  nb::object instance = nb::inst_alloc(cls);
  new (nb::inst_ptr<GPUArrayObject>(instance)) GPUArrayObject(std::move(array));
  nb::inst_mark_ready(instance);
  return instance;
}

nb::object record_view(nb::handle source, nb::handle dtype, nb::handle shape_object,
                       nb::handle strides_object, std::int64_t offset_bytes,
                       std::int64_t extent_bytes, nb::handle cls, nb::handle records) {
  GPUArrayObject& s = any_gpuarray(source);
  const Array& a = s.value();
  const DType d = dtype_from_python(dtype);
  const Shape shape = shape_from_python(shape_object);
  const std::vector<std::int64_t> strides_bytes = shape_from_python(strides_object);
  if (strides_bytes.size() != shape.size())
    throw nb::value_error("_record_view: one stride per axis is needed");
  const auto size = static_cast<std::int64_t>(itemsize(d));
  // Bytes from the start of the allocation to the new element [0, ...].
  const std::int64_t start = a.offset() * static_cast<std::int64_t>(a.itemsize()) + offset_bytes;
  if (start < 0 || start % size != 0)
    throw nb::value_error(("_record_view: offset " + std::to_string(start) +
                           " is not a non-negative multiple of the itemsize " +
                           std::to_string(size))
                              .c_str());
  Strides strides;
  std::int64_t low = start, high = start;
  bool empty = false;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] < 0) throw nb::value_error("_record_view: negative extent");
    if (strides_bytes[k] % size != 0)
      throw nb::value_error(("_record_view: stride " + std::to_string(strides_bytes[k]) +
                             " is not a multiple of the itemsize " + std::to_string(size))
                                .c_str());
    strides.push_back(strides_bytes[k] / size);
    if (shape[k] == 0) empty = true;
    const std::int64_t reach = (shape[k] - 1) * strides_bytes[k];
    (reach < 0 ? low : high) += reach;
  }
  // Never a view past the allocation: every byte the view (or a kernel
  // reading extent_bytes from its start) may touch lies inside the bytes of
  // `source`, which lie inside the allocation (borrowed memory has no known
  // size; its views stay inside what it was imported as).
  if (extent_bytes > 0) {
    low = start;
    high = start + extent_bytes - size;
  }
  const auto source_item = static_cast<std::int64_t>(a.itemsize());
  std::int64_t source_low = a.offset() * source_item, source_high = source_low;
  bool source_empty = false;
  for (int k = 0; k < a.ndim(); ++k) {
    if (a.shape()[k] == 0) source_empty = true;
    const std::int64_t reach = (a.shape()[k] - 1) * a.strides()[k] * source_item;
    (reach < 0 ? source_low : source_high) += reach;
  }
  if (!empty && (source_empty || low < source_low || high + size > source_high + source_item))
    throw nb::value_error(("_record_view: the view spans bytes [" + std::to_string(low) + ", " +
                           std::to_string(high + size) + ") outside those of the array, [" +
                           std::to_string(source_low) + ", " +
                           std::to_string(source_high + source_item) + ")")
                              .c_str());
  Array view(a.storage(), d, shape, strides, start / size, std::optional<Stream>(a.stream()),
             a.readonly());
  nb::object out = make_instance(cls, std::move(view));
  GPUArrayObject& o = nb::cast<GPUArrayObject&>(out);
  o.base = s.base;
  o.allocator = s.allocator;
  if (!records.is_none()) o.records = nb::borrow(records);
  return out;
}

}  // namespace

void bind_array_records(nb::module_& m) {
  m.def("_record_view", &record_view, nb::arg("source"), nb::arg("dtype"), nb::arg("shape"),
        nb::arg("strides"), nb::arg("offset") = 0, nb::arg("extent_bytes") = 0,
        nb::arg("cls").none() = nb::none(), nb::arg("records").none() = nb::none(),
        "A view of `source`'s memory: `dtype`, `shape`, `strides` and `offset` in bytes "
        "(from source's element [0, ...]), checked to lie inside the allocation "
        "(extent_bytes: the bytes from the first element a kernel touches, when more than the "
        "view's own); an "
        "instance of `cls` (a GPUArray subclass) holding `records` when given.");
  m.def(
      "_records_of",
      [](nb::handle object) -> nb::object {
        GPUArrayObject& o = any_gpuarray(object);
        return o.holds_records() ? o.records : nb::none();
      },
      nb::arg("array"), "The structured dtype of an array of records, else None.");
}

}  // namespace cudakit::python
