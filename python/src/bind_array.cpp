// cudakit.gpuarray.GPUArray: PyCUDA's GPUArray over cudakit::Array. The
// class, its properties, views, indexing and host transfers; operators are in
// bind_array_ops.cpp, module functions in bind_array_functions.cpp.
#include <nanobind/nanobind.h>
#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <limits>

#include "array_allocator.hpp"
#include "array_object.hpp"
#include "array_streams.hpp"
#include "bindings.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_reduce.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// A contiguous host buffer of a numpy array (or anything with the buffer
// protocol), released on scope exit.
class HostBuffer {
 public:
  HostBuffer(nb::handle object, bool writable) {
    const int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object.ptr(), &view_, flags) != 0) throw nb::python_error();
  }
  ~HostBuffer() { PyBuffer_Release(&view_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* data() const noexcept { return view_.buf; }
  std::size_t bytes() const noexcept { return static_cast<std::size_t>(view_.len); }

 private:
  Py_buffer view_{};
};

nb::object numpy() {
  // Kept for the process: no Python object may be released after finalisation.
  static nb::handle np = nb::module_::import_("numpy").release();
  return nb::borrow(np);
}

// A slice bound as Python reads it: an integer (or __index__), clamped to the
// 64-bit range (a[:2**70] is a[:]); TypeError for anything else (1.5).
std::optional<std::int64_t> optional_index(nb::handle value) {
  if (value.is_none()) return std::nullopt;
  PyObject* index = PyNumber_Index(value.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw nb::type_error("slice indices must be integers or None or have an __index__ method");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (overflow > 0) return std::numeric_limits<std::int64_t>::max();
  if (overflow < 0) return std::numeric_limits<std::int64_t>::min() + 1;
  return v;
}

// An integer index: out of the 64-bit range it is out of bounds of any axis.
std::int64_t integer_index(nb::handle value) {
  PyObject* index = PyNumber_Index(value.ptr());
  if (index == nullptr) throw nb::python_error();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  const nb::object owned = nb::steal(index);
  if (overflow != 0)
    throw nb::index_error(("index " + nb::cast<std::string>(nb::str(owned)) +
                           " is out of bounds (an index is a 64-bit integer)")
                              .c_str());
  return v;
}

}  // namespace

// NumPy basic indexing: ints, slices, None, Ellipsis; a 1-D integer GPUArray
// (or a list / numpy array of ints) indexes the first axis through take().
std::vector<Index> indices_from_python(nb::handle key) {
  std::vector<Index> out;
  auto one = [&](nb::handle k) {
    if (k.is_none()) {
      out.emplace_back(newaxis);
    } else if (k.ptr() == Py_Ellipsis) {
      out.emplace_back(ellipsis);
    } else if (PySlice_Check(k.ptr())) {
      const nb::object start = k.attr("start"), stop = k.attr("stop"), step = k.attr("step");
      const std::int64_t step_value = step.is_none() ? 1 : *optional_index(step);
      if (step_value == 0) throw nb::value_error("slice step cannot be zero");
      out.emplace_back(Slice(optional_index(start), optional_index(stop), step_value));
    } else if (PyBool_Check(k.ptr())) {
      throw nb::index_error("boolean indices are not supported by GPUArray; use where()");
    } else if (PyLong_Check(k.ptr()) || PyIndex_Check(k.ptr())) {
      out.emplace_back(integer_index(k));
    } else {
      throw nb::index_error(
          "only integers, slices (`:`), ellipsis (`...`), None and integer arrays are valid "
          "GPUArray indices");
    }
  };
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle k : nb::borrow<nb::tuple>(key)) one(k);
  } else {
    one(key);
  }
  return out;
}

