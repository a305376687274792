// Each Python argument becomes one kernel argument. Checked in the order of
// how common they are: DeviceAllocation, Python int/float, numpy scalars
// (their type is kept: numpy.float32 is a float), In/Out/InOut, then device
// memory by protocol (__cuda_array_interface__, gpudata), records. GPUArrays
// and cudakit.cuda's device arrays are read through their C++ object, without
// building the protocol's dict. @cuda.jit launches read the same objects
// against the types the kernel declared (Numba's semantics).
#include "arg_convert.hpp"

#include <nanobind/stl/string.h>
#include <structmember.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "arg_convert_numbers.hpp"
#include "arg_records.hpp"
#include "array_object.hpp"
#include "cudakit/array_scalar.hpp"
#include "cudakit/array_view.hpp"
#include "cudakit/error.hpp"
#include "driver_types.hpp"
#include "jit_array.hpp"

namespace cudakit::python {
namespace {

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

}  // namespace

[[noreturn]] void refuse(const Kernel& kernel, std::size_t index, PyObject* obj,
                         const std::string& why, const std::string& hint) {
  throw ArgumentError("launching kernel " + kernel.name(),
                      "argument " + std::to_string(index) + " (" + Py_TYPE(obj)->tp_name + "): " +
                          why + "; the kernel is " + kernel.name() + kernel.params().signature(),
                      hint);
}

std::string repr_of(PyObject* obj) {
  nb::object text = nb::steal(PyObject_Repr(obj));
  if (!text.is_valid()) {
    PyErr_Clear();
    return "?";
  }
  return nb::cast<std::string>(text);
}

namespace {

// A device pointer whose elements are `element`: refused when the kernel
// reads another arithmetic type through the parameter (ConvertMode::pointees).
void append_pointer(KernelArgs& out, std::uint64_t address, const char* what, ElementType element,
                    std::size_t index, const Kernel& kernel, const ConvertMode& mode) {
  if (mode.pointees != nullptr && index < mode.pointees->size()) {
    const ElementType pointee = (*mode.pointees)[index];
    if (!detail::pointee_accepts(pointee, element)) [[unlikely]] {
      const Param& p = kernel.params().params[index];
      const std::string dtype = pointee.kind == 'x' ? std::string("int8") : pointee.describe();
      throw ArgumentError("launching kernel " + kernel.name(),
                          p.describe(index) + ": passed " + what + " of " + element.describe() +
                              " elements; the kernel reads " + pointee.describe() +
                              " through it; the kernel is " + kernel.name() +
                              kernel.params().signature(),
                          "pass an array of " + dtype + " (e.g. a.astype(numpy." + dtype +
                              ")), or change the kernel's parameter type; to reinterpret the "
                              "bytes on purpose (as PyCUDA, which does not check, would), pass "
                              "the bare address numpy.intp(a.gpudata)");
    }
  }
  out.pointer(address, what);
}

bool append_gpuarray(KernelArgs& out, PyObject* obj, std::size_t index, const Kernel& kernel,
                     const ConvertMode& mode) {
  std::uint64_t address = 0;
  DType dtype{};
  if (!gpuarray_launch_argument(obj, address, dtype)) return false;
  // Records (gpuarray.vec.float3, structs) are held as words: their pointee
  // (float3*, a struct's name) is the kernel's to say, unchecked.
  const bool records = nb::inst_ptr<GPUArrayObject>(obj)->holds_records();
  append_pointer(out, address, "GPUArray", records ? ElementType{'V', 0} : element_of(dtype), index,
                 kernel, mode);
  return true;
}

PyTypeObject* device_ndarray_type = nullptr;
// Where DeviceNDArray's __slots__ `_array` and `_type` sit in an instance of
// exactly that class (-1: unknown), so a launch reads them without an
// attribute lookup.
Py_ssize_t array_slot_offset = -1;
Py_ssize_t type_slot_offset = -1;

// The object slot `name` of `type` (a member descriptor in its own dict), or -1.
Py_ssize_t object_slot_offset(PyTypeObject* type, const char* name) {
  PyObject* descriptor = PyDict_GetItemString(type->tp_dict, name);
  if (descriptor == nullptr || Py_TYPE(descriptor) != &PyMemberDescr_Type) return -1;
  const PyMemberDef* member = reinterpret_cast<PyMemberDescrObject*>(descriptor)->d_member;
  return member->type == T_OBJECT_EX ? member->offset : -1;
}

// A DeviceNDArray's slot at `offset` (borrowed), else its attribute `name`
// (a subclass, an unset slot) as a new reference the caller drops at once:
// the array holds the value.
PyObject* device_ndarray_member(PyObject* obj, Py_ssize_t offset, PyObject* name) {
  if (offset >= 0 && Py_TYPE(obj) == device_ndarray_type)
    if (PyObject* value = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(obj) + offset))
      return value;
  PyObject* value = PyObject_GetAttr(obj, name);
  if (value == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  Py_DECREF(value);  // obj keeps it alive
  return value;
}

JitArray* jit_array_of(PyObject* obj) {
  static PyObject* const array_name = PyUnicode_InternFromString("_array");
  static PyTypeObject* const jit_array_type =
      reinterpret_cast<PyTypeObject*>(nb::type<JitArray>().ptr());
  PyObject* inner = device_ndarray_member(obj, array_slot_offset, array_name);
  if (inner == nullptr) return nullptr;
  if (Py_TYPE(inner) == jit_array_type && nb::inst_ready(inner))
    return nb::inst_ptr<JitArray>(inner);  // owned by the DeviceNDArray, which the caller holds
  JitArray* array = nullptr;
  if (!nb::try_cast<JitArray*>(nb::handle(inner), array)) return nullptr;
  return array;
}

// A cudakit.cuda DeviceNDArray, through its JitArray. Records (held as bytes
// on a last axis) take the protocol's path, which states their element type.
bool append_device_ndarray(KernelArgs& out, PyObject* obj, std::size_t index, const Kernel& kernel,
                           const ConvertMode& mode) {
  JitArray* array = jit_array_of(obj);
  if (array == nullptr) return false;
  const DType dtype = array->array().dtype();
  if (dtype == DType::uint8) return false;
  append_pointer(out, array->address(), "device array", element_of(dtype), index, kernel, mode);
  return true;
}

// The bytes of a buffer-protocol object (numpy.void records, bytes).
bool append_record(KernelArgs& out, PyObject* obj, const char* what) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    return false;
  }
  out.aggregate(view.buf, static_cast<std::size_t>(view.len), what);
  PyBuffer_Release(&view);
  return true;
}

