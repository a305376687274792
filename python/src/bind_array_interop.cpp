// Zero-copy exchange of GPUArrays: __cuda_array_interface__ (v3) and DLPack
// (__dlpack__, __dlpack_device__, from_dlpack), as capsules and dicts over
// cudakit's array_interop.hpp, which owns the protocol rules and streams.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "array_allocator.hpp"
#include "array_object.hpp"
#include "cudakit/array_interop.hpp"
#include "cudakit/backend_kind.hpp"

namespace cudakit::python {
namespace {

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kUsedLegacyName = "used_dltensor";
constexpr const char* kUsedVersionedName = "used_dltensor_versioned";

// An unconsumed capsule deletes its tensor; a consumed one was renamed.
void legacy_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kLegacyName) == 0) return;
  auto* t = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
}
void versioned_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kVersionedName) == 0) return;
  auto* t =
      static_cast<dlpack::DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
}

// The array behind `self` for export: evaluated, and the pending results that
// read it evaluated too, since the consumer may write the memory.
Array exported(nb::handle self) {
  std::uint64_t address = 0;
  gpuarray_launch_argument(self, address);
  return as_gpuarray(self).value();
}

nb::object dlpack_capsule(nb::handle self, nb::handle stream, nb::handle max_version,
                          nb::handle dl_device, nb::handle copy) {
  Array a = exported(self);
  const dlpack::DLDevice device = dlpack_device(a);
  if (!dl_device.is_none()) {
    auto pair = nb::cast<nb::tuple>(dl_device);
    if (nb::cast<int>(pair[0]) != device.device_type || nb::cast<int>(pair[1]) != device.device_id)
      throw nb::buffer_error(
          "__dlpack__: dl_device differs from the array's device and cudakit does not copy "
          "between devices here; use get() for a host copy");
  }
  const bool make_copy = !copy.is_none() && nb::cast<bool>(copy);
  std::optional<std::intptr_t> consumer;
  if (!stream.is_none()) consumer = nb::cast<std::intptr_t>(stream);
  numpy_errors([&] { prepare_export(a, consumer); });
  bool versioned = false;
  if (!max_version.is_none()) {
    auto version = nb::cast<nb::tuple>(max_version);
    versioned = nb::cast<int>(version[0]) >= 1;
  }
  if (versioned) {
    dlpack::DLManagedTensorVersioned* t =
        numpy_errors([&] { return to_dlpack_versioned(a, make_copy); });
    PyObject* capsule = PyCapsule_New(t, kVersionedName, &versioned_capsule_destructor);
    if (capsule == nullptr) {
      t->deleter(t);
      throw nb::python_error();
    }
    return nb::steal(capsule);
  }
  if (make_copy) a = a.copy();
  dlpack::DLManagedTensor* t = numpy_errors([&] { return to_dlpack(a); });
  PyObject* capsule = PyCapsule_New(t, kLegacyName, &legacy_capsule_destructor);
  if (capsule == nullptr) {
    t->deleter(t);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

nb::dict interface_dict(nb::handle self) {
  Array a = exported(self);
  CudaArrayInterface cai;
  try {
    cai = cuda_array_interface(a);
  } catch (const cudakit::Error& e) {
    // hasattr(a, '__cuda_array_interface__') is False for CPU-backend arrays.
    throw nb::attribute_error(e.what());
  }
  nb::dict d;
  d["shape"] = shape_to_python(cai.shape);
  d["typestr"] = cai.typestr;
  d["data"] = nb::make_tuple(nb::int_(cai.data), nb::bool_(cai.readonly));
  d["version"] = cai.version;
  // Strides always, as PyCUDA's GPUArray gives them (the specification
  // allows None for C-contiguous arrays; every consumer takes both).
  d["strides"] = shape_to_python(a.strides_bytes());
  if (cai.stream) d["stream"] = nb::int_(*cai.stream);
  return d;
}

nb::object from_capsule(nb::handle capsule, nb::handle owner) {
  (void)owner;
  if (PyCapsule_IsValid(capsule.ptr(), kVersionedName) != 0) {
    auto* t = static_cast<dlpack::DLManagedTensorVersioned*>(
        PyCapsule_GetPointer(capsule.ptr(), kVersionedName));
    Array a = numpy_errors([&] { return from_dlpack(t); });
    PyCapsule_SetName(capsule.ptr(), kUsedVersionedName);
    return wrap(std::move(a));
  }
  if (PyCapsule_IsValid(capsule.ptr(), kLegacyName) != 0) {
    auto* t =
        static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kLegacyName));
    Array a = numpy_errors([&] { return from_dlpack(t); });
    PyCapsule_SetName(capsule.ptr(), kUsedLegacyName);
    return wrap(std::move(a));
  }
  throw nb::type_error(
      "from_dlpack: expected an object with __dlpack__ or an unused 'dltensor' / "
      "'dltensor_versioned' capsule");
}