// A boolean mask: a bool GPUArray, a numpy bool array, or a list numpy reads
// as one ([True, False, ...]). cudakit.gpuarray._mask_getitem /
// _mask_setitem index with it as numpy does.
bool is_boolean_mask_key(nb::handle key) {
  GPUArrayObject* p = nullptr;
  if (nb::try_cast<GPUArrayObject*>(key, p) && p != nullptr)
    return !p->holds_records() && p->dtype() == DType::bool_;
  static nb::handle ndarray = nb::object(numpy().attr("ndarray")).release();
  nb::object array;
  if (PyObject_IsInstance(key.ptr(), ndarray.ptr()) == 1) {
    array = nb::borrow(key);
  } else if (PyList_Check(key.ptr())) {
    try {
      array = numpy().attr("asarray")(key);
    } catch (const nb::python_error&) {
      return false;  // ragged: the integer-array path reports it
    }
  } else {
    return false;
  }
  return nb::cast<std::string>(array.attr("dtype").attr("kind")) == "b";
}

bool is_integer_array_key(nb::handle key) {
  if (is_gpuarray(key)) return true;
  static nb::handle ndarray = nb::object(numpy().attr("ndarray")).release();
  return PyList_Check(key.ptr()) || PyObject_IsInstance(key.ptr(), ndarray.ptr()) == 1;
}

Array view_for_key(const Array& array, nb::handle key) {
  const std::vector<Index> idx = indices_from_python(key);
  try {
    return array.index(std::span<const Index>(idx.data(), idx.size()));
  } catch (const cudakit::ArgumentError& e) {
    const std::string text = e.what();
    if (text.find("out of") != std::string::npos || text.find("index") != std::string::npos)
      throw nb::index_error(text.c_str());
    raise_numpy_style(e);
  }
}

