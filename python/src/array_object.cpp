#include "array_object.hpp"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <array>
#include <climits>
#include <utility>

#include "cudakit/detail/expr_node.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// Pending results, each knowing its slot, so removal is O(1). Touched only
// with the GIL held.
std::vector<GPUArrayObject*>& registry() {
  static std::vector<GPUArrayObject*> pending;
  return pending;
}

// Past this many nodes a pending tree is evaluated at once: a loop like
// `x = x + 1` must not build an unbounded expression (and kernel).
constexpr std::size_t fusion_node_limit = 64;
constexpr std::size_t fusion_read_limit = 24;

nb::object numpy_module() {
  // Kept for the process: no Python object may be released after finalisation.
  static nb::handle np = nb::module_::import_("numpy").release();
  return nb::borrow(np);
}

}  // namespace

GPUArrayObject::GPUArrayObject(Expr expr, std::vector<const void*> reads, std::size_t nodes)
    : reads_(std::move(reads)), nodes_(nodes) {
  if (nodes_ > fusion_node_limit || reads_.size() > fusion_read_limit) {
    array_ = Array(expr);
    return;
  }
  pending_.emplace(std::move(expr));
  auto& r = registry();
  slot_ = r.size();
  r.push_back(this);
}

GPUArrayObject::GPUArrayObject(GPUArrayObject&& other) noexcept
    : base(std::move(other.base)),
      allocator(std::move(other.allocator)),
      records(std::move(other.records)),
      array_(std::move(other.array_)),
      pending_(std::move(other.pending_)),
      reads_(std::move(other.reads_)),
      nodes_(other.nodes_),
      slot_(other.slot_) {
  other.pending_.reset();
  other.slot_ = static_cast<std::size_t>(-1);
  if (slot_ != static_cast<std::size_t>(-1)) registry()[slot_] = this;
}

GPUArrayObject& GPUArrayObject::operator=(GPUArrayObject&& other) noexcept {
  if (this == &other) return *this;
  unregister();
  base = std::move(other.base);
  allocator = std::move(other.allocator);
  records = std::move(other.records);
  array_ = std::move(other.array_);
  pending_ = std::move(other.pending_);
  reads_ = std::move(other.reads_);
  nodes_ = other.nodes_;
  slot_ = other.slot_;
  other.pending_.reset();
  other.slot_ = static_cast<std::size_t>(-1);
  if (slot_ != static_cast<std::size_t>(-1)) registry()[slot_] = this;
  return *this;
}

GPUArrayObject::~GPUArrayObject() { unregister(); }

void GPUArrayObject::unregister() noexcept {
  if (slot_ == static_cast<std::size_t>(-1)) return;
  auto& r = registry();
  GPUArrayObject* last = r.back();
  r[slot_] = last;
  last->slot_ = slot_;
  r.pop_back();
  slot_ = static_cast<std::size_t>(-1);
}

const Array& GPUArrayObject::value() {
  if (pending_) {
    array_ = numpy_errors([&] { return Array(*pending_); });
    pending_.reset();
    reads_.clear();
    nodes_ = 1;
    unregister();
  }
  return array_;
}

Expr GPUArrayObject::expr() const {
  if (holds_records()) refuse_records(*this);
  return pending_ ? *pending_ : Expr(array_);
}

void refuse_records(const GPUArrayObject& object) {
  const std::string dtype = nb::cast<std::string>(
      nb::module_::import_("cudakit._records").attr("dtype_name")(object.records));
  throw nb::type_error(("this operation is not defined for a GPUArray of the structured dtype " +
                        dtype +
                        " (numpy has no arithmetic on records either): records are stored, "
                        "copied, filled, indexed and passed to kernels (SourceModule, "
                        "ElementwiseKernel); compute on their fields in a kernel")
                           .c_str());
}

std::vector<const void*> GPUArrayObject::reads() const {
  if (pending_) return reads_;
  if (!array_.valid()) return {};
  return {array_.storage().get()};
}

void evaluate_pending_reading(const void* storage) {
  auto& r = registry();
  if (r.empty()) return;
  std::vector<GPUArrayObject*> due;
  for (GPUArrayObject* p : r)
    if (std::find(p->reads_.begin(), p->reads_.end(), storage) != p->reads_.end()) due.push_back(p);
  // value() removes each from the registry; nothing else runs meanwhile.
  for (GPUArrayObject* p : due) p->value();
}

