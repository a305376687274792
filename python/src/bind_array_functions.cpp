// Module functions of cudakit.gpuarray and cudakit.cumath: creation,
// transfers, selection, reductions, joining, and the math functions (each a
// pending fused expression, like the operators).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>

#include "array_object.hpp"
#include "array_streams.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_indexing.hpp"
#include "cudakit/array_join.hpp"
#include "cudakit/array_linalg.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

nb::object numpy() {
  // Kept for the process: no Python object may be released after finalisation.
  static nb::handle np = nb::module_::import_("numpy").release();
  return nb::borrow(np);
}

Expr operand(nb::handle value, std::vector<const void*>& reads, std::size_t& nodes,
             const char* what) {
  std::optional<Expr> e = operand_from_python(value, &reads, &nodes, true);
  if (!e)
    throw nb::type_error((std::string(what) + ": expected a GPUArray or a number, got " +
                          std::string(nb::type_name(value.type()).c_str()))
                             .c_str());
  return *e;
}

// The first operand of a reduction given stream=: reductions run on their
// first array's stream, so that array is viewed on `stream` (a pending value
// is evaluated there). Without a stream, the operand as it is.
Expr reduction_operand(nb::handle value, std::vector<const void*>& reads, std::size_t& nodes,
                       const std::optional<Stream>& stream, const char* what) {
  if (stream && is_gpuarray(value)) {
    GPUArrayObject& object = as_gpuarray(value);
    for (const void* s : object.reads()) reads.push_back(s);
    nodes += 1;
    return Expr(value_on_stream(object, *stream));
  }
  return operand(value, reads, nodes, what);
}