namespace {

// NumPy's view(dtype) with another itemsize: the last axis is rescaled, which
// needs it contiguous and its byte length divisible by the new itemsize.
Array view_with_itemsize(const Array& a, DType d) {
  const auto old_size = static_cast<std::int64_t>(a.itemsize());
  const auto new_size = static_cast<std::int64_t>(itemsize(d));
  if (a.ndim() == 0)
    throw nb::value_error(
        "Changing the dtype of a 0d array is only supported if the itemsize "
        "is unchanged");
  Shape shape = a.shape();
  Strides strides = a.strides();
  const std::size_t last = shape.size() - 1;
  if (strides[last] != 1 && shape[last] != 1)
    throw nb::value_error(
        "To change to a dtype of a different size, the last axis must be "
        "contiguous");
  const std::int64_t bytes = shape[last] * old_size;
  if (bytes % new_size != 0 || (a.offset() * old_size) % new_size != 0)
    throw nb::value_error(
        "When changing to a larger dtype, its size must be a divisor of the "
        "total size in bytes of the last axis of the array.");
  shape[last] = bytes / new_size;
  for (std::size_t k = 0; k < last; ++k) {
    if ((strides[k] * old_size) % new_size != 0)
      throw nb::value_error("the strides of the array do not fit the new dtype's itemsize");
    strides[k] = strides[k] * old_size / new_size;
  }
  strides[last] = 1;
  return Array(a.storage(), d, shape, strides, a.offset() * old_size / new_size,
               std::optional<Stream>(a.stream()), a.readonly());
}

nb::object get_to_host(GPUArrayObject& self, nb::handle ary, bool async, nb::handle stream,
                       bool pagelocked = false) {
  Array a = self.value();
  if (auto s = stream_from_python(stream)) a = on_stream(a, *s);
  nb::object out;
  if (ary.is_valid() && !ary.is_none()) {
    out = nb::borrow(ary);
    const Shape host_shape = shape_from_python(out.attr("shape"));
    if (shape_size(host_shape) != a.size())
      throw nb::value_error(("get(): the host array has " + std::to_string(shape_size(host_shape)) +
                             " elements, the GPUArray " + std::to_string(a.size()))
                                .c_str());
    if (!(dtype_from_python(out.attr("dtype")) == a.dtype()))
      throw nb::type_error("get(): the host array's dtype differs from the GPUArray's");
    if (!nb::cast<bool>(out.attr("flags").attr("c_contiguous"))) {
      nb::object tmp = get_to_host(self, nb::none(), false, stream);
      numpy().attr("copyto")(out, tmp.attr("reshape")(out.attr("shape")));
      return out;
    }
  } else if (pagelocked) {
    out = nb::module_::import_("cudakit.driver")
              .attr("pagelocked_empty")(shape_to_python(a.shape()), numpy_dtype(a.dtype()));
  } else {
    out = numpy().attr("empty")(shape_to_python(a.shape()), numpy_dtype(a.dtype()));
  }
  HostBuffer buffer(out, true);
  numpy_errors([&] {
    if (async)
      a.copy_to_host_async(buffer.data(), buffer.bytes());
    else
      a.copy_to_host(buffer.data(), buffer.bytes());
  });
  return out;
}

void set_from_host(GPUArrayObject& self, nb::handle ary, bool async, nb::handle stream) {
  Array a = self.value();
  nb::object host = numpy().attr("asarray")(ary);
  const Shape host_shape = shape_from_python(host.attr("shape"));
  if (shape_size(host_shape) != a.size())
    throw nb::value_error(("set(): the host array has shape " + shape_to_string(host_shape) +
                           ", the GPUArray " + shape_to_string(a.shape()) +
                           " (the sizes must be equal)")
                              .c_str());
  if (!(dtype_from_python(host.attr("dtype")) == a.dtype()))
    throw nb::type_error(("set(): the host array is " +
                          std::string(to_string(dtype_from_python(host.attr("dtype")))) +
                          ", the GPUArray " + std::string(to_string(a.dtype())) +
                          " (the dtypes must be equal); convert it with ary.astype(...) first")
                             .c_str());
  host = numpy().attr("asarray")(host, nb::arg("order") = "C");
  if (auto s = stream_from_python(stream)) a = on_stream(a, *s);
  prepare_write(a);
  HostBuffer buffer(host, false);
  numpy_errors([&] {
    if (a.is_c_contiguous()) {
      if (async)
        a.copy_from_host_async(buffer.data(), buffer.bytes());
      else
        a.copy_from_host(buffer.data(), buffer.bytes());
    } else {
      Array staged = from_host(buffer.data(), a.shape(), a.dtype());
      a.assign(staged);
    }
  });
}

// The array's elements must lie inside the memory gpudata holds (when its
// size is known): a smaller allocation would be read and written past its
// end.
void check_gpudata_covers(const DeviceTarget& target, const Shape& shape,
                          const std::vector<std::int64_t>& strides_bytes, DType dtype) {
  if (target.capacity == DeviceTarget{}.capacity) return;
  for (std::int64_t extent : shape)
    if (extent <= 0) return;  // empty (or negative: from_pointer says so)
  const auto item = static_cast<std::int64_t>(itemsize(dtype));
  // The lowest and highest byte offsets of an element, from the strides
  // (C-contiguous ones when none are given); an overflow is "too large".
  std::int64_t low = 0, high = 0, stride = item;
  bool overflow = false;
  for (std::size_t k = shape.size(); k-- > 0;) {
    const std::int64_t step = strides_bytes.empty() ? stride : strides_bytes[k];
    std::int64_t span = 0;
    overflow |= __builtin_mul_overflow(step, shape[k] - 1, &span);
    overflow |= __builtin_add_overflow(span < 0 ? low : high, span, span < 0 ? &low : &high);
    overflow |= __builtin_mul_overflow(stride, shape[k], &stride);
  }
  std::int64_t needed = 0;
  overflow |= __builtin_add_overflow(high, item, &needed);
  if (!overflow && low >= 0 && static_cast<std::uint64_t>(needed) <= target.capacity) return;
  const std::string what = overflow  ? "more than 2**63 bytes"
                           : low < 0 ? "memory before its start (negative strides)"
                                     : std::to_string(needed) + " bytes";
  throw ArgumentError("GPUArray(gpudata=...)",
                      "an array of shape " + shape_to_string(shape) + " and dtype " +
                          std::string(to_string(dtype)) + " needs " + what +
                          ", but gpudata holds " + std::to_string(target.capacity) + " bytes",
                      "allocate at least the array's nbytes (mem_alloc(size * itemsize)), or "
                      "make the shape smaller");
}

nb::object make_gpuarray(nb::handle shape, nb::handle dtype, nb::handle allocator, nb::handle base,
                         nb::handle gpudata, nb::handle strides, const std::string& order) {
  const Shape s = shape_from_python(shape);
  const DType d = dtype_from_python(dtype);
  if (order != "C" && order != "F") throw nb::value_error("order must be 'C' or 'F'");
  if (!gpudata.is_none()) {
    const char* use = "GPUArray(gpudata=...)";
    // The address, and the bytes that belong to it where the object says
    // (a DeviceAllocation, a __cuda_array_interface__); a freed allocation
    // is an ArgumentError here.
    DeviceTarget target;
    if (!try_device_target(gpudata, target, use))
      target.address = unsigned_argument(nb::int_(gpudata), use, "int(gpudata)");
    const std::uint64_t address = target.address;
    std::vector<std::int64_t> strides_bytes;
    if (!strides.is_none()) {
      strides_bytes = shape_from_python(strides);
    } else if (order == "F") {
      for (std::int64_t st : contiguous_strides(s, Order::F))
        strides_bytes.push_back(st * static_cast<std::int64_t>(itemsize(d)));
    }
    check_gpudata_covers(target, s, strides_bytes, d);
    Array a = numpy_errors([&] {
      return from_pointer(address, s, strides_bytes, d, Device::current(), keep_alive(gpudata));
    });
    return wrap(std::move(a), base.is_none() ? nb::borrow(gpudata) : nb::borrow(base));
  }
  if (!strides.is_none())
    throw nb::value_error("strides= needs gpudata= (new arrays are contiguous; use order=)");
  if (!allocator.is_none()) {
    nb::object made =
        allocate_array(allocator, s, d, order == "F" ? Order::F : Order::C, std::nullopt);
    as_gpuarray(made).base = nb::borrow(base);
    return made;
  }
  Array a = numpy_errors([&] { return empty(s, d, order == "F" ? Order::F : Order::C); });
  return wrap(std::move(a), nb::borrow(base));
}

struct ArrayFlags {
  bool c_contiguous = false;
  bool f_contiguous = false;
  bool forc = false;
  bool writeable = true;
};

std::string repr_of(GPUArrayObject& self) { return self.value().to_string(); }

}  // namespace

