// Each Python argument becomes one kernel argument. Checked in the order of
// how common they are: DeviceAllocation, Python int/float, numpy scalars
// (their type is kept: numpy.float32 is a float), In/Out/InOut, then device
// memory by protocol (__cuda_array_interface__, gpudata), records. GPUArrays
// and cudakit.cuda's device arrays are read through their C++ object, without
// building the protocol's dict.
#include "arg_convert.hpp"

#include <nanobind/stl/string.h>

#include <cstring>
#include <string>
#include <vector>

#include "array_object.hpp"
#include "cudakit/error.hpp"
#include "jit_array.hpp"

namespace cudakit::python {
namespace {

struct NumpyScalar {
  PyTypeObject* type;
  ScalarType scalar;
  unsigned char size;
  bool read_in_place;  // the value sits right after the object header
};

struct NumpyTypes {
  bool loaded = false;
  bool available = false;
  std::vector<NumpyScalar> scalars;
  PyTypeObject* ndarray = nullptr;
  PyTypeObject* generic = nullptr;  // numpy.generic: any numpy scalar
};

ScalarType scalar_for(char kind, int size) {
  switch (kind) {
    case 'b':
      return ScalarType::boolean;
    case 'i':
      return size == 1   ? ScalarType::i8
             : size == 2 ? ScalarType::i16
             : size == 4 ? ScalarType::i32
                         : ScalarType::i64;
    case 'u':
      return size == 1   ? ScalarType::u8
             : size == 2 ? ScalarType::u16
             : size == 4 ? ScalarType::u32
                         : ScalarType::u64;
    case 'f':
      return size == 2 ? ScalarType::f16 : size == 4 ? ScalarType::f32 : ScalarType::f64;
    default:
      return ScalarType::unknown;
  }
}

// numpy's scalar types, found once. Each type's value is read in place
// (numpy's Py<Type>ScalarObject: the header, then the value) when a probe
// value reads back right, else through the buffer protocol.
NumpyTypes& numpy_types() {
  static NumpyTypes types;
  if (types.loaded) return types;
  types.loaded = true;
  nb::object np;
  try {
    np = nb::module_::import_("numpy");
  } catch (nb::python_error&) {
    return types;
  }
  types.available = true;
  types.ndarray = reinterpret_cast<PyTypeObject*>(np.attr("ndarray").ptr());
  types.generic = reinterpret_cast<PyTypeObject*>(np.attr("generic").ptr());
  nb::object seen = nb::steal(PySet_New(nullptr));
  for (nb::handle t : nb::cast<nb::dict>(np.attr("sctypeDict")).values()) {
    if (PySet_Contains(seen.ptr(), t.ptr())) continue;
    PySet_Add(seen.ptr(), t.ptr());
    nb::object dtype = np.attr("dtype")(t);
    const std::string kind = nb::cast<std::string>(dtype.attr("kind"));
    const int size = nb::cast<int>(dtype.attr("itemsize"));
    const ScalarType scalar = scalar_for(kind[0], size);
    if (scalar == ScalarType::unknown) continue;
    // Probe: 1 as this type; its bytes must equal the array element's.
    nb::object probe = t(1);
    nb::bytes expected = nb::cast<nb::bytes>(np.attr("array")(probe).attr("tobytes")());
    const char* in_place = reinterpret_cast<const char*>(probe.ptr()) + sizeof(PyObject);
    const bool ok = expected.size() == static_cast<std::size_t>(size) &&
                    std::memcmp(in_place, expected.c_str(), size) == 0;
    types.scalars.push_back(
        {reinterpret_cast<PyTypeObject*>(t.ptr()), scalar, static_cast<unsigned char>(size), ok});
  }
  return types;
}

// A GPUArray's element type as __cuda_array_interface__'s typestr states it
// (kind, size), so the pointee check treats both paths alike. bfloat16 has no
// typestr kind of its own: 'V' leaves it unchecked.
ElementType element_of(DType dtype) {
  const auto size = static_cast<unsigned char>(itemsize(dtype));
  switch (dtype) {
    case DType::bool_:
      return {'b', size};
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::int64:
      return {'i', size};
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64:
      return {'u', size};
    case DType::float16:
    case DType::float32:
    case DType::float64:
      return {'f', size};
    case DType::complex64:
    case DType::complex128:
      return {'c', size};
    case DType::bfloat16:
      break;
  }
  return {'V', size};
}

bool append_gpuarray(LaunchArgs& out, PyObject* obj) {
  std::uint64_t address = 0;
  DType dtype{};
  if (!gpuarray_launch_argument(obj, address, dtype)) return false;
  // Records (gpuarray.vec.float3, structs) are held as words: their pointee
  // (float3*, a struct's name) is the kernel's to say, unchecked.
  const bool records = nb::inst_ptr<GPUArrayObject>(obj)->holds_records();
  out.pointer(address, "GPUArray", records ? ElementType{'V', 0} : element_of(dtype));
  return true;
}

PyTypeObject* device_ndarray_type = nullptr;

// A cudakit.cuda DeviceNDArray, through its JitArray. Records (held as bytes
// on a last axis) take the protocol's path, which states their element type.
bool append_device_ndarray(LaunchArgs& out, PyObject* obj) {
  static PyObject* const array_name = PyUnicode_InternFromString("_array");
  nb::object inner = nb::steal(PyObject_GetAttr(obj, array_name));
  if (!inner.is_valid()) {
    PyErr_Clear();
    return false;
  }
  JitArray* array = nullptr;
  if (!nb::try_cast<JitArray*>(inner, array) || array == nullptr) return false;
  const DType dtype = array->array().dtype();
  if (dtype == DType::uint8) return false;
  out.pointer(array->address(), "device array", element_of(dtype));
  return true;
}

std::string type_name_of(PyObject* obj) { return Py_TYPE(obj)->tp_name; }

[[noreturn]] void refuse(const Kernel& kernel, std::size_t index, PyObject* obj,
                         const std::string& why, const std::string& hint) {
  throw ArgumentError("launching kernel " + kernel.name(),
                      "argument " + std::to_string(index) + " (" + type_name_of(obj) + "): " + why +
                          "; the kernel is " + kernel.name() + kernel.params().signature(),
                      hint);
}

// The bytes of a buffer-protocol object (numpy.void records, bytes).
bool append_record(LaunchArgs& out, PyObject* obj, const char* what) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    return false;
  }
  out.aggregate(view.buf, static_cast<std::size_t>(view.len), what);
  PyBuffer_Release(&view);
  return true;
}