// from_dlpack(x): NumPy's protocol; the consumer's stream is the device's
// default stream (1, the legacy default stream, for CUDA producers).
nb::object import_dlpack(nb::handle producer) {
  if (PyCapsule_CheckExact(producer.ptr())) return from_capsule(producer, nb::none());
  if (!nb::hasattr(producer, "__dlpack__"))
    throw nb::type_error("from_dlpack: the object has no __dlpack__ method");
  nb::object stream = nb::none();
  if (nb::hasattr(producer, "__dlpack_device__")) {
    nb::tuple dev = nb::cast<nb::tuple>(producer.attr("__dlpack_device__")());
    const int type = nb::cast<int>(dev[0]);
    if (type == dlpack::kDLCUDA || type == dlpack::kDLCUDAManaged) stream = nb::int_(1);
  }
  nb::object capsule;
  try {
    capsule = producer.attr("__dlpack__")(nb::arg("stream") = stream,
                                          nb::arg("max_version") = nb::make_tuple(1, 0));
  } catch (const nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    capsule = producer.attr("__dlpack__")(nb::arg("stream") = stream);
  }
  return from_capsule(capsule, producer);
}

CudaArrayInterface interface_from_dict(nb::handle object) {
  nb::dict d = nb::cast<nb::dict>(object.attr("__cuda_array_interface__"));
  CudaArrayInterface cai;
  cai.shape = shape_from_python(d["shape"]);
  cai.typestr = nb::cast<std::string>(d["typestr"]);
  nb::tuple data = nb::cast<nb::tuple>(d["data"]);
  cai.data = nb::cast<std::uint64_t>(nb::int_(data[0]));
  cai.readonly = nb::cast<bool>(data[1]);
  cai.version = d.contains("version") ? nb::cast<int>(d["version"]) : 0;
  if (d.contains("strides") && !nb::handle(d["strides"]).is_none())
    cai.strides_bytes = shape_from_python(d["strides"]);
  if (d.contains("stream") && !nb::handle(d["stream"]).is_none())
    cai.stream = nb::cast<std::intptr_t>(d["stream"]);
  cai.masked = d.contains("mask") && !nb::handle(d["mask"]).is_none();
  return cai;
}

}  // namespace

void bind_array_interop(nb::module_& m, nb::class_<GPUArrayObject>& cls) {
  cls.def_prop_ro("__cuda_array_interface__", &interface_dict,
                  "CUDA Array Interface v3 (GPU arrays only); evaluates pending work first.")
      .def("__dlpack__", &dlpack_capsule, nb::kw_only(), nb::arg("stream").none() = nb::none(),
           nb::arg("max_version").none() = nb::none(), nb::arg("dl_device").none() = nb::none(),
           nb::arg("copy").none() = nb::none())
      .def("__dlpack_device__", [](nb::handle self) {
        const dlpack::DLDevice d = dlpack_device(exported(self));
        return nb::make_tuple(static_cast<int>(d.device_type), d.device_id);
      });
  m.def("from_dlpack", &import_dlpack, nb::arg("x"),
        "A GPUArray viewing the memory of any DLPack producer (torch, CuPy, JAX, NumPy).");
  m.def(
      "from_cuda_array_interface",
      [](nb::handle object) {
        CudaArrayInterface cai = interface_from_dict(object);
        Array a = numpy_errors([&] { return from_cuda_array_interface(cai, keep_alive(object)); });
        return wrap(std::move(a), nb::borrow(object));
      },
      nb::arg("obj"),
      "A GPUArray viewing the memory of an object with __cuda_array_interface__ (no copy).");
}

}  // namespace cudakit::python