void bind_gpuarray_class(nb::module_& m) {
  nb::class_<ArrayFlags>(m, "ArrayFlags")
      .def_ro("c_contiguous", &ArrayFlags::c_contiguous)
      .def_ro("f_contiguous", &ArrayFlags::f_contiguous)
      .def_ro("forc", &ArrayFlags::forc)
      .def_ro("writeable", &ArrayFlags::writeable)
      .def("__repr__", [](const ArrayFlags& f) {
        auto word = [](bool b) { return std::string(b ? "True" : "False"); };
        return "  C_CONTIGUOUS : " + word(f.c_contiguous) +
               "\n  F_CONTIGUOUS : " + word(f.f_contiguous) +
               "\n  WRITEABLE : " + word(f.writeable);
      });

  auto cls = nb::class_<GPUArrayObject>(m, "GPUArray",
                                        "A device array (PyCUDA's GPUArray) over cudakit::Array. "
                                        "Operators build fused expressions that run as one "
                                        "kernel when the result is first read.");
  // A __new__ rather than an __init__: with a structured dtype
  // (gpuarray.vec.float3, a record) the result is a cudakit._records
  // RecordGPUArray, the GPUArray subclass that holds records.
  cls.def(nb::new_([](nb::handle shape, nb::handle dtype, nb::handle allocator, nb::handle base,
                      nb::handle gpudata, nb::handle strides, const std::string& order) {
            static nb::handle records =
                nb::module_::import_("cudakit._records").release();  // kept for the process
            if (nb::cast<bool>(records.attr("is_record_dtype")(dtype)))
              return records.attr("construct")(shape, dtype, allocator, base, gpudata, strides,
                                               order);
            return make_gpuarray(shape, dtype, allocator, base, gpudata, strides, order);
          }),
          nb::arg("shape").none(), nb::arg("dtype").none() = nb::none(),
          nb::arg("allocator").none() = nb::none(), nb::arg("base").none() = nb::none(),
          nb::arg("gpudata").none() = nb::none(), nb::arg("strides").none() = nb::none(),
          nb::arg("order") = "C")
      .def_prop_ro("shape", [](GPUArrayObject& s) { return shape_to_python(s.shape()); })
      .def_prop_ro("dtype", [](GPUArrayObject& s) { return numpy_dtype(s.dtype()); })
      .def_prop_ro("ndim", [](GPUArrayObject& s) { return s.shape().size(); })
      .def_prop_ro("size", [](GPUArrayObject& s) { return shape_size(s.shape()); })
      .def_prop_ro("mem_size", [](GPUArrayObject& s) { return shape_size(s.shape()); })
      .def_prop_ro("itemsize", [](GPUArrayObject& s) { return itemsize(s.dtype()); })
      .def_prop_ro("nbytes",
                   [](GPUArrayObject& s) {
                     return static_cast<std::size_t>(shape_size(s.shape())) * itemsize(s.dtype());
                   })
      .def_prop_ro("strides",
                   [](GPUArrayObject& s) { return shape_to_python(s.value().strides_bytes()); })
      .def_prop_ro("flags",
                   [](GPUArrayObject& s) {
                     const Array& a = s.value();
                     ArrayFlags f;
                     f.c_contiguous = a.is_c_contiguous();
                     f.f_contiguous = a.is_f_contiguous();
                     f.forc = f.c_contiguous || f.f_contiguous;
                     f.writeable = !a.readonly();
                     return f;
                   })
      // The device address of element [0, ...] as a cudakit.driver.DeviceAddress:
      // an int that a launch takes as a pointer (PyCUDA hands out the
      // allocation; the tutorials pass a_gpu.gpudata to kernels).
      .def_prop_ro("gpudata",
                   [](nb::handle self) {
                     std::uint64_t address = 0;
                     gpuarray_launch_argument(self, address);
                     // Looked up once, kept for the life of the process.
                     static PyObject* device_address_type =
                         nb::object(nb::module_::import_("cudakit.driver").attr("DeviceAddress"))
                             .release()
                             .ptr();
                     return nb::handle(device_address_type)(address, self);
                   })
      .def_prop_ro("ptr",
                   [](GPUArrayObject& s) {
                     std::uint64_t address = 0;
                     gpuarray_launch_argument(nb::cast(&s, nb::rv_policy::reference), address);
                     return address;
                   })
      .def_prop_ro("base", [](GPUArrayObject& s) { return s.base; })
      .def_prop_ro(
          "allocator",
          [](GPUArrayObject& s) -> nb::object {
            return s.allocator.is_valid() ? s.allocator : nb::none();
          },
          "The allocator= the memory came from (None: cudakit's caching pool).")
      .def_prop_ro(
          "stream", [](GPUArrayObject& s) { return s.value().stream(); },
          "The stream this array's work is ordered on (a cudakit.driver.Stream).")
      .def_prop_ro("is_pending", &GPUArrayObject::is_pending,
                   "True while the value is an unevaluated fused expression.")
      .def(
          "evaluate",
          [](nb::handle self) {
            as_gpuarray(self).value();
            return nb::borrow(self);
          },
          "Runs the pending expression now (one kernel) and returns self.")
      .def("__len__",
           [](GPUArrayObject& s) {
             if (s.shape().empty()) throw nb::type_error("len() of unsized object");
             return s.shape()[0];
           })
      .def("__repr__", &repr_of)
      .def("__str__", &repr_of)
      .def(
          "get",
          [](GPUArrayObject& s, nb::handle ary, bool pagelocked, bool async_, nb::handle stream) {
            return get_to_host(s, ary, async_, stream, pagelocked);
          },
          nb::arg("ary").none() = nb::none(), nb::arg("pagelocked") = false,
          nb::arg("async_") = false, nb::arg("stream").none() = nb::none())
      .def(
          "get_async",
          [](GPUArrayObject& s, nb::handle stream, nb::handle ary) {
            return get_to_host(s, ary, true, stream);
          },
          nb::arg("stream").none() = nb::none(), nb::arg("ary").none() = nb::none())
      .def(
          "set",
          [](GPUArrayObject& s, nb::handle ary, bool async_, nb::handle stream) {
            set_from_host(s, ary, async_, stream);
          },
          nb::arg("ary").none(), nb::arg("async_") = false, nb::arg("stream").none() = nb::none())
      .def(
          "set_async",
          [](GPUArrayObject& s, nb::handle ary, nb::handle stream) {
            set_from_host(s, ary, true, stream);
          },
          nb::arg("ary").none(), nb::arg("stream").none() = nb::none())
      .def(
          "fill",
          [](nb::handle self, nb::handle value, nb::handle stream) {
            GPUArrayObject& s = as_gpuarray(self);
            Array a = s.value();
            if (auto st = stream_from_python(stream)) a = on_stream(a, *st);
            auto v = scalar_from_python(value);
            if (!v) throw nb::type_error("fill(): the value must be a number");
            prepare_write(a);
            numpy_errors([&] { a.fill(*v); });
            return nb::borrow(self);
          },
          nb::arg("value").none(), nb::arg("stream").none() = nb::none())
      .def(
          "astype",
          [](GPUArrayObject& s, nb::handle dtype, nb::handle stream) {
            const DType d = dtype_from_python(dtype);
            std::vector<const void*> reads = s.reads();
            return elementwise_result(s.expr().astype(d), std::move(reads), s.nodes() + 1,
                                      nb::none(), stream_from_python(stream));
          },
          nb::arg("dtype").none(), nb::arg("stream").none() = nb::none())
      .def(
          "copy",
          [](GPUArrayObject& s, const std::string& order) {
            // PyCUDA keeps a Fortran-ordered array Fortran-ordered (order 'K' / 'A').
            const Array& a = s.value();
            const bool fortran = order == "F" || ((order == "K" || order == "A") &&
                                                  a.is_f_contiguous() && !a.is_c_contiguous());
            return wrap(numpy_errors([&] { return a.copy(fortran ? Order::F : Order::C); }));
          },
          nb::arg("order") = "K")
      .def(
          "reshape",
          [](GPUArrayObject& s, nb::args shape, const std::string& order) {
            Shape target;
            if (shape.size() == 1 && !PyLong_Check(shape[0].ptr()))
              target = shape_from_python(shape[0]);
            else
              target = shape_from_python(shape);
            if (order != "C" && order != "F" && order != "A")
              throw nb::value_error("reshape: order must be 'C', 'F' or 'A'");
            const Array& a = s.value();
            const Order o =
                order == "F" || (order == "A" && a.is_f_contiguous() && !a.is_c_contiguous())
                    ? Order::F
                    : Order::C;
            // NumPy's values, in PyCUDA's layout: reshape(order=o) always
            // gives an o-contiguous array; a view where the layout allows
            // one, else an o-ordered copy.
            Array view = numpy_errors([&] { return a.reshape(target, o); });
            if (o == Order::C ? view.is_c_contiguous() : view.is_f_contiguous())
              return wrap(std::move(view), s.base);
            return wrap(numpy_errors([&] { return view.copy(o); }));
          },
          nb::arg("shape"), nb::kw_only(), nb::arg("order") = "C")
      .def(
          "ravel",
          [](GPUArrayObject& s, const std::string& order) {
            const Order o = order == "F" ? Order::F : Order::C;
            return wrap(numpy_errors([&] { return s.value().ravel(o); }), s.base);
          },
          nb::arg("order") = "C")
      .def(
          "view",
          [](nb::handle self, nb::handle dtype) -> nb::object {
            GPUArrayObject& s = as_gpuarray(self);
            if (dtype.is_none()) return wrap(s.value(), s.base);
            static nb::handle records =
                nb::module_::import_("cudakit._records").release();  // kept for the process
            if (nb::cast<bool>(records.attr("is_record_dtype")(dtype)))
              return records.attr("view_as")(self, dtype);
            const DType d = dtype_from_python(dtype);
            const Array& a = s.value();
            if (itemsize(d) == a.itemsize())
              return wrap(numpy_errors([&] { return a.view(d); }), s.base);
            return wrap(view_with_itemsize(a, d), s.base);
          },
          nb::arg("dtype").none() = nb::none())
      .def_prop_ro("T", [](GPUArrayObject& s) { return wrap(s.value().transpose(), s.base); })
      .def("transpose",
           [](GPUArrayObject& s, nb::args axes, nb::kwargs kwargs) {
             nb::handle source = axes;
             if (kwargs.contains("axes")) {
               if (axes.size() != 0) throw nb::type_error("transpose(): axes given twice");
               source = kwargs["axes"];
             } else if (axes.size() == 1) {
               source = axes[0];
             }
             if (source.is_none() ||
                 (PyTuple_Check(source.ptr()) && axes.size() == 0 && !kwargs.contains("axes")))
               return wrap(s.value().transpose(), s.base);
             std::vector<int> list;
             if (PyLong_Check(source.ptr())) source = axes;
             for (nb::handle a : nb::iter(source))
               list.push_back(int_argument<int>(a, "transpose", "an axis"));
             return wrap(numpy_errors([&] { return s.value().transpose(list); }), s.base);
           })
      .def(
          "swapaxes",
          [](GPUArrayObject& s, nb::handle axis1, nb::handle axis2) {
            const int a = int_argument<int>(axis1, "swapaxes", "axis1");
            const int b = int_argument<int>(axis2, "swapaxes", "axis2");
            return wrap(numpy_errors([&] { return s.value().swapaxes(a, b); }), s.base);
          },
          nb::arg("axis1").none(), nb::arg("axis2").none())
      .def(
          "squeeze",
          [](GPUArrayObject& s, nb::handle axis) {
            if (axis.is_none()) return wrap(s.value().squeeze(), s.base);
            const int ax = int_argument<int>(axis, "squeeze", "axis");
            return wrap(numpy_errors([&] { return s.value().squeeze(ax); }), s.base);
          },
          nb::arg("axis").none() = nb::none())
      .def(
          "reverse",
          [](GPUArrayObject& s, nb::handle stream) {
            if (s.shape().size() != 1)
              throw nb::value_error("reverse() is defined for 1-D arrays (PyCUDA's rule)");
            const std::optional<Stream> st = stream_from_python(stream);
            const Array a = st ? value_on_stream(s, *st) : s.value();
            return wrap(a.slice(0, std::nullopt, std::nullopt, -1).copy());
          },
          nb::arg("stream").none() = nb::none())
      .def_prop_ro("real",
                   [](GPUArrayObject& s) {
                     std::vector<const void*> reads = s.reads();
                     return wrap_pending(cudakit::real(s.expr()), std::move(reads), s.nodes() + 1);
                   })
      .def_prop_ro("imag",
                   [](GPUArrayObject& s) {
                     std::vector<const void*> reads = s.reads();
                     return wrap_pending(cudakit::imag(s.expr()), std::move(reads), s.nodes() + 1);
                   })
      .def(
          "conj",
          [](GPUArrayObject& s, nb::handle out) -> nb::object {
            if (!out.is_none()) {
              Array target = as_gpuarray(out).value();
              Expr e = cudakit::conj(s.expr());
              prepare_write(target);
              numpy_errors([&] { eval(e, target); });
              return nb::borrow(out);
            }
            std::vector<const void*> reads = s.reads();
            return wrap_pending(cudakit::conj(s.expr()), std::move(reads), s.nodes() + 1);
          },
          nb::arg("out").none() = nb::none())
      .def("conjugate",
           [](GPUArrayObject& s) {
             std::vector<const void*> reads = s.reads();
             return wrap_pending(cudakit::conj(s.expr()), std::move(reads), s.nodes() + 1);
           })
      .def(
          "__getitem__",
          [](GPUArrayObject& s, nb::handle key) -> nb::object {
            if (!PyTuple_Check(key.ptr()) && is_boolean_mask_key(key))
              return nb::module_::import_("cudakit.gpuarray")
                  .attr("_mask_getitem")(nb::cast(&s, nb::rv_policy::reference), key);
            if (!PyTuple_Check(key.ptr()) && is_integer_array_key(key)) {
              nb::object take = nb::module_::import_("cudakit.gpuarray").attr("take");
              return take(nb::cast(&s, nb::rv_policy::reference), key);
            }
            return wrap(view_for_key(s.value(), key), s.base);
          },
          nb::arg("key").none())
      .def(
          "__setitem__",
          [](GPUArrayObject& s, nb::handle key, nb::handle value) {
            if (!PyTuple_Check(key.ptr()) && is_boolean_mask_key(key)) {
              nb::module_::import_("cudakit.gpuarray")
                  .attr("_mask_setitem")(nb::cast(&s, nb::rv_policy::reference), key, value);
              return;
            }
            Array target = view_for_key(s.value(), key);
            prepare_write(target);
            std::optional<Expr> v = operand_from_python(value, nullptr, nullptr, true);
            if (!v)
              throw nb::type_error("GPUArray.__setitem__: the value must be a number or array");
            numpy_errors([&] { target.assign(*v); });
          },
          nb::arg("key").none(), nb::arg("value").none())
      .def("__float__",
           [](GPUArrayObject& s) {
             const Array& a = s.value();
             if (a.size() != 1)
               throw nb::type_error("only size-1 arrays can be converted to Python scalars");
             return a.item().as_double();
           })
      .def("__int__",
           [](GPUArrayObject& s) {
             const Array& a = s.value();
             if (a.size() != 1)
               throw nb::type_error("only size-1 arrays can be converted to Python scalars");
             return a.item().as_int64();
           })
      .def("__complex__",
           [](GPUArrayObject& s) {
             const Array& a = s.value();
             if (a.size() != 1)
               throw nb::type_error("only size-1 arrays can be converted to Python scalars");
             return a.item().as_complex();
           })
      .def("__bool__", [](GPUArrayObject& s) {
        const Array& a = s.value();
        if (a.size() != 1)
          throw nb::value_error(
              "The truth value of an array with more than one element is ambiguous. Use "
              "a.any() or a.all()");
        return a.item().as_bool();
      });
  // bind_to_texref / bind_to_texref_ext: python/cudakit/_texture_references.py.

  bind_gpuarray_operators(cls);
  bind_array_interop(m, cls);
}