void convert_one(LaunchArgs& out, PyObject* obj, std::size_t index, const Kernel& kernel,
                 PyTypeObject* allocation_type, PyTypeObject* host_type,
                 PyTypeObject* gpuarray_type) {
  PyTypeObject* type = Py_TYPE(obj);
  if (type == allocation_type) {
    const auto* a = nb::inst_ptr<DeviceAllocation>(obj);
    out.pointer(a->address("launching kernel"), "DeviceAllocation");
    return;
  }
  if (type == gpuarray_type && append_gpuarray(out, obj)) return;
  if (type == device_ndarray_type && append_device_ndarray(out, obj)) return;
  if (type == &PyLong_Type) {
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow == 0) {
      out.integer_literal(value);
      return;
    }
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(obj);
      if (!PyErr_Occurred()) {
        out.unsigned_literal(u);
        return;
      }
      PyErr_Clear();
    }
    refuse(kernel, index, obj,
           "the Python int " + nb::cast<std::string>(nb::str(obj)) +
               " does not fit any integer parameter (64 bits)",
           "pass a value that fits the parameter's type");
  }
  if (type == &PyFloat_Type) {
    out.float_literal(PyFloat_AS_DOUBLE(obj));
    return;
  }
  if (type == &PyBool_Type) {
    out.integer_literal(obj == Py_True ? 1 : 0);
    return;
  }
  NumpyTypes& np = numpy_types();
  for (const NumpyScalar& s : np.scalars) {
    if (s.type != type) continue;
    if (s.read_in_place) {
      out.scalar(s.scalar, reinterpret_cast<const char*>(obj) + sizeof(PyObject), s.size);
      return;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) == 0) {
      out.scalar(s.scalar, view.buf, s.size);
      PyBuffer_Release(&view);
      return;
    }
    PyErr_Clear();
  }
  if (type == host_type) {
    const auto* h = nb::inst_ptr<HostArg>(obj);
    out.host(h->span.data, h->span.bytes, h->direction, h->span.element, h->name());
    return;
  }
  // A 0-d array of a record type (gpuarray.vec.make_float3(...) gives one,
  // as in PyCUDA) is a struct passed by value.
  if (np.ndarray && PyObject_TypeCheck(obj, np.ndarray) &&
      nb::cast<int>(nb::handle(obj).attr("ndim")) == 0 &&
      nb::cast<std::string>(nb::handle(obj).attr("dtype").attr("kind")) == "V" &&
      append_record(out, obj, "struct"))
    return;
  if (np.ndarray && PyObject_TypeCheck(obj, np.ndarray))
    refuse(kernel, index, obj, "a numpy array is host memory, which a kernel cannot read",
           "wrap it: cuda.In(a) (read), cuda.Out(a) (written), cuda.InOut(a) (both), or copy it "
           "to the device first (mem_alloc + memcpy_htod, gpuarray.to_gpu)");
  if (PyType_IsSubtype(type, gpuarray_type) && append_gpuarray(out, obj)) return;
  DeviceTarget target;
  if (try_device_target(obj, target, "launching kernel")) {
    out.pointer(target.address, "device array", target.element);
    return;
  }
  // numpy records (structured scalars), complex numbers, bytes: by value.
  if ((np.generic && PyObject_TypeCheck(obj, np.generic)) || PyBytes_Check(obj)) {
    if (append_record(out, obj, "struct")) return;
  }
  if (PyLong_Check(obj)) {  // int subclasses (IntEnum, ...)
    out.integer_literal(PyLong_AsLongLong(obj));
    if (PyErr_Occurred()) throw nb::python_error();
    return;
  }
  if (PyFloat_Check(obj)) {
    out.float_literal(PyFloat_AsDouble(obj));
    return;
  }
  refuse(kernel, index, obj, "cannot be passed to a kernel",
         "pass device memory (DeviceAllocation, GPUArray, __cuda_array_interface__), "
         "cuda.In/Out/InOut(numpy array), a number, or a numpy scalar / record");
}

}  // namespace

void convert_args(LaunchArgs& out, PyObject* const* args, std::size_t n, const Kernel& kernel) {
  static PyTypeObject* allocation_type =
      reinterpret_cast<PyTypeObject*>(nb::type<DeviceAllocation>().ptr());
  static PyTypeObject* host_type = reinterpret_cast<PyTypeObject*>(nb::type<HostArg>().ptr());
  static PyTypeObject* gpuarray_type =
      reinterpret_cast<PyTypeObject*>(nb::type<GPUArrayObject>().ptr());
  for (std::size_t i = 0; i < n; ++i)
    convert_one(out, args[i], i, kernel, allocation_type, host_type, gpuarray_type);
}

void set_device_ndarray_type(PyObject* type) {
  Py_XINCREF(type);  // a class lives as long as the process here
  device_ndarray_type = reinterpret_cast<PyTypeObject*>(type);
}

}  // namespace cudakit::python