const Param* param_at(const Kernel& kernel, std::size_t index) {
  const auto& params = kernel.params().params;
  return index < params.size() ? &params[index] : nullptr;
}

bool is_pointer(const Param* p) { return p != nullptr && p->kind == ParamKind::pointer; }

// A Python number for a pointer parameter: a device address in a prepared
// call, else refused (a kernel cannot read a number through a pointer).
void append_number_for_pointer(KernelArgs& out, const PyNumber& number, PyObject* obj,
                               std::size_t index, const Kernel& kernel, const ConvertMode& mode) {
  const bool integral = number.kind == PyNumber::Kind::signed_int ||
                        number.kind == PyNumber::Kind::unsigned_int ||
                        number.kind == PyNumber::Kind::boolean;
  if (mode.ints_are_addresses && (number.kind != PyNumber::Kind::signed_int || number.i >= 0))
    if (const auto address = number.integer_bits()) {
      out.pointer(*address, "device address");
      return;
    }
  const Param& p = *param_at(kernel, index);
  throw ArgumentError("launching kernel " + kernel.name(),
                      p.describe(index) + ": passed a Python " + (integral ? "int " : "float ") +
                          repr_of(obj) + " for a pointer parameter; the kernel is " +
                          kernel.name() + kernel.params().signature(),
                      "pass device memory: a DeviceAllocation (mem_alloc), a GPUArray, an "
                      "object with __cuda_array_interface__, or cuda.In/Out/InOut(numpy array)");
}

void append_number(KernelArgs& out, const PyNumber& number) {
  switch (number.kind) {
    case PyNumber::Kind::boolean:
    case PyNumber::Kind::signed_int:
      out.integer_literal(number.i);
      return;
    case PyNumber::Kind::unsigned_int:
      out.unsigned_literal(number.u);
      return;
    case PyNumber::Kind::floating:
      out.float_literal(number.re);
      return;
    case PyNumber::Kind::complex: {
      const double parts[2] = {number.re, number.im};
      out.aggregate(parts, sizeof parts, "complex");
      return;
    }
    case PyNumber::Kind::typed:
      out.scalar(number.type, &number.bits);
      return;
    case PyNumber::Kind::none:
      break;
  }
}

