// Numpy records passed by value: read once (bytes and field layout), then
// checked against the parameter's declared type.
#include "arg_records.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "arg_convert.hpp"
#include "cudakit/error.hpp"

namespace nb = nanobind;

namespace cudakit::python {
namespace {

// CUDA's vector families: the component's numpy kind and size.
struct VectorFamily {
  const char* name;
  char kind;
  std::size_t size;
};
constexpr VectorFamily vector_families[] = {
    {"char", 'i', 1},     {"uchar", 'u', 1},     {"short", 'i', 2}, {"ushort", 'u', 2},
    {"int", 'i', 4},      {"uint", 'u', 4},      {"long", 'i', 8},  {"ulong", 'u', 8},
    {"longlong", 'i', 8}, {"ulonglong", 'u', 8}, {"float", 'f', 4}, {"double", 'f', 8},
};

// The numpy name of a scalar of `kind` and `size` ("float32", "int8").
std::string numpy_name(char kind, std::size_t size) {
  const char* base = kind == 'f' ? "float" : kind == 'u' ? "uint" : "int";
  return base + std::to_string(size * 8);
}

// The alignment a C struct gives a field of dtype `d`: its scalar's size (a
// complex number's part), a nested record's widest, 1 for raw bytes.
std::size_t natural_align(nb::handle d) {
  nb::object sub = d.attr("subdtype");
  if (!sub.is_none()) return natural_align(nb::tuple(sub)[0]);
  nb::object names = d.attr("names");
  if (!names.is_none()) {
    std::size_t widest = 1;
    nb::object fields = d.attr("fields");
    for (nb::handle name : names) widest = std::max(widest, natural_align(fields[name][0]));
    return widest;
  }
  const std::string kind = nb::cast<std::string>(d.attr("kind"));
  const auto size = nb::cast<std::size_t>(d.attr("itemsize"));
  if (kind == "V" || kind == "S" || kind == "b") return 1;
  if (kind == "U") return 4;
  if (kind == "c") return size / 2;
  return std::min<std::size_t>(size, 16);
}

bool has_objects(nb::handle d) { return nb::cast<bool>(d.attr("hasobject")); }

std::string join_fields(const std::vector<RecordArgument::Field>& fields) {
  std::string text;
  for (const auto& f : fields) text += (text.empty() ? "" : ", ") + f.name + ": " + f.dtype;
  return text;
}

}  // namespace

std::string vector_type_name(const std::string& declared) {
  std::string t;
  std::size_t start = 0;
  // Words other than const / volatile, joined: "const float3" -> "float3".
  while (start < declared.size()) {
    const std::size_t end = declared.find_first_of(" \t\n", start);
    const std::string word =
        declared.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!word.empty() && word != "const" && word != "volatile") {
      if (!t.empty()) return {};  // more than one word: no vector type
      t = word;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (t.size() < 2 || t.back() < '1' || t.back() > '4') return {};
  const std::string base = t.substr(0, t.size() - 1);
  for (const auto& f : vector_families)
    if (base == f.name) return t;
  return {};
}

bool read_record(PyObject* obj, RecordArgument& out) {
  static PyObject* const dtype_name = PyUnicode_InternFromString("dtype");
  static PyObject* const ndim_name = PyUnicode_InternFromString("ndim");
  nb::object dtype = nb::steal(PyObject_GetAttr(obj, dtype_name));
  if (!dtype.is_valid()) {
    PyErr_Clear();
    return false;
  }
  nb::object ndim = nb::steal(PyObject_GetAttr(obj, ndim_name));
  if (!ndim.is_valid()) {
    PyErr_Clear();
    return false;
  }
  if (!nb::hasattr(dtype, "kind") || nb::cast<std::string>(dtype.attr("kind")) != "V" ||
      nb::cast<int>(ndim) != 0)
    return false;
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    return false;
  }
  const auto* data = static_cast<const unsigned char*>(view.buf);
  out.bytes.assign(data, data + view.len);
  PyBuffer_Release(&view);
  out.fields.clear();
  out.align = 1;
  nb::object names = dtype.attr("names");
  if (!names.is_none()) {
    nb::object fields = dtype.attr("fields");
    for (nb::handle name : names) {
      nb::tuple entry = nb::cast<nb::tuple>(fields[name]);
      nb::handle d = entry[0];
      RecordArgument::Field f;
      f.name = nb::cast<std::string>(name);
      f.offset = nb::cast<std::size_t>(entry[1]);
      f.size = nb::cast<std::size_t>(d.attr("itemsize"));
      f.align = natural_align(d);
      f.plain = d.attr("subdtype").is_none() && d.attr("names").is_none();
      f.kind = f.plain ? nb::cast<std::string>(d.attr("kind"))[0] : 'V';
      f.dtype = f.plain && std::strchr("iuf", f.kind) != nullptr
                    ? numpy_name(f.kind, f.size)
                    : nb::cast<std::string>(nb::str(d));
      out.align = std::max(out.align, f.align);
      if (out.misaligned.empty() && f.offset % f.align != 0)
        out.misaligned = "field '" + f.name + "' (" + f.dtype + ") sits at offset " +
                         std::to_string(f.offset) + ", which a C struct would not give a " +
                         std::to_string(f.align) + "-byte aligned member";
      if (out.object_field.empty() && has_objects(d)) out.object_field = f.name;
      out.fields.push_back(std::move(f));
    }
  }
  out.description =
      "a numpy record (" +
      (out.fields.empty() ? std::string(nb::str(dtype).c_str()) : join_fields(out.fields)) + "; " +
      std::to_string(out.bytes.size()) + " bytes)";
  return true;
}

std::string record_mismatch(const RecordArgument& record, const std::string& declared,
                            std::size_t size, std::size_t align) {
  if (!record.object_field.empty())
    return "its field '" + record.object_field +
           "' holds Python objects, which a kernel cannot read";
  const std::string vector = vector_type_name(declared);
  if (!vector.empty()) {
    const std::string base = vector.substr(0, vector.size() - 1);
    const auto count = static_cast<std::size_t>(vector.back() - '0');
    const auto* family = std::find_if(std::begin(vector_families), std::end(vector_families),
                                      [&](const VectorFamily& f) { return base == f.name; });
    const std::string component = numpy_name(family->kind, family->size);
    const std::string expected = vector + " is " + std::to_string(count) + " " + component +
                                 " field" + (count == 1 ? "" : "s") + " in " +
                                 std::to_string(count * family->size) + " bytes";
    if (record.fields.size() != count)
      return "a record of " + std::to_string(record.fields.size()) + " field" +
             (record.fields.size() == 1 ? "" : "s") + ", but " + expected;
    for (std::size_t k = 0; k < count; ++k) {
      const RecordArgument::Field& f = record.fields[k];
      if (!f.plain || f.kind != family->kind || f.size != family->size)
        return "field '" + f.name + "' is " + f.dtype + ", but " + expected;
      if (f.offset != k * family->size)
        return "field '" + f.name + "' sits at offset " + std::to_string(f.offset) + ", but " +
               expected + " (field " + std::to_string(k) + " at offset " +
               std::to_string(k * family->size) + ")";
    }
    if (record.bytes.size() != count * family->size)
      return "the record is " + std::to_string(record.bytes.size()) + " bytes, but " + expected;
    return {};
  }
  if (size != 0 && record.bytes.size() != size)
    return "the record is " + std::to_string(record.bytes.size()) + " bytes, the parameter's " +
           declared + " " + std::to_string(size);
  if (!record.misaligned.empty()) return record.misaligned;
  if (align != 0 && record.align > align)
    return "its fields need " + std::to_string(record.align) + "-byte alignment, but " + declared +
           " is aligned to " + std::to_string(align) +
           " bytes, so its members are not the record's";
  return {};
}

std::string record_hint(const std::string& declared) {
  const std::string vector = vector_type_name(declared);
  if (!vector.empty())
    return "pass gpuarray.vec.make_" + vector + "(...) (a record of dtype gpuarray.vec." + vector +
           ")";
  return "pass a numpy record whose dtype has the members of " + declared +
         " in order, padded as C pads them (numpy.dtype([...], align=True))";
}

// A numpy record by value. For a struct parameter its layout must be the
// declared type's (record_mismatch); any other parameter refuses a struct
// in the launch's check.
bool append_struct_argument(KernelArgs& out, PyObject* obj, std::size_t index,
                            const Kernel& kernel) {
  RecordArgument record;
  if (!read_record(obj, record)) return false;
  const auto& params = kernel.params().params;
  const Param* p = index < params.size() ? &params[index] : nullptr;
  // (A cubin's 8-byte parameter of a type cudakit does not classify, such
  // as float2, is "pointer or 64-bit integer": it takes an 8-byte struct.)
  if (p != nullptr && (p->kind == ParamKind::aggregate ||
                       (p->kind == ParamKind::pointer_or_u64 && !p->type.empty()))) {
    const std::string declared = p->type.empty() ? "the parameter's struct" : p->type;
    const std::string why = record_mismatch(record, declared, p->size, p->align);
    if (!why.empty())
      throw ArgumentError("launching kernel " + kernel.name(),
                          p->describe(index) + ": passed " + record.description + "; " + why +
                              "; the kernel is " + kernel.name() + kernel.params().signature(),
                          record_hint(declared));
  }
  out.aggregate(record.bytes.data(), record.bytes.size(), "struct");
  return true;
}

std::optional<StructValue> struct_argument(PyObject* obj, const std::string& context,
                                           std::size_t index, const std::string& name,
                                           const std::string& declared) {
  RecordArgument record;
  if (!read_record(obj, record)) return std::nullopt;
  // The compiled size is checked by the launch; a vector type's fields here.
  const std::string why = record_mismatch(record, declared, 0, 0);
  if (!why.empty())
    throw ArgumentError(context,
                        "argument " + std::to_string(index) + " '" + name + "' (" + declared +
                            "): passed " + record.description + "; " + why,
                        record_hint(declared));
  return StructValue(record.bytes.data(), record.bytes.size(), record.description);
}

}  // namespace cudakit::python