void bind_array(nb::module_& m) {
  bind_gpuarray_class(m);
  m.def(
      "_on_stream",
      [](GPUArrayObject& s, nb::handle stream) {
        const std::optional<Stream> st = stream_from_python(stream);
        if (!st) throw nb::type_error("_on_stream: a stream is required");
        nb::object out = wrap(value_on_stream(s, *st), s.base);
        as_gpuarray(out).allocator = s.allocator;
        return out;
      },
      nb::arg("array"), nb::arg("stream"),
      "A view of the array (same memory) whose work runs on `stream`, after the work queued "
      "on the array's own stream.");
  m.def(
      "_allocate",
      [](nb::handle allocator, nb::handle shape, nb::handle dtype, const std::string& order,
         nb::handle stream) {
        if (order != "C" && order != "F") throw nb::value_error("order must be 'C' or 'F'");
        return allocate_array(allocator, shape_from_python(shape), dtype_from_python(dtype),
                              order == "F" ? Order::F : Order::C, stream_from_python(stream));
      },
      nb::arg("allocator"), nb::arg("shape"), nb::arg("dtype"), nb::arg("order") = "C",
      nb::arg("stream").none() = nb::none());
  m.def(
      "_into_allocated",
      [](nb::object result, nb::handle allocator, nb::handle stream) {
        return into_allocated(std::move(result), allocator, stream_from_python(stream));
      },
      nb::arg("result"), nb::arg("allocator").none(), nb::arg("stream").none() = nb::none());
  bind_array_functions(m);
  bind_array_kernels(m);
  bind_array_random(m);
  bind_array_records(m);
}

}  // namespace cudakit::python
