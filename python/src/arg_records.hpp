// Numpy records (numpy.void scalars of a structured dtype, 0-d record arrays:
// gpuarray.vec.make_float3(...) gives one) as kernel arguments passed by
// value: their bytes, what they are for messages, and whether their layout
// can be the kernel parameter's declared type. Part of the one converter
// (arg_convert.cpp), which calls these for every by-value struct argument.
#pragma once

#include <Python.h>

#include <cstddef>
#include <string>
#include <vector>

#include "cudakit/kernel.hpp"
#include "cudakit/kernel_args.hpp"

namespace cudakit::python {

struct RecordArgument {
  struct Field {
    std::string name;
    std::string dtype;  // numpy's name: "float32", a nested record's repr
    char kind = 'V';    // numpy's kind of a plain (not nested, not sub-array) field; 'V' otherwise
    std::size_t size = 0, offset = 0, align = 1;
    bool plain = false;  // a scalar field (no sub-array, no nested record)
  };
  std::vector<unsigned char> bytes;
  std::vector<Field> fields;
  std::size_t align = 1;     // the widest alignment its fields need in C
  std::string misaligned;    // the first field a C struct could not place there; empty if none
  std::string object_field;  // a field holding Python objects; empty if none
  std::string description;   // "a numpy record (x: float32, y: float32, z: float32; 12 bytes)"
};

// Reads `obj` when it is a numpy record (a numpy.void, or a 0-d array of a
// void dtype); false otherwise.
bool read_record(PyObject* obj, RecordArgument& out);

// Why `record` cannot be passed for a parameter of C type `declared` (as the
// source wrote it) of `size` bytes aligned to `align` (0: not known, e.g. an
// ElementwiseKernel's before its compile); empty when it can. A CUDA vector
// type (float3, int2, uchar4, double2, ...) takes exactly its fields: that
// many numbers of its component type, packed. Any other struct takes a
// record of its size whose fields sit where a C struct puts them.
std::string record_mismatch(const RecordArgument& record, const std::string& declared,
                            std::size_t size, std::size_t align);

// What to do about a mismatch for `declared`.
std::string record_hint(const std::string& declared);

// Appends `obj` by value when it is a numpy record (false otherwise),
// refusing it, naming the parameter, when the kernel's parameter is a struct
// whose declared type the record's layout cannot be (record_mismatch); any
// other parameter refuses a struct in the launch's check.
bool append_struct_argument(KernelArgs& out, PyObject* obj, std::size_t index,
                            const Kernel& kernel);

// "float3" for a CUDA vector type's name (const and spaces dropped); empty
// for any other type.
std::string vector_type_name(const std::string& declared);

}  // namespace cudakit::python
