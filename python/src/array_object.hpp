// The object behind cudakit.gpuarray.GPUArray: either a materialised
// cudakit::Array or a pending (lazy) cudakit::Expr. Operators build pending
// results, so `a*b + x*y` becomes one fused kernel when it is first read.
// Results equal those of eager evaluation because every write into an
// allocation first evaluates the pending results that read it
// (prepare_write) and every read of a pending result evaluates it (value).
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/error.hpp"
#include "cudakit/stream.hpp"

namespace cudakit::python {

namespace nb = nanobind;

class GPUArrayObject {
 public:
  GPUArrayObject() = default;
  explicit GPUArrayObject(Array array) : array_(std::move(array)) {}
  // A pending result reading the allocations in `reads` (evaluated at once
  // when the tree has grown past the fusion limit).
  GPUArrayObject(Expr expr, std::vector<const void*> reads, std::size_t nodes);
  GPUArrayObject(GPUArrayObject&& other) noexcept;
  GPUArrayObject& operator=(GPUArrayObject&& other) noexcept;
  GPUArrayObject(const GPUArrayObject&) = delete;
  GPUArrayObject& operator=(const GPUArrayObject&) = delete;
  ~GPUArrayObject();

  bool is_pending() const noexcept { return pending_.has_value(); }
  // The array, evaluating the pending expression first (one kernel).
  const Array& value();
  // The value as an operand of a new expression (no evaluation); a
  // TypeError for an array of records (no arithmetic is defined on them).
  Expr expr() const;
  DType dtype() const noexcept { return pending_ ? pending_->dtype() : array_.dtype(); }
  const Shape& shape() const noexcept { return pending_ ? pending_->shape() : array_.shape(); }
  // Allocations the value depends on (its own when materialised).
  std::vector<const void*> reads() const;
  std::size_t nodes() const noexcept { return pending_ ? nodes_ : 1; }

  // PyCUDA's `base`: the object that owns borrowed memory (or None).
  nb::object base;
  // PyCUDA's `allocator`: the callable the memory came from (None: cudakit's
  // pool); the *_like functions use it for their results too.
  nb::object allocator;
  // For an array of a numpy structured dtype (gpuarray.vec.float3, a
  // registered struct, a record): that dtype. The Array then holds the
  // records' bytes as unsigned words with one more, last, axis (the words of
  // one record); cudakit/_records.py gives it the records' shape and dtype.
  // Invalid (or None) for every other array.
  nb::object records;
  bool holds_records() const noexcept { return records.is_valid() && !records.is_none(); }

 private:
  void unregister() noexcept;
  friend void evaluate_pending_reading(const void* storage);
  friend void evaluate_all_pending();

  Array array_;
  std::optional<Expr> pending_;
  std::vector<const void*> reads_;
  std::size_t nodes_ = 1;
  std::size_t slot_ = static_cast<std::size_t>(-1);  // index in the pending registry
};

// Evaluates every pending result that reads `storage` (an ArrayStorage*).
void evaluate_pending_reading(const void* storage);
// Call before anything writes into `array`'s allocation.
inline void prepare_write(const Array& array) {
  if (array.valid()) evaluate_pending_reading(array.storage().get());
}
// Evaluates every pending result (streams and events call it, so that work
// timed between two events is queued between them).
void evaluate_all_pending();
// How many pending results exist (for tests).
std::size_t pending_count() noexcept;

// ---- the hook for kernel launches -------------------------------------------
// When `object` is a GPUArray: evaluates it if pending, evaluates the pending
// results that read its allocation (the kernel may write it), stores its
// device address in `address` and returns true. False for other objects.
bool gpuarray_launch_argument(nb::handle object, std::uint64_t& address);
// The same, also giving the element type (for the launch's pointee check).
bool gpuarray_launch_argument(nb::handle object, std::uint64_t& address, DType& dtype);

// ---- conversions shared by the array bindings --------------------------------
// numpy dtype (or anything numpy.dtype() takes) -> DType; TypeError otherwise.
DType dtype_from_python(nb::handle dtype);
// The numpy dtype object of a DType (bfloat16 through ml_dtypes when installed).
nb::object numpy_dtype(DType dtype);
Shape shape_from_python(nb::handle shape);
nb::tuple shape_to_python(const Shape& shape);
// A Python / numpy number as an expression operand: Python numbers are weak
// (NEP 50), numpy scalars keep their dtype. nullopt for anything else.
std::optional<Scalar> scalar_from_python(nb::handle value);
// A GPUArray, a number, or (when allow_host) a numpy array copied to the device.
std::optional<Expr> operand_from_python(nb::handle value, std::vector<const void*>* reads,
                                        std::size_t* nodes, bool allow_host);
// None -> nullopt; a cudakit Stream, an object with an integer `handle`, or an int handle.
std::optional<Stream> stream_from_python(nb::handle stream);
// The GPUArray behind `object`; a TypeError for anything else and for an
// array of records (the array operations are defined on numbers only).
GPUArrayObject& as_gpuarray(nb::handle object);
// The TypeError for an operation on an array of records, naming the dtype.
[[noreturn]] void refuse_records(const GPUArrayObject& object);
bool is_gpuarray(nb::handle object) noexcept;
nb::object wrap(Array array, nb::object base = nb::none());
nb::object wrap_pending(Expr expr, std::vector<const void*> reads, std::size_t nodes);

// cudakit errors from array operations as NumPy raises them: a shape or
// argument problem is a ValueError, a dtype problem a TypeError.
[[noreturn]] void raise_numpy_style(const cudakit::Error& error);
template <class F>
auto numpy_errors(F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const cudakit::ArgumentError& e) {
    raise_numpy_style(e);
  } catch (const cudakit::NotSupported& e) {
    raise_numpy_style(e);
  }
}

// The parts of the module, each in its own file.
void bind_gpuarray_class(nb::module_& m);
void bind_gpuarray_operators(nb::class_<GPUArrayObject>& cls);
void bind_array_functions(nb::module_& m);
void bind_array_interop(nb::module_& m, nb::class_<GPUArrayObject>& cls);
void bind_array_kernels(nb::module_& m);
void bind_array_random(nb::module_& m);
void bind_array_records(nb::module_& m);

}  // namespace cudakit::python