// A numpy array in managed memory (driver.managed_empty, or a view of one:
// the owner at the end of its base chain has __cudakit_managed__): the
// device reaches it at the host's address, so it is passed as a pointer, as
// PyCUDA passes it.
bool append_managed_array(KernelArgs& out, PyObject* obj, std::size_t index, const Kernel& kernel,
                          const ConvertMode& mode) {
  static PyObject* const base_name = PyUnicode_InternFromString("base");
  static PyObject* const marker_name = PyUnicode_InternFromString("__cudakit_managed__");
  PyTypeObject* const ndarray = numpy_types().ndarray;
  nb::object base = nb::borrow(obj);
  do {
    base = nb::steal(PyObject_GetAttr(base.ptr(), base_name));
    if (!base.is_valid()) {
      PyErr_Clear();
      return false;
    }
  } while (PyObject_TypeCheck(base.ptr(), ndarray));
  if (base.is_none() || !PyObject_HasAttr(base.ptr(), marker_name)) return false;
  nb::dict interface = nb::cast<nb::dict>(nb::handle(obj).attr("__array_interface__"));
  const auto address = nb::cast<std::uint64_t>(nb::tuple(interface["data"])[0]);
  const std::string typestr = nb::cast<std::string>(interface["typestr"]);
  const ElementType element =
      typestr.size() >= 3
          ? ElementType{typestr[1], static_cast<unsigned char>(std::stoi(typestr.substr(2)))}
          : ElementType{};
  append_pointer(out, address, "managed array", element, index, kernel, mode);
  return true;
}

