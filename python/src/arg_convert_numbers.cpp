// Python numbers and numpy scalars read as kernel arguments (the one
// reader, arg_convert_numbers.hpp).
#include "arg_convert_numbers.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "array_object.hpp"
#include "cudakit/error.hpp"

namespace cudakit::python {
namespace {

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

}  // namespace

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
    // (longdouble, 16 bytes, has no kernel type: it is passed by its bytes.)
    if (scalar == ScalarType::unknown || size > 8) continue;
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

namespace {

// A Python int of any size: signed, unsigned above INT64_MAX, or refused.
bool read_python_int(PyObject* obj, PyNumber& out) {
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow == 0) {
    if (value == -1 && PyErr_Occurred()) throw nb::python_error();
    out.kind = PyNumber::Kind::signed_int;
    out.i = value;
    return true;
  }
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(obj);
    if (!PyErr_Occurred()) {
      out.kind = PyNumber::Kind::unsigned_int;
      out.u = u;
      return true;
    }
    PyErr_Clear();
  }
  return false;  // wider than 64 bits
}

// A Python int wider than 64 bits: the launch's refusal naming the
// argument, or (no kernel: an ElementwiseKernel's number) numpy's.
[[noreturn]] void refuse_wide_int(PyObject* obj, const Kernel* kernel, std::size_t index,
                                  const char* target) {
  if (kernel != nullptr)
    refuse(*kernel, index, obj,
           "the Python int " + repr_of(obj) + " does not fit " + target + " (64 bits)",
           "pass a value that fits the parameter's type");
  throw nb::value_error(("Python integer " + repr_of(obj) +
                         " out of bounds: kernel arguments must fit in int64 or uint64")
                            .c_str());
}

}  // namespace

bool read_number(PyObject* obj, PyNumber& out, const Kernel* kernel, std::size_t index,
                 const char* target) {
  PyTypeObject* type = Py_TYPE(obj);
  if (type == &PyLong_Type || type == &PyBool_Type) {
    if (type == &PyBool_Type) {
      out.kind = PyNumber::Kind::boolean;
      out.i = obj == Py_True ? 1 : 0;
      return true;
    }
    if (read_python_int(obj, out)) return true;
    refuse_wide_int(obj, kernel, index, target);
  }
  if (type == &PyFloat_Type) {
    out.kind = PyNumber::Kind::floating;
    out.re = PyFloat_AS_DOUBLE(obj);
    return true;
  }
  NumpyTypes& np = numpy_types();
  // The type found last is looked at first (a loop passes the same ones).
  static const NumpyScalar* last_found = nullptr;
  if (last_found == nullptr || last_found->type != type)
    for (const NumpyScalar& s : np.scalars)
      if (s.type == type) last_found = &s;
  if (last_found != nullptr && last_found->type == type) {
    const NumpyScalar& s = *last_found;
    out.kind = PyNumber::Kind::typed;
    out.type = s.scalar;
    out.dtype = dtype_of(s.scalar);
    out.bits = 0;
    if (s.read_in_place) {
      std::memcpy(&out.bits, reinterpret_cast<const char*>(obj) + sizeof(PyObject), s.size);
      return true;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) == 0) {
      std::memcpy(&out.bits, view.buf, s.size);
      PyBuffer_Release(&view);
      return true;
    }
    PyErr_Clear();
    out.kind = PyNumber::Kind::none;
  }
  if (PyComplex_Check(obj)) {
    out.kind = PyNumber::Kind::complex;
    out.re = PyComplex_RealAsDouble(obj);
    out.im = PyComplex_ImagAsDouble(obj);
    return true;
  }
  if (PyLong_Check(obj)) {  // int subclasses (IntEnum, ...)
    if (read_python_int(obj, out)) return true;
    refuse_wide_int(obj, kernel, index, target);
  }
  if (PyFloat_Check(obj)) {
    out.kind = PyNumber::Kind::floating;
    out.re = PyFloat_AsDouble(obj);
    return true;
  }
  // numpy complex scalars and other numbers that say what they are.
  if (np.generic && PyObject_TypeCheck(obj, np.generic)) {
    nb::object dtype = nb::handle(obj).attr("dtype");
    if (nb::cast<std::string>(dtype.attr("kind")) == "c") {
      const Py_complex c = PyComplex_AsCComplex(obj);
      if (PyErr_Occurred()) throw nb::python_error();
      out.kind = PyNumber::Kind::complex;
      out.re = c.real;
      out.im = c.imag;
      out.dtype = nb::cast<int>(dtype.attr("itemsize")) == 8 ? DType::complex64 : DType::complex128;
      return true;
    }
  }
  return false;
}

std::optional<Scalar> number_argument(PyObject* obj) {
  PyNumber number;
  if (!read_number(obj, number, nullptr, 0, "int64 or uint64")) return std::nullopt;
  return number.scalar();
}

}  // namespace cudakit::python
