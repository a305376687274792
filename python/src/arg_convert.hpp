// The one converter from Python objects to kernel arguments (core
// KernelArgs), in C++: SourceModule calls, the prepared calls and @cuda.jit
// launches (first call and warm call alike) all read their arguments here,
// then launch through the core's checked launch.
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cudakit/array_scalar.hpp"
#include "cudakit/dtype.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/kernel_args.hpp"
#include "cudakit/struct_value.hpp"
#include "support/c_types.hpp"

namespace cudakit::python {

// What a @cuda.jit kernel declared for one parameter: the type Numba's rules
// gave the argument. The launch converts the value to exactly this type.
struct JitParam {
  enum class Kind : std::uint8_t { scalar, tuple, array, pointer };
  Kind kind = Kind::scalar;
  // scalar: its dtype (complex and float16 travel as the bytes of their
  // struct); array: the element dtype (uint8 for records).
  DType dtype = DType::int64;
  int ndim = 0;                // array
  std::size_t itemsize = 0;    // array: the bytes of one element (a record's size)
  std::vector<DType> members;  // tuple: the members, laid out as a C struct
  std::size_t size = 0;        // the value's bytes (a tuple's with its padding)
  const char* type_name = "";  // static text, for messages

  static JitParam scalar(DType dtype);
  static JitParam tuple(std::vector<DType> members);
  static JitParam array(DType dtype, int ndim, std::size_t itemsize);
  static JitParam pointer();
};

// How one launch reads its arguments.
struct ConvertMode {
  // PyCUDA's prepared calls: an int for a pointer parameter is a device address.
  bool ints_are_addresses = false;
  // PyCUDA's semantics: each parameter's pointee (pointee_element_type), to
  // which the element type of an array passed for it must fit; nullptr: not
  // checked.
  const std::vector<ElementType>* pointees = nullptr;
  // @cuda.jit: the declared type of each parameter (Numba's semantics:
  // numbers are converted to it, arrays are passed as ArrayView structs).
  // nullptr: PyCUDA's semantics (numbers are literals that the launch checks
  // against the kernel's parameters, arrays are pointers).
  const std::vector<JitParam>* declared = nullptr;
};

// Appends args[0..n) to `out`. ArgumentError naming the argument (0-based,
// as PyCUDA counts) and what is accepted when one cannot be passed.
void convert_args(KernelArgs& out, PyObject* const* args, std::size_t n, const Kernel& kernel,
                  const ConvertMode& mode = {});

// A number passed to a generated kernel (ElementwiseKernel, ReductionKernel),
// read by the same reader as launch arguments: Python numbers weak (NEP 50),
// numpy scalars of their dtype; nullopt when `obj` is not a number.
std::optional<Scalar> number_argument(PyObject* obj);

// A numpy record passed to a generated kernel's parameter `name` (index,
// declared C type) by value; nullopt when `obj` is not a record. A record
// whose layout cannot be the declared vector type (float3 given a float4, a
// float64 record, a 2-field one) is an ArgumentError naming both. (Defined
// with the record reader, arg_records.cpp.)
std::optional<StructValue> struct_argument(PyObject* obj, const std::string& context,
                                           std::size_t index, const std::string& name,
                                           const std::string& declared);

// cudakit.cuda's DeviceNDArray class, named once when that module is imported:
// its arrays are then passed by their C++ object (`_array`), without building
// the __cuda_array_interface__ dict on each launch.
void set_device_ndarray_type(PyObject* type);
// What identifies a DeviceNDArray's type for the launch tables: its
// interned `_type` (borrowed; the array holds it), or nullptr.
PyObject* device_ndarray_type_key(PyObject* obj);

}  // namespace cudakit::python