nb::object host_to_gpu(nb::handle ary, nb::handle stream, bool async) {
  nb::object host = numpy().attr("asarray")(ary);
  // A Fortran-ordered array keeps its layout (and strides), as in PyCUDA: its
  // transpose is C-ordered; upload that and transpose back on the device.
  const bool fortran = nb::cast<bool>(host.attr("flags").attr("f_contiguous")) &&
                       !nb::cast<bool>(host.attr("flags").attr("c_contiguous"));
  if (fortran) {
    nb::object device = host_to_gpu(host.attr("T"), stream, async);
    return wrap(as_gpuarray(device).value().transpose());
  }
  host = numpy().attr("asarray")(host, nb::arg("order") = "C");
  const DType d = dtype_from_python(host.attr("dtype"));
  const Shape shape = shape_from_python(host.attr("shape"));
  Py_buffer view{};
  if (PyObject_GetBuffer(host.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  struct Release {
    Py_buffer* v;
    ~Release() { PyBuffer_Release(v); }
  } release{&view};
  std::optional<Stream> s = stream_from_python(stream);
  Array a = numpy_errors([&] { return s ? empty(shape, d, *s) : empty(shape, d); });
  numpy_errors([&] {
    if (async)
      a.copy_from_host_async(view.buf, static_cast<std::size_t>(view.len));
    else
      a.copy_from_host(view.buf, static_cast<std::size_t>(view.len));
  });
  return wrap(std::move(a));
}

template <typename Reduce>
Array reduce_with(Reduce reduce, nb::handle a, nb::handle dtype, nb::handle axis, bool keepdims,
                  const std::optional<Stream>& stream) {
  std::vector<const void*> reads;
  std::size_t nodes = 0;
  Expr e = reduction_operand(a, reads, nodes, stream, "reduction");
  if (dtype.is_valid() && !dtype.is_none()) e = e.astype(dtype_from_python(dtype));
  Axes axes;
  if (axis.is_valid() && !axis.is_none()) {
    if (PyLong_Check(axis.ptr())) {
      axes = Axes(int_argument<int>(axis, "reduction", "axis"));
    } else {
      std::vector<int> list;
      for (nb::handle x : nb::iter(axis)) list.push_back(int_argument<int>(x, "reduction", "axis"));
      axes = Axes(list);
    }
  }
  return numpy_errors([&] { return reduce(e, axes, keepdims); });
}

template <Array (*reduce)(const Expr&, Axes, bool)>
void def_reduction(nb::module_& m, const char* name) {
  m.def(
      name,
      [](nb::handle a, nb::handle dtype, nb::handle stream, nb::handle axis, bool keepdims) {
        return wrap(reduce_with(reduce, a, dtype, axis, keepdims, stream_from_python(stream)));
      },
      nb::arg("a").none(), nb::arg("dtype").none() = nb::none(),
      nb::arg("stream").none() = nb::none(), nb::arg("axis").none() = nb::none(),
      nb::arg("keepdims") = false);
}

// var and std: numpy's ddof (subtracted from the count in the divisor).
template <Array (*spread)(const Expr&, Axes, bool, int)>
void def_spread(nb::module_& m, const char* name) {
  m.def(
      name,
      [](nb::handle a, nb::handle dtype, nb::handle stream, nb::handle axis, bool keepdims,
         int ddof) {
        auto reduce = [ddof](const Expr& e, Axes axes, bool keep) {
          return spread(e, std::move(axes), keep, ddof);
        };
        return wrap(reduce_with(reduce, a, dtype, axis, keepdims, stream_from_python(stream)));
      },
      nb::arg("a").none(), nb::arg("dtype").none() = nb::none(),
      nb::arg("stream").none() = nb::none(), nb::arg("axis").none() = nb::none(),
      nb::arg("keepdims") = false, nb::arg("ddof") = 0);
}

std::vector<Array> arrays_of(nb::handle sequence) {
  std::vector<Array> out;
  for (nb::handle h : nb::iter(sequence)) out.push_back(as_gpuarray(h).value());
  return out;
}

// PyCUDA's cumath takes `stream_or_out` as the second positional argument:
// a GPUArray there is the output.
void split_stream_or_out(nb::handle& stream, nb::handle& out) {
  if (is_gpuarray(stream)) {
    if (out.is_valid() && !out.is_none())
      throw nb::type_error("a GPUArray was given as the stream and out= was given too");
    out = stream;
    stream = nb::none();
  }
}

using UnaryFn = Expr (*)(const Expr&);
using BinaryFn = Expr (*)(const Expr&, const Expr&);

template <UnaryFn fn>
void def_unary(nb::module_& m, const char* name) {
  m.def(
      name,
      [](nb::handle a, nb::handle stream, nb::handle out) {
        split_stream_or_out(stream, out);
        std::vector<const void*> reads;
        std::size_t nodes = 1;
        Expr e = operand(a, reads, nodes, "cumath");
        return numpy_errors([&] {
          return elementwise_result(fn(e), std::move(reads), nodes, out,
                                    stream_from_python(stream));
        });
      },
      nb::arg("a").none(), nb::arg("stream").none() = nb::none(),
      nb::arg("out").none() = nb::none());
}

template <BinaryFn fn>
void def_binary(nb::module_& m, const char* name, const char* first, const char* second) {
  m.def(
      name,
      [](nb::handle a, nb::handle b, nb::handle stream, nb::handle out) {
        split_stream_or_out(stream, out);
        std::vector<const void*> reads;
        std::size_t nodes = 1;
        Expr ea = operand(a, reads, nodes, "cumath");
        Expr eb = operand(b, reads, nodes, "cumath");
        return numpy_errors([&] {
          return elementwise_result(fn(ea, eb), std::move(reads), nodes, out,
                                    stream_from_python(stream));
        });
      },
      nb::arg(first).none(), nb::arg(second).none(), nb::arg("stream").none() = nb::none(),
      nb::arg("out").none() = nb::none());
}

Expr f_maximum(const Expr& a, const Expr& b) { return maximum(a, b); }
Expr f_minimum(const Expr& a, const Expr& b) { return minimum(a, b); }
Expr f_fabs(const Expr& a) { return fabs(a); }
Expr f_ceil(const Expr& a) { return ceil(a); }
Expr f_floor(const Expr& a) { return floor(a); }
Expr f_trunc(const Expr& a) { return trunc(a); }
Expr f_rint(const Expr& a) { return rint(a); }
Expr f_exp(const Expr& a) { return exp(a); }
Expr f_exp2(const Expr& a) { return exp2(a); }
Expr f_expm1(const Expr& a) { return expm1(a); }
Expr f_log(const Expr& a) { return log(a); }
Expr f_log2(const Expr& a) { return log2(a); }
Expr f_log10(const Expr& a) { return log10(a); }
Expr f_log1p(const Expr& a) { return log1p(a); }
Expr f_sqrt(const Expr& a) { return sqrt(a); }
Expr f_cbrt(const Expr& a) { return cbrt(a); }
Expr f_sin(const Expr& a) { return sin(a); }
Expr f_cos(const Expr& a) { return cos(a); }
Expr f_tan(const Expr& a) { return tan(a); }
Expr f_asin(const Expr& a) { return arcsin(a); }
Expr f_acos(const Expr& a) { return arccos(a); }
Expr f_atan(const Expr& a) { return arctan(a); }
Expr f_sinh(const Expr& a) { return sinh(a); }
Expr f_cosh(const Expr& a) { return cosh(a); }
Expr f_tanh(const Expr& a) { return tanh(a); }
Expr f_asinh(const Expr& a) { return arcsinh(a); }
Expr f_acosh(const Expr& a) { return arccosh(a); }
Expr f_atanh(const Expr& a) { return arctanh(a); }
Expr f_abs(const Expr& a) { return abs(a); }
Expr f_sign(const Expr& a) { return sign(a); }
Expr f_isnan(const Expr& a) { return isnan(a); }
Expr f_isinf(const Expr& a) { return isinf(a); }
Expr f_isfinite(const Expr& a) { return isfinite(a); }
Expr f_conj(const Expr& a) { return conj(a); }
Expr f_real(const Expr& a) { return real(a); }
Expr f_imag(const Expr& a) { return imag(a); }
Expr f_fmod(const Expr& a, const Expr& b) { return fmod(a, b); }
Expr f_ldexp(const Expr& a, const Expr& b) { return ldexp(a, b); }
Expr f_atan2(const Expr& a, const Expr& b) { return arctan2(a, b); }
Expr f_hypot(const Expr& a, const Expr& b) { return hypot(a, b); }
Expr f_copysign(const Expr& a, const Expr& b) { return copysign(a, b); }
Expr f_fmin(const Expr& a, const Expr& b) { return fmin(a, b); }
Expr f_fmax(const Expr& a, const Expr& b) { return fmax(a, b); }
Expr f_logical_and(const Expr& a, const Expr& b) { return logical_and(a, b); }
Expr f_logical_or(const Expr& a, const Expr& b) { return logical_or(a, b); }
Expr f_logical_xor(const Expr& a, const Expr& b) { return logical_xor(a, b); }
Expr f_logical_not(const Expr& a) { return logical_not(a); }

void bind_math(nb::module_& m) {
  def_unary<f_fabs>(m, "fabs");
  def_unary<f_ceil>(m, "ceil");
  def_unary<f_floor>(m, "floor");
  def_unary<f_trunc>(m, "trunc");
  def_unary<f_rint>(m, "rint");
  def_unary<f_exp>(m, "exp");
  def_unary<f_exp2>(m, "exp2");
  def_unary<f_expm1>(m, "expm1");
  def_unary<f_log>(m, "log");
  def_unary<f_log2>(m, "log2");
  def_unary<f_log10>(m, "log10");
  def_unary<f_log1p>(m, "log1p");
  def_unary<f_sqrt>(m, "sqrt");
  def_unary<f_cbrt>(m, "cbrt");
  def_unary<f_sin>(m, "sin");
  def_unary<f_cos>(m, "cos");
  def_unary<f_tan>(m, "tan");
  def_unary<f_asin>(m, "asin");
  def_unary<f_acos>(m, "acos");
  def_unary<f_atan>(m, "atan");
  def_unary<f_sinh>(m, "sinh");
  def_unary<f_cosh>(m, "cosh");
  def_unary<f_tanh>(m, "tanh");
  def_unary<f_asinh>(m, "asinh");
  def_unary<f_acosh>(m, "acosh");
  def_unary<f_atanh>(m, "atanh");
  def_unary<f_abs>(m, "absolute");
  def_unary<f_sign>(m, "sign");
  def_unary<f_isnan>(m, "isnan");
  def_unary<f_isinf>(m, "isinf");
  def_unary<f_isfinite>(m, "isfinite");
  def_unary<f_conj>(m, "conj");
  def_unary<f_real>(m, "real");
  def_unary<f_imag>(m, "imag");
  def_binary<f_fmod>(m, "fmod", "arg", "mod");
  def_binary<f_ldexp>(m, "ldexp", "significand", "exponent");
  def_binary<f_atan2>(m, "atan2", "y", "x");
  def_binary<f_hypot>(m, "hypot", "a", "b");
  def_binary<f_copysign>(m, "copysign", "a", "b");
  def_binary<f_fmin>(m, "fmin", "a", "b");
  def_binary<f_fmax>(m, "fmax", "a", "b");
  def_binary<f_maximum>(m, "maximum", "a", "b");
  def_binary<f_logical_and>(m, "logical_and", "a", "b");
  def_binary<f_logical_or>(m, "logical_or", "a", "b");
  def_binary<f_logical_xor>(m, "logical_xor", "a", "b");
  def_unary<f_logical_not>(m, "logical_not");
  def_binary<f_minimum>(m, "minimum", "a", "b");
  // PyCUDA: frexp -> (significands, exponents), modf -> (fractional, integral).
  m.def(
      "frexp",
      [](nb::handle a, nb::handle stream) {
        std::vector<const void*> reads;
        std::size_t nodes = 1;
        Expr e = operand(a, reads, nodes, "frexp");
        auto [mantissa, exponent] = numpy_errors([&] { return frexp(e); });
        const std::optional<Stream> s = stream_from_python(stream);
        return nb::make_tuple(elementwise_result(mantissa, reads, nodes, nb::none(), s),
                              elementwise_result(exponent, reads, nodes, nb::none(), s));
      },
      nb::arg("arg").none(), nb::arg("stream").none() = nb::none());
  m.def(
      "modf",
      [](nb::handle a, nb::handle stream) {
        std::vector<const void*> reads;
        std::size_t nodes = 1;
        Expr e = operand(a, reads, nodes, "modf");
        auto [fractional, integral] = numpy_errors([&] { return modf(e); });
        const std::optional<Stream> s = stream_from_python(stream);
        return nb::make_tuple(elementwise_result(fractional, reads, nodes, nb::none(), s),
                              elementwise_result(integral, reads, nodes, nb::none(), s));
      },
      nb::arg("arg").none(), nb::arg("stream").none() = nb::none());
}

// An axis= argument: None, or an integer in int's range (TypeError /
// ArgumentError naming the call otherwise).
std::optional<int> optional_axis(nb::handle axis, const char* use) {
  if (axis.is_none()) return std::nullopt;
  return int_argument<int>(axis, use, "axis");
}

}  // namespace

Array take_indices(const Array& a, nb::handle indices, std::optional<int> axis) {
  if (indices.is_none())
    throw nb::type_error("take: indices must be an array of integers, got None");
  Array idx;
  if (is_gpuarray(indices)) {
    idx = as_gpuarray(indices).value();
  } else {
    nb::object host = numpy().attr("asarray")(indices);
    nb::object gpu = host_to_gpu(host, nb::none(), false);
    idx = as_gpuarray(gpu).value();
  }
  return numpy_errors([&] { return take(a, idx, axis); });
}

void bind_array_functions(nb::module_& m) {
  m.def(
      "to_gpu",
      [](nb::handle ary, nb::handle allocator, nb::handle stream) {
        (void)allocator;
        return host_to_gpu(ary, stream, false);
      },
      nb::arg("ary").none(), nb::arg("allocator").none() = nb::none(),
      nb::arg("stream").none() = nb::none());
  m.def(
      "to_gpu_async",
      [](nb::handle ary, nb::handle allocator, nb::handle stream) {
        (void)allocator;
        return host_to_gpu(ary, stream, true);
      },
      nb::arg("ary").none(), nb::arg("allocator").none() = nb::none(),
      nb::arg("stream").none() = nb::none());
  m.def(
      "_full",
      [](nb::handle shape, nb::handle dtype, nb::handle value, const std::string& order) {
        const Shape s = shape_from_python(shape);
        const DType d = dtype_from_python(dtype);
        Array a = numpy_errors([&] { return empty(s, d, order == "F" ? Order::F : Order::C); });
        if (!value.is_none()) {
          std::optional<Scalar> v = scalar_from_python(value);
          if (!v) throw nb::type_error("fill value must be a number");
          numpy_errors([&] { a.fill(*v); });
        }
        return wrap(std::move(a));
      },
      nb::arg("shape").none(), nb::arg("dtype").none(), nb::arg("value").none(),
      nb::arg("order") = "C");
  m.def(
      "arange",
      [](nb::handle start, nb::handle stop, nb::handle step, nb::handle dtype) {
        // NumPy's signature: arange(stop) or arange(start, stop, step).
        if (start.is_none())
          throw nb::type_error(
              "arange: stop is required: arange(stop) or arange(start, stop[, step])");
        nb::object lo = nb::borrow(start), hi = nb::borrow(stop);
        if (hi.is_none()) {
          hi = lo;
          lo = nb::int_(0);
        }
        nb::object st = step.is_none() ? nb::object(nb::int_(1)) : nb::borrow(step);
        if (PyObject_IsTrue(st.ptr()) == 0)
          throw nb::value_error("arange: the step must not be zero");
        PyErr_Clear();
        // numpy.arange makes the values, so they are NumPy's exactly: the
        // length from the bounds, the first two values converted to the
        // dtype (OverflowError when they do not fit), the others start + k *
        // delta in the dtype (integers wrap: arange(300, dtype=uint8) ends
        // 0..43). They are then copied to the device.
        nb::object arange = numpy().attr("arange");
        if (dtype.is_none()) return host_to_gpu(arange(lo, hi, st), nb::none(), false);
        const DType d = dtype_from_python(dtype);
        if (d == DType::bfloat16) {
          // (No NumPy dtype without ml_dtypes: float32 values, converted on the device.)
          nb::object values = arange(lo, hi, st, nb::arg("dtype") = "float32");
          return wrap(as_gpuarray(host_to_gpu(values, nb::none(), false)).value().astype(d));
        }
        return host_to_gpu(arange(lo, hi, st, nb::arg("dtype") = numpy_dtype(d)), nb::none(),
                           false);
      },
      nb::arg("start").none(), nb::arg("stop").none() = nb::none(),
      nb::arg("step").none() = nb::none(), nb::arg("dtype").none() = nb::none());
  m.def(
      "take",
      [](nb::handle a, nb::handle indices, nb::handle out, nb::handle stream,
         nb::handle axis_object) -> nb::object {
        const std::optional<int> axis = optional_axis(axis_object, "take");
        // take runs on the stream of the array it gathers from.
        const std::optional<Stream> s = stream_from_python(stream);
        GPUArrayObject& source = as_gpuarray(a);
        Array r = take_indices(s ? value_on_stream(source, *s) : source.value(), indices, axis);
        if (!out.is_none()) {
          Array target = as_gpuarray(out).value();
          if (s) target = on_stream(target, *s);
          prepare_write(target);
          numpy_errors([&] { target.assign(r); });
          return nb::borrow(out);
        }
        return wrap(std::move(r));
      },
      nb::arg("a").none(), nb::arg("indices").none(), nb::arg("out").none() = nb::none(),
      nb::arg("stream").none() = nb::none(), nb::arg("axis").none() = nb::none());
  m.def(
      "where",
      [](nb::handle condition, nb::handle a, nb::handle b, nb::handle out, nb::handle stream) {
        std::vector<const void*> reads;
        std::size_t nodes = 1;
        Expr c = operand(condition, reads, nodes, "where");
        Expr x = operand(a, reads, nodes, "where");
        Expr y = operand(b, reads, nodes, "where");
        return numpy_errors([&] {
          return elementwise_result(where(c, x, y), std::move(reads), nodes, out,
                                    stream_from_python(stream));
        });
      },
      nb::arg("condition").none(), nb::arg("x").none(), nb::arg("y").none(),
      nb::arg("out").none() = nb::none(), nb::arg("stream").none() = nb::none());
  m.def(
      "if_positive",
      [](nb::handle criterion, nb::handle then_, nb::handle else_, nb::handle out,
         nb::handle stream) {
        std::vector<const void*> reads;
        std::size_t nodes = 2;
        Expr c = operand(criterion, reads, nodes, "if_positive");
        Expr x = operand(then_, reads, nodes, "if_positive");
        Expr y = operand(else_, reads, nodes, "if_positive");
        if (c.shape() != x.shape() || c.shape() != y.shape())
          throw nb::value_error("if_positive: criterion, then_ and else_ must have the same shape");
        return numpy_errors([&] {
          return elementwise_result(where(c > Expr(0), x, y), std::move(reads), nodes, out,
                                    stream_from_python(stream));
        });
      },
      nb::arg("criterion").none(), nb::arg("then_").none(), nb::arg("else_").none(),
      nb::arg("out").none() = nb::none(), nb::arg("stream").none() = nb::none());
  def_reduction<cudakit::sum>(m, "sum");
  def_reduction<cudakit::prod>(m, "prod");
  def_reduction<cudakit::max>(m, "max");
  def_reduction<cudakit::min>(m, "min");
  def_reduction<cudakit::mean>(m, "mean");
  def_reduction<cudakit::any>(m, "any");
  def_reduction<cudakit::all>(m, "all");
  def_spread<cudakit::var>(m, "_var");
  def_spread<cudakit::std>(m, "_std");
  m.def(
      "_matmul",
      [](nb::handle a, nb::handle b) {
        return wrap(numpy_errors(
            [&] { return cudakit::matmul(as_gpuarray(a).value(), as_gpuarray(b).value()); }));
      },
      nb::arg("a").none(), nb::arg("b").none(),
      "NumPy's matmul of 1-D to 3-D GPUArrays (cuBLAS or the generated tiled kernel).");
  m.def(
      "dot",
      [](nb::handle a, nb::handle b, nb::handle dtype, nb::handle stream) {
        std::vector<const void*> reads;
        std::size_t nodes = 0;
        Expr x = reduction_operand(a, reads, nodes, stream_from_python(stream), "dot");
        Expr y = operand(b, reads, nodes, "dot");
        if (shape_size(x.shape()) != shape_size(y.shape()))
          throw nb::value_error("dot: the arrays have different sizes");
        if (!dtype.is_none()) {
          const DType d = dtype_from_python(dtype);
          x = x.astype(d);
          y = y.astype(d);
        }
        // PyCUDA's dot is the sum of the elementwise product over all elements.
        return wrap(numpy_errors([&] {
          return x.ndim() == 1 && y.ndim() == 1 ? cudakit::dot(x, y) : cudakit::sum(x * y);
        }));
      },
      nb::arg("a").none(), nb::arg("b").none(), nb::arg("dtype").none() = nb::none(),
      nb::arg("stream").none() = nb::none());
  m.def(
      "vdot",
      [](nb::handle a, nb::handle b, nb::handle dtype, nb::handle stream) {
        std::vector<const void*> reads;
        std::size_t nodes = 0;
        Expr x = reduction_operand(a, reads, nodes, stream_from_python(stream), "vdot");
        Expr y = operand(b, reads, nodes, "vdot");
        if (!dtype.is_none()) {
          const DType d = dtype_from_python(dtype);
          x = x.astype(d);
          y = y.astype(d);
        }
        return wrap(numpy_errors([&] { return cudakit::vdot(x, y); }));
      },
      nb::arg("a").none(), nb::arg("b").none(), nb::arg("dtype").none() = nb::none(),
      nb::arg("stream").none() = nb::none());
  m.def(
      "subset_dot",
      [](nb::handle subset, nb::handle a, nb::handle b, nb::handle dtype, nb::handle stream) {
        const std::optional<Stream> s = stream_from_python(stream);
        GPUArrayObject& source = as_gpuarray(a);
        Array x =
            take_indices(s ? value_on_stream(source, *s) : source.value(), subset, std::nullopt);
        Array y = take_indices(as_gpuarray(b).value(), subset, std::nullopt);
        Expr ex(x), ey(y);
        if (!dtype.is_none()) {
          const DType d = dtype_from_python(dtype);
          ex = ex.astype(d);
          ey = ey.astype(d);
        }
        return wrap(numpy_errors([&] { return cudakit::dot(ex, ey); }));
      },
      nb::arg("subset").none(), nb::arg("a").none(), nb::arg("b").none(),
      nb::arg("dtype").none() = nb::none(), nb::arg("stream").none() = nb::none());
  m.def(
      "cumsum",
      [](nb::handle a, nb::handle axis_object) {
        const std::optional<int> axis = optional_axis(axis_object, "cumsum");
        std::vector<const void*> reads;
        std::size_t nodes = 0;
        Expr e = operand(a, reads, nodes, "cumsum");
        return wrap(numpy_errors([&] { return cudakit::cumsum(e, axis); }));
      },
      nb::arg("a").none(), nb::arg("axis").none() = nb::none());
  m.def(
      "concatenate",
      [](nb::handle arrays, nb::handle axis_object) {
        const int axis = int_argument<int>(axis_object, "concatenate", "axis");
        std::vector<Array> list = arrays_of(arrays);
        return wrap(numpy_errors([&] { return concatenate(list, axis); }));
      },
      nb::arg("arrays").none(), nb::arg("axis").none() = 0);
  m.def(
      "stack",
      [](nb::handle arrays, nb::handle axis_object) {
        const int axis = int_argument<int>(axis_object, "stack", "axis");
        std::vector<Array> list = arrays_of(arrays);
        return wrap(numpy_errors([&] { return stack(list, axis); }));
      },
      nb::arg("arrays").none(), nb::arg("axis").none() = 0);
  m.def("evaluate_all_pending", &evaluate_all_pending,
        "Evaluates every pending GPUArray expression (streams, events and synchronize call it "
        "so that work timed between two events is queued between them).");
  m.def("pending_count", &pending_count, "How many GPUArray results are unevaluated expressions.");
  m.def(
      "prepare_launch_argument",
      [](nb::handle object) -> std::optional<std::uint64_t> {
        std::uint64_t address = 0;
        if (gpuarray_launch_argument(object, address)) return address;
        return std::nullopt;
      },
      nb::arg("object"),
      "For a GPUArray passed to a kernel: evaluates it if pending and the pending results "
      "that read its memory (the kernel may write it); returns its device address. None for "
      "other objects.");

  m.def("_array_kernel_launches", &detail::array_kernel_launches,
        "Array kernels launched so far in this process (for tests of fusion).");
  m.def(
      "_c_type_name",
      [](nb::handle dtype) { return std::string(c_type_name(dtype_from_python(dtype))); },
      nb::arg("dtype"), "The C type cudakit's generated kernels use for a dtype.");

  nb::module_ cumath = m.def_submodule("cumath", "PyCUDA's cumath: fused elementwise math");
  bind_math(cumath);
}

}  // namespace cudakit::python
