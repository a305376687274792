// The one reader of Python numbers as kernel arguments: Python int, float,
// bool and complex literals, and numpy scalars, whose type and bytes are
// kept. Part of the one converter (arg_convert.cpp), which reads every
// number argument through read_number.
#pragma once

#include <Python.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cudakit/array_scalar.hpp"
#include "cudakit/dtype.hpp"
#include "cudakit/kernel.hpp"
#include "support/c_types.hpp"

namespace cudakit::python {

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

// numpy's scalar types, found once. Each type's value is read in place
// (numpy's Py<Type>ScalarObject: the header, then the value) when a probe
// value reads back right, else through the buffer protocol.
NumpyTypes& numpy_types();

// A Python number as a launch reads it: a literal (Python int, float, bool,
// complex) or a value of a numpy scalar type, whose bytes are kept.
struct PyNumber {
  enum class Kind : std::uint8_t {
    none,
    boolean,
    signed_int,
    unsigned_int,
    floating,
    complex,
    typed
  };
  // Each reader sets the fields its kind uses (and only those are read), so
  // a number costs no clearing of the whole struct per argument.
  Kind kind = Kind::none;
  long long i;                 // boolean, signed_int
  unsigned long long u;        // unsigned_int
  double re, im;               // floating (re), complex
  ScalarType type;             // typed
  std::uint64_t bits;          // typed: the value's bytes
  std::optional<DType> dtype;  // a numpy scalar's (complex ones included)

  // The 64 bits of an integer that can be an address: a Python int
  // (negative ones in two's complement), or numpy.intp / numpy.uintp (an
  // 8-byte integer: PyCUDA's way to pass int(alloc) + offset); nullopt for
  // any other number.
  std::optional<std::uint64_t> integer_bits() const {
    switch (kind) {
      case Kind::signed_int:
        return static_cast<std::uint64_t>(i);
      case Kind::unsigned_int:
        return u;
      case Kind::typed:
        if (type == ScalarType::i64 || type == ScalarType::u64) return bits;
        break;
      default:
        break;
    }
    return std::nullopt;
  }

  // As the array layer's Scalar: Python's numbers weak (NEP 50), numpy's of
  // their dtype.
  Scalar scalar() const {
    const Scalar value = untyped();
    return dtype ? Scalar::typed(value, *dtype) : value;
  }

 private:
  Scalar untyped() const {
    switch (kind) {
      case Kind::boolean:
        return Scalar(i != 0);
      case Kind::signed_int:
        return Scalar(static_cast<std::int64_t>(i));
      case Kind::unsigned_int:
        return Scalar(static_cast<std::uint64_t>(u));
      case Kind::floating:
        return Scalar(re);
      case Kind::complex:
        return Scalar(std::complex<double>(re, im));
      default:
        break;
    }
    auto as = [this](auto zero) {
      std::memcpy(&zero, &bits, sizeof zero);
      return zero;
    };
    switch (type) {
      case ScalarType::boolean:
        return Scalar(as(std::uint8_t{}) != 0);
      case ScalarType::i8:
        return Scalar(as(std::int8_t{}));
      case ScalarType::u8:
        return Scalar(as(std::uint8_t{}));
      case ScalarType::i16:
        return Scalar(as(std::int16_t{}));
      case ScalarType::u16:
        return Scalar(as(std::uint16_t{}));
      case ScalarType::i32:
        return Scalar(as(std::int32_t{}));
      case ScalarType::u32:
        return Scalar(as(std::uint32_t{}));
      case ScalarType::i64:
        return Scalar(as(std::int64_t{}));
      case ScalarType::u64:
        return Scalar(as(std::uint64_t{}));
      case ScalarType::f16:
        return Scalar(Half::from_bits(as(std::uint16_t{})));
      case ScalarType::f32:
        return Scalar(as(float{}));
      case ScalarType::f64:
        return Scalar(as(double{}));
      default:
        return Scalar(std::int64_t{0});
    }
  }
};

// Reads `obj` as a number: the one reader of Python numbers for every kernel
// argument. Returns false when it is not one; throws the refusal for a
// Python int wider than 64 bits.
bool read_number(PyObject* obj, PyNumber& out, const Kernel* kernel, std::size_t index,
                 const char* target);

// The refusal of argument `index` (arg_convert.cpp), and an object's repr for
// messages ("?" when it has none).
[[noreturn]] void refuse(const Kernel& kernel, std::size_t index, PyObject* obj,
                         const std::string& why, const std::string& hint);
std::string repr_of(PyObject* obj);

}  // namespace cudakit::python