void evaluate_all_pending() {
  auto& r = registry();
  while (!r.empty()) r.back()->value();
}

std::size_t pending_count() noexcept { return registry().size(); }

bool is_gpuarray(nb::handle object) noexcept { return nb::isinstance<GPUArrayObject>(object); }

GPUArrayObject& as_gpuarray(nb::handle object) {
  GPUArrayObject* p = nullptr;
  if (!nb::try_cast<GPUArrayObject*>(object, p) || p == nullptr)
    throw nb::type_error("expected a cudakit GPUArray");
  if (p->holds_records()) refuse_records(*p);
  return *p;
}

bool gpuarray_launch_argument(nb::handle object, std::uint64_t& address, DType& dtype) {
  GPUArrayObject* p = nullptr;
  if (!nb::try_cast<GPUArrayObject*>(object, p) || p == nullptr) return false;
  const Array& a = p->value();
  prepare_write(a);
  address = a.address();
  dtype = a.dtype();
  return true;
}

bool gpuarray_launch_argument(nb::handle object, std::uint64_t& address) {
  DType dtype{};
  return gpuarray_launch_argument(object, address, dtype);
}

nb::object wrap(Array array, nb::object base) {
  GPUArrayObject obj(std::move(array));
  obj.base = std::move(base);
  return nb::cast(std::move(obj), nb::rv_policy::move);
}

nb::object wrap_pending(Expr expr, std::vector<const void*> reads, std::size_t nodes) {
  return nb::cast(GPUArrayObject(std::move(expr), std::move(reads), nodes), nb::rv_policy::move);
}

// ---- dtypes -------------------------------------------------------------------

nb::object numpy_dtype(DType dtype) {
  static auto& cache = *new std::array<nb::object, dtype_count>();  // never destroyed at exit
  nb::object& slot = cache[static_cast<std::size_t>(dtype)];
  if (!slot.is_valid()) {
    if (dtype == DType::bfloat16) {
      try {
        slot = numpy_module().attr("dtype")(nb::module_::import_("ml_dtypes").attr("bfloat16"));
      } catch (const nb::python_error&) {
        throw nb::type_error(
            "bfloat16 has no NumPy dtype without the ml_dtypes package: pip install ml_dtypes, or "
            "use astype(numpy.float32) first");
      }
    } else {
      slot = numpy_module().attr("dtype")(std::string(to_string(dtype)));
    }
  }
  return slot;
}

DType dtype_from_python(nb::handle dtype) {
  if (dtype.is_none()) return DType::float64;  // numpy.dtype(None) is float64
  nb::object d;
  try {
    d = numpy_module().attr("dtype")(dtype);
  } catch (const nb::python_error& e) {
    throw nb::type_error(("not a dtype: " + std::string(e.what())).c_str());
  }
  const std::string name = nb::cast<std::string>(d.attr("name"));
  if (auto parsed = parse_dtype(name)) return *parsed;
  throw nb::type_error(("cudakit arrays have no dtype " + name +
                        " (bool, int8..int64, uint8..uint64, float16, bfloat16, float32, "
                        "float64, complex64, complex128)")
                           .c_str());
}

Shape shape_from_python(nb::handle shape) {
  Shape out;
  // An int, or a 0-d integer array (numpy.array(3)): one extent.
  const bool sized = PySequence_Check(shape.ptr()) != 0 && PyObject_Length(shape.ptr()) >= 0;
  if (!sized) PyErr_Clear();
  if (!sized && (PyLong_Check(shape.ptr()) || PyIndex_Check(shape.ptr()))) {
    out.push_back(int_argument<std::int64_t>(shape, "shape", "an extent"));
    return out;
  }
  if (!sized)
    throw nb::type_error(("shape must be an integer or a sequence of integers, got " +
                          std::string(nb::type_name(shape.type()).c_str()))
                             .c_str());
  for (nb::handle extent : nb::iter(shape))
    out.push_back(int_argument<std::int64_t>(extent, "shape", "an extent"));
  return out;
}

nb::tuple shape_to_python(const Shape& shape) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(shape.size()));
  for (std::size_t i = 0; i < shape.size(); ++i)
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(shape[i]));
  return nb::steal<nb::tuple>(t);
}

// ---- numbers ------------------------------------------------------------------