// PyCUDA's semantics: one argument of a SourceModule kernel.
void convert_pycuda(KernelArgs& out, PyObject* obj, std::size_t index, const Kernel& kernel,
                    const ConvertMode& mode, PyTypeObject* allocation_type, PyTypeObject* host_type,
                    PyTypeObject* gpuarray_type) {
  PyTypeObject* type = Py_TYPE(obj);
  if (type == allocation_type) {
    const auto* a = nb::inst_ptr<DeviceAllocation>(obj);
    out.pointer(a->address("launching kernel"), "DeviceAllocation");
    return;
  }
  if (type == gpuarray_type && append_gpuarray(out, obj, index, kernel, mode)) return;
  if (type == device_ndarray_type && append_device_ndarray(out, obj, index, kernel, mode)) return;
  // int subclasses may be device pointers (gpudata): they are read after
  // the device-memory protocols.
  const bool int_subclass = type != &PyLong_Type && type != &PyBool_Type && PyLong_Check(obj);
  PyNumber number;
  if (type != host_type && !int_subclass &&
      read_number(obj, number, &kernel, index, "any integer parameter")) {
    const Param* p = param_at(kernel, index);
    if (is_pointer(p)) {
      // numpy.intp(address) / numpy.uintp: PyCUDA's way to pass a pointer
      // value (int(alloc) + offset): an 8-byte integer for a pointer.
      if (number.kind == PyNumber::Kind::typed)
        if (const auto address = number.integer_bits()) {
          out.pointer(*address, "numpy.intp address");
          return;
        }
      if (number.kind != PyNumber::Kind::typed && number.kind != PyNumber::Kind::complex) {
        append_number_for_pointer(out, number, obj, index, kernel, mode);
        return;
      }
    }
    // numpy complex scalars keep their own bytes (complex64: two floats).
    if (number.kind == PyNumber::Kind::complex && !PyComplex_CheckExact(obj) &&
        append_record(out, obj, "complex"))
      return;
    append_number(out, number);
    return;
  }
  if (type == host_type) {
    const auto* h = nb::inst_ptr<HostArg>(obj);
    if (mode.pointees != nullptr && index < mode.pointees->size() &&
        !detail::pointee_accepts((*mode.pointees)[index], h->span.element)) {
      KernelArgs ignored;  // the same message as a device array's
      append_pointer(ignored, 0, h->name(), h->span.element, index, kernel, mode);
    }
    out.host(h->span.data, h->span.bytes, h->direction);
    return;
  }
  NumpyTypes& np = numpy_types();
  // A numpy record (numpy.void, or a 0-d array of one:
  // gpuarray.vec.make_float3(...) gives one, as in PyCUDA) is a struct
  // passed by value, checked against the parameter's declared type.
  if (np.ndarray && (PyObject_TypeCheck(obj, np.ndarray) || PyObject_TypeCheck(obj, np.generic)) &&
      append_struct_argument(out, obj, index, kernel))
    return;
  if (np.ndarray && PyObject_TypeCheck(obj, np.ndarray) &&
      append_managed_array(out, obj, index, kernel, mode))
    return;
  if (np.ndarray && PyObject_TypeCheck(obj, np.ndarray))
    refuse(kernel, index, obj, "a numpy array is host memory, which a kernel cannot read",
           "wrap it: cuda.In(a) (read), cuda.Out(a) (written), cuda.InOut(a) (both), or copy it "
           "to the device first (mem_alloc + memcpy_htod, gpuarray.to_gpu)");
  if (PyType_IsSubtype(type, gpuarray_type) && append_gpuarray(out, obj, index, kernel, mode))
    return;
  DeviceTarget target;
  if (try_device_target(obj, target, "launching kernel")) {
    append_pointer(out, target.address, "device array", target.element, index, kernel, mode);
    return;
  }
  // bytes and other numpy scalars (longdouble): their bytes by value, of
  // the parameter's size.
  if ((PyBytes_Check(obj) || (np.generic && PyObject_TypeCheck(obj, np.generic))) &&
      append_record(out, obj, "struct"))
    return;
  if (PyTuple_Check(obj))
    if (const Param* p = param_at(kernel, index); p != nullptr && p->kind == ParamKind::aggregate)
      throw ArgumentError("launching kernel " + kernel.name(),
                          p->describe(index) + ": passed a tuple " + repr_of(obj).substr(0, 60) +
                              " for a struct passed by value; a tuple has no C layout (PyCUDA "
                              "refuses it too); the kernel is " +
                              kernel.name() + kernel.params().signature(),
                          record_hint(p->type.empty() ? "the parameter's struct" : p->type));
  if (int_subclass && read_number(obj, number, &kernel, index, "any integer parameter")) {
    if (is_pointer(param_at(kernel, index)))
      append_number_for_pointer(out, number, obj, index, kernel, mode);
    else
      append_number(out, number);
    return;
  }
  // driver.TextureObject / SurfaceObject: their handle, for a
  // cudaTextureObject_t / cudaSurfaceObject_t parameter.
  if (PyObject_HasAttrString(obj, "_cudakit_object_handle")) {
    nb::object handle = nb::handle(obj).attr("_cudakit_object_handle");
    if (read_number(handle.ptr(), number, &kernel, index, "any integer parameter")) {
      append_number(out, number);
      return;
    }
  }
  refuse(kernel, index, obj, "cannot be passed to a kernel",
         "pass device memory (DeviceAllocation, GPUArray, __cuda_array_interface__), "
         "cuda.In/Out/InOut(numpy array), a number, or a numpy scalar / record");
}

// ---- @cuda.jit: Numba's semantics ------------------------------------------------------

[[noreturn]] void refuse_jit(const Kernel& kernel, std::size_t index, PyObject* obj,
                             const JitParam& p, const std::string& why) {
  throw ArgumentError("launching kernel " + kernel.name(),
                      "argument " + std::to_string(index) + " (" + Py_TYPE(obj)->tp_name + " " +
                          repr_of(obj).substr(0, 60) + "): " + why,
                      std::string("pass ") +
                          (p.kind == JitParam::Kind::array ? "an array" : "a value") +
                          " of the type the kernel was compiled for (" + p.type_name + ")");
}

// A number converted to `dtype` as Numba converts an argument to its
// declared type (numpy's casting), written to `slot`.
void store_number(const Kernel& kernel, std::size_t index, PyObject* obj, const JitParam& p,
                  DType dtype, void* slot) {
  PyNumber number;
  if (!read_number(obj, number, &kernel, index, to_string(dtype).data()))
    refuse_jit(kernel, index, obj, p, std::string("expected a number for ") + p.type_name);
  if (number.kind == PyNumber::Kind::complex && !is_complex(dtype))
    refuse_jit(kernel, index, obj, p,
               std::string("a complex number for a parameter of type ") + p.type_name);
  const Scalar value = number.scalar();
  if (value.kind() == ScalarKind::floating && !is_floating(dtype) && !is_complex(dtype) &&
      dtype != DType::bool_ && !std::isfinite(value.as_double()))
    refuse_jit(kernel, index, obj, p,
               std::string("a non-finite float for an integer parameter (") + p.type_name + ")");
  value.store(dtype, slot);
}

// Extents or strides of one array argument: inline up to the views' rank
// limit (a launch allocates nothing), on the heap beyond it (refused later).
class Dims {
 public:
  std::size_t size() const { return count_; }
  long long& operator[](std::size_t d) { return count_ <= inline_dims ? inline_[d] : heap_[d]; }
  long long operator[](std::size_t d) const {
    return count_ <= inline_dims ? inline_[d] : heap_[d];
  }
  void push_back(long long value) {
    if (count_ < inline_dims) {
      inline_[count_++] = value;
      return;
    }
    if (count_ == inline_dims) heap_.assign(inline_, inline_ + inline_dims);
    heap_.push_back(value);
    ++count_;
  }
  void pop_back() {
    if (count_ > inline_dims) {
      heap_.pop_back();
      if (count_ - 1 == inline_dims) {  // back to inline
        std::copy(heap_.begin(), heap_.end(), inline_);
        heap_.clear();
      }
    }
    --count_;
  }
  void resize(std::size_t n) {
    while (count_ > n) pop_back();
    while (count_ < n) push_back(0);
  }

 private:
  static constexpr std::size_t inline_dims = max_view_ndim + 1;  // + a records' byte axis
  long long inline_[inline_dims];
  std::vector<long long> heap_;  // every value, once there are more than inline_dims
  std::size_t count_ = 0;
};

// (address, extents, strides in bytes) of a device array argument.
struct DeviceArrayParts {
  std::uint64_t address = 0;
  Dims shape;
  Dims strides;          // bytes
  bool records = false;  // a DeviceNDArray of records (bytes on a last axis)
};

bool device_array_parts(PyObject* obj, PyTypeObject* gpuarray_type, DeviceArrayParts& out) {
  if (Py_TYPE(obj) == device_ndarray_type) {
    JitArray* array = jit_array_of(obj);
    if (array == nullptr) return false;
    const Array& a = array->array();
    const auto item = static_cast<long long>(itemsize(a.dtype()));
    out.address = a.address();
    for (auto n : a.shape()) out.shape.push_back(static_cast<long long>(n));
    for (auto s : a.strides()) out.strides.push_back(static_cast<long long>(s) * item);
    out.records = a.dtype() == DType::uint8;
    return true;
  }
  if (PyObject_TypeCheck(obj, gpuarray_type)) {
    const Array& a = as_gpuarray(obj).value();
    const auto item = static_cast<long long>(itemsize(a.dtype()));
    out.address = a.address();
    for (auto n : a.shape()) out.shape.push_back(static_cast<long long>(n));
    for (auto s : a.strides()) out.strides.push_back(static_cast<long long>(s) * item);
    return true;
  }
  static PyObject* const cai_name = PyUnicode_InternFromString("__cuda_array_interface__");
  nb::object cai = nb::steal(PyObject_GetAttr(obj, cai_name));
  if (!cai.is_valid()) {
    PyErr_Clear();
    return false;
  }
  nb::dict interface = nb::cast<nb::dict>(cai);
  out.address = nb::cast<std::uint64_t>(nb::tuple(interface["data"])[0]);
  nb::object typestr = interface["typestr"];
  const long long item =
      nb::cast<long long>(nb::module_::import_("numpy").attr("dtype")(typestr).attr("itemsize"));
  for (nb::handle n : nb::iter(interface["shape"])) out.shape.push_back(nb::cast<long long>(n));
  nb::object strides =
      interface.contains("strides") ? nb::object(interface["strides"]) : nb::none();
  if (strides.is_none()) {
    out.strides.resize(out.shape.size());
    long long step = item;
    for (std::size_t d = out.shape.size(); d-- > 0;) {
      out.strides[d] = step;
      step *= out.shape[d];
    }
  } else {
    for (nb::handle s : nb::iter(strides)) out.strides.push_back(nb::cast<long long>(s));
  }
  return true;
}