std::optional<Scalar> scalar_from_python(nb::handle value) {
  PyObject* o = value.ptr();
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyFloat_CheckExact(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return Scalar(static_cast<std::int64_t>(v));
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!PyErr_Occurred()) return Scalar(static_cast<std::uint64_t>(u));
      PyErr_Clear();
    }
    throw nb::value_error(
        "Python integer out of bounds: array operands must fit in int64 or uint64");
  }
  if (PyComplex_CheckExact(o))
    return Scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
  static nb::handle generic = nb::object(numpy_module().attr("generic")).release();
  if (PyObject_IsInstance(o, generic.ptr()) == 1) {
    const DType dtype = dtype_from_python(value.attr("dtype"));
    nb::object item = value.attr("item")();
    if (dtype == DType::bfloat16 || dtype == DType::float16)
      item = nb::float_(value.attr("astype")("float32").attr("item")());
    std::optional<Scalar> weak = scalar_from_python(item);
    if (!weak) return std::nullopt;
    return Scalar::typed(*weak, dtype);
  }
  // Python subclasses of int / float (enum.IntEnum, ...).
  if (PyLong_Check(o)) return scalar_from_python(nb::int_(value));
  if (PyFloat_Check(o)) return Scalar(PyFloat_AsDouble(o));
  return std::nullopt;
}

std::optional<Expr> operand_from_python(nb::handle value, std::vector<const void*>* reads,
                                        std::size_t* nodes, bool allow_host) {
  GPUArrayObject* p = nullptr;
  if (nb::try_cast<GPUArrayObject*>(value, p) && p != nullptr) {
    if (reads) {
      for (const void* s : p->reads())
        if (std::find(reads->begin(), reads->end(), s) == reads->end()) reads->push_back(s);
    }
    if (nodes) *nodes += p->nodes();
    return p->expr();
  }
  if (auto s = scalar_from_python(value)) {
    if (nodes) *nodes += 1;
    return Expr(*s);
  }
  if (allow_host) {
    static nb::handle ndarray = nb::object(numpy_module().attr("ndarray")).release();
    if (PyObject_IsInstance(value.ptr(), ndarray.ptr()) == 1 || PyList_Check(value.ptr()) ||
        PyTuple_Check(value.ptr())) {
      nb::object to_gpu = nb::module_::import_("cudakit.gpuarray").attr("to_gpu");
      nb::object device = to_gpu(numpy_module().attr("asarray")(value));
      return operand_from_python(device, reads, nodes, false);
    }
  }
  return std::nullopt;
}

std::optional<Stream> stream_from_python(nb::handle stream) {
  if (!stream.is_valid() || stream.is_none()) return std::nullopt;
  if (is_gpuarray(stream))
    throw nb::type_error(
        "stream: got a GPUArray; pass the output array as out= and a cudakit.driver.Stream as "
        "stream=");
  Stream* s = nullptr;
  if (nb::try_cast<Stream*>(stream, s) && s != nullptr) return *s;
  nb::object handle;
  if (nb::hasattr(stream, "handle"))
    handle = stream.attr("handle");
  else if (nb::hasattr(stream, "cuda_stream"))  // torch.cuda.Stream
    handle = stream.attr("cuda_stream");
  else if (nb::hasattr(stream, "ptr"))  // cupy.cuda.Stream
    handle = stream.attr("ptr");
  else
    handle = nb::borrow(stream);
  std::uintptr_t native = 0;
  try {
    native = nb::cast<std::uintptr_t>(nb::int_(handle));
  } catch (const std::exception&) {
    throw nb::type_error(
        "stream: expected a cudakit Stream, an object with a `handle` / `cuda_stream` / `ptr` "
        "attribute (PyCUDA, torch, CuPy streams) or an integer CUstream handle");
  }
  if (native == 0) return Stream();
  return Stream::wrap(Device::current(), reinterpret_cast<void*>(native));
}

// ---- errors -------------------------------------------------------------------

void raise_numpy_style(const cudakit::Error& error) {
  const std::string text = error.what();
  const bool dtype_problem = dynamic_cast<const NotSupported*>(&error) != nullptr ||
                             text.find("dtype") != std::string::npos ||
                             text.find("not supported for") != std::string::npos ||
                             text.find("cast") != std::string::npos;
  const bool shape_problem =
      text.find("broadcast") != std::string::npos || text.find("shape") != std::string::npos;
  if (dtype_problem && !shape_problem) throw nb::type_error(text.c_str());
  throw nb::value_error(text.c_str());
}

}  // namespace cudakit::python