void append_jit_array(KernelArgs& out, PyObject* obj, std::size_t index, const Kernel& kernel,
                      const JitParam& p, PyTypeObject* gpuarray_type) {
  DeviceArrayParts parts;
  if (!device_array_parts(obj, gpuarray_type, parts))
    refuse_jit(kernel, index, obj, p,
               std::string("expected a device array for ") + p.type_name +
                   " (a DeviceNDArray, a GPUArray, or an object with __cuda_array_interface__)");
  const auto nd = static_cast<std::size_t>(p.ndim);
  if (parts.records && parts.shape.size() == nd + 1) {  // the record bytes' axis
    parts.shape.pop_back();
    parts.strides.pop_back();
  }
  if (parts.shape.size() != nd)
    refuse_jit(kernel, index, obj, p,
               "a " + std::to_string(parts.shape.size()) + "-d array for " + p.type_name);
  // ArrayView<T, N>: the pointer, N extents, N strides in elements.
  long long view[1 + 2 * max_view_ndim];
  std::uint64_t address = parts.address;
  std::memcpy(&view[0], &address, sizeof address);
  const auto item = static_cast<long long>(p.itemsize);
  for (std::size_t d = 0; d < nd; ++d) {
    if (item == 0 || parts.strides[d] % item != 0)
      refuse_jit(kernel, index, obj, p,
                 "stride " + std::to_string(parts.strides[d]) + " bytes on axis " +
                     std::to_string(d) + " is not a multiple of the " + std::to_string(item) +
                     "-byte element");
    view[1 + d] = parts.shape[d];
    view[1 + nd + d] = parts.strides[d] / item;
  }
  out.aggregate(view, sizeof(long long) * (1 + 2 * nd), p.type_name);
}

// Numba's semantics: one argument of a @cuda.jit kernel, of the declared type.
void convert_jit(KernelArgs& out, PyObject* obj, std::size_t index, const Kernel& kernel,
                 const JitParam& p, PyTypeObject* gpuarray_type) {
  switch (p.kind) {
    case JitParam::Kind::scalar: {
      // The common cases first: a Python int for an int64, a float for a
      // float64 (what Numba's rules give them): nothing to convert.
      if (Py_TYPE(obj) == &PyLong_Type && p.dtype == DType::int64) {
        int overflow = 0;
        const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (value == -1 && PyErr_Occurred()) throw nb::python_error();
        if (overflow == 0) {
          const std::int64_t bits = value;
          out.scalar(ScalarType::i64, &bits);
          return;
        }
      } else if (Py_TYPE(obj) == &PyFloat_Type && p.dtype == DType::float64) {
        const double value = PyFloat_AS_DOUBLE(obj);
        out.scalar(ScalarType::f64, &value);
        return;
      }
      alignas(16) unsigned char bytes[16] = {};
      store_number(kernel, index, obj, p, p.dtype, bytes);
      const ScalarType scalar = scalar_type_of(p.dtype);
      if (is_complex(p.dtype) || p.dtype == DType::float16 || p.dtype == DType::bfloat16 ||
          scalar == ScalarType::unknown)
        out.aggregate(bytes, p.size, p.type_name);  // the bytes of its struct
      else
        out.scalar(scalar, bytes);
      return;
    }
    case JitParam::Kind::tuple: {
      if (!PyTuple_Check(obj) ||
          static_cast<std::size_t>(PyTuple_GET_SIZE(obj)) != p.members.size())
        refuse_jit(kernel, index, obj, p,
                   "expected a tuple of " + std::to_string(p.members.size()) + " numbers");
      std::vector<unsigned char> bytes(p.size, 0);
      std::size_t offset = 0;
      for (std::size_t m = 0; m < p.members.size(); ++m) {
        const std::size_t size = itemsize(p.members[m]);
        offset = (offset + size - 1) / size * size;
        store_number(kernel, index, PyTuple_GET_ITEM(obj, static_cast<Py_ssize_t>(m)), p,
                     p.members[m], bytes.data() + offset);
        offset += size;
      }
      out.aggregate(bytes.data(), bytes.size(), p.type_name);
      return;
    }
    case JitParam::Kind::pointer: {
      PyNumber number;
      const auto address = read_number(obj, number, &kernel, index, "an address")
                               ? number.integer_bits()
                               : std::nullopt;
      if (!address) refuse_jit(kernel, index, obj, p, "expected an address (an int) for a pointer");
      out.pointer(*address, "address");
      return;
    }
    case JitParam::Kind::array:
      append_jit_array(out, obj, index, kernel, p, gpuarray_type);
      return;
  }
}

}  // namespace

void convert_args(KernelArgs& out, PyObject* const* args, std::size_t n, const Kernel& kernel,
                  const ConvertMode& mode) {
  static PyTypeObject* allocation_type =
      reinterpret_cast<PyTypeObject*>(nb::type<DeviceAllocation>().ptr());
  static PyTypeObject* host_type = reinterpret_cast<PyTypeObject*>(nb::type<HostArg>().ptr());
  static PyTypeObject* gpuarray_type =
      reinterpret_cast<PyTypeObject*>(nb::type<GPUArrayObject>().ptr());
  if (mode.declared != nullptr) {
    const std::vector<JitParam>& declared = *mode.declared;
    if (n != declared.size())
      throw ArgumentError("launching kernel " + kernel.name(),
                          "the kernel takes " + std::to_string(declared.size()) + " argument" +
                              (declared.size() == 1 ? "" : "s") + ", " + std::to_string(n) +
                              " given",
                          "pass one argument per parameter of the Python function");
    for (std::size_t i = 0; i < n; ++i)
      convert_jit(out, args[i], i, kernel, declared[i], gpuarray_type);
    return;
  }
  for (std::size_t i = 0; i < n; ++i)
    convert_pycuda(out, args[i], i, kernel, mode, allocation_type, host_type, gpuarray_type);
}

namespace {

std::size_t tuple_size(const std::vector<DType>& members) {
  std::size_t offset = 0, widest = 1;
  for (DType m : members) {
    const std::size_t size = itemsize(m);
    offset = (offset + size - 1) / size * size + size;
    widest = std::max(widest, size);
  }
  return (offset + widest - 1) / widest * widest;
}

}  // namespace

JitParam JitParam::scalar(DType dtype) {
  JitParam p;
  p.kind = Kind::scalar;
  p.dtype = dtype;
  p.size = cudakit::itemsize(dtype);
  p.type_name = to_string(dtype).data();
  return p;
}

JitParam JitParam::tuple(std::vector<DType> members) {
  JitParam p;
  p.kind = Kind::tuple;
  p.size = tuple_size(members);
  p.members = std::move(members);
  p.type_name = "a tuple";
  return p;
}

JitParam JitParam::array(DType dtype, int ndim, std::size_t element_bytes) {
  if (ndim < 0 || ndim > max_view_ndim)
    throw ArgumentError("cuda.jit", "an array parameter of " + std::to_string(ndim) +
                                        " dimensions (at most " + std::to_string(max_view_ndim) +
                                        ")");
  JitParam p;
  p.kind = Kind::array;
  p.dtype = dtype;
  p.ndim = ndim;
  p.itemsize = element_bytes;
  p.size = sizeof(long long) * (1 + 2 * static_cast<std::size_t>(ndim));
  p.type_name = detail::array_view_type_name(dtype, ndim);
  return p;
}

JitParam JitParam::pointer() {
  JitParam p;
  p.kind = Kind::pointer;
  p.size = sizeof(void*);
  p.type_name = "a pointer";
  return p;
}

void set_device_ndarray_type(PyObject* type) {
  Py_XINCREF(type);  // a class lives as long as the process here
  device_ndarray_type = reinterpret_cast<PyTypeObject*>(type);
  array_slot_offset = type ? object_slot_offset(device_ndarray_type, "_array") : -1;
  type_slot_offset = type ? object_slot_offset(device_ndarray_type, "_type") : -1;
}

PyObject* device_ndarray_type_key(PyObject* obj) {
  static PyObject* const type_name = PyUnicode_InternFromString("_type");
  return device_ndarray_member(obj, type_slot_offset, type_name);
}

}  // namespace cudakit::python
