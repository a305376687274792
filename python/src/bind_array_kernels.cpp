// PyCUDA's generated kernels over cudakit's generators: ElementwiseKernel,
// ReductionKernel, InclusiveScanKernel / ExclusiveScanKernel. The Python
// classes in cudakit.elementwise / .reduction / .scan hold these and keep
// PyCUDA's signatures.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arg_convert.hpp"
#include "arg_records.hpp"
#include "array_object.hpp"
#include "array_streams.hpp"
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "cudakit/scan_kernel.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// nvcc-style options as PyCUDA passes them (a list of strings).
CompileOptions options_from_python(nb::handle options) {
  CompileOptions out;
  if (options.is_none()) return out;
  for (nb::handle h : nb::iter(options)) {
    const std::string o = nb::cast<std::string>(h);
    if (o == "--use_fast_math" || o == "-use_fast_math") {
      out.fast_math = true;
    } else if (o.rfind("-D", 0) == 0) {
      const std::string def = o.substr(2);
      const auto eq = def.find('=');
      out.defines.emplace_back(def.substr(0, eq),
                               eq == std::string::npos ? "" : def.substr(eq + 1));
    } else if (o.rfind("-I", 0) == 0) {
      out.include_dirs.push_back(o.substr(2));
    } else if (o == "-G") {
      out.debug = true;
    } else if (o == "-lineinfo" || o == "--generate-line-info") {
      out.line_info = true;
    } else {
      out.extra_flags.push_back(o);
    }
  }
  return out;
}

// The arguments of a generated kernel: GPUArrays (evaluated, and what reads
// them evaluated, since the kernel may write them) and numbers.
// With a stream, the first array is viewed on it (a reduction runs on its
// first array's stream, after the work queued on the others').
// Records (gpuarray.vec.make_float3(...)) are structs by value, checked
// against the declared type of the parameter at their position (`params`:
// ElementwiseKernel's or ReductionKernel's, each with a name and a type).
template <class Params>
std::vector<KernelValue> kernel_values(nb::handle args, const Params& params,
                                       const std::string& context,
                                       const std::optional<Stream>& stream = std::nullopt) {
  std::vector<KernelValue> out;
  bool first_array = true;
  for (nb::handle h : nb::iter(args)) {
    const std::size_t k = out.size();
    if (k < params.size())
      if (auto record = struct_argument(h.ptr(), context, k, params[k].name, params[k].type)) {
        out.emplace_back(std::move(*record));
        continue;
      }
    std::uint64_t address = 0;
    if (gpuarray_launch_argument(h, address)) {
      const Array& a = as_gpuarray(h).value();
      if (stream && first_array)
        out.emplace_back(on_stream(a, *stream));
      else
        out.emplace_back(a);
      first_array = false;
    } else if (auto s = number_argument(h.ptr())) {
      out.emplace_back(*s);
    } else {
      std::string why = context + ": kernel argument " + std::to_string(k) +
                        ": expected a GPUArray or a number, got " +
                        std::string(nb::type_name(h.type()).c_str());
      if (k < params.size()) {
        why += " (parameter '" + params[k].name + "', " + params[k].type + ")";
        // A tuple for a struct: PyCUDA refuses it too (it has no C layout).
        if (PyTuple_Check(h.ptr()))
          why += "; a struct by value is a numpy record, a tuple has no C layout: " +
                 record_hint(params[k].type);
      }
      throw nb::type_error(why.c_str());
    }
  }
  return out;
}

// PyCUDA's range=: a slice(start, stop[, step]) or a Python range, with
// explicit indices (step None is 1, as in PyCUDA); slice= is the one for
// Python's slice rules (None, negative indices).
ElementwiseKernel::Range range_from_python(nb::handle range, const std::string& use) {
  const std::string what = use + " range=";
  if (!nb::hasattr(range, "start") || !nb::hasattr(range, "stop") || !nb::hasattr(range, "step"))
    throw nb::type_error((what + " must be a slice(start, stop[, step]) or a range, got " +
                          std::string(nb::type_name(range.type()).c_str()))
                             .c_str());
  const nb::object start = range.attr("start"), stop = range.attr("stop"),
                   step = range.attr("step");
  if (start.is_none() || stop.is_none())
    throw ArgumentError(
        what, "start and stop are required (got " + nb::cast<std::string>(nb::repr(range)) + ")",
        "write range=slice(start, stop[, step]) with both ends, or use slice= "
        "for Python's slice rules (None and negative indices)");
  ElementwiseKernel::Range r;
  r.start = signed_argument(start, what.c_str(), "start");
  r.stop = signed_argument(stop, what.c_str(), "stop");
  r.step = step.is_none() ? 1 : signed_argument(step, what.c_str(), "step");
  return r;
}

}  // namespace

void bind_array_kernels(nb::module_& m) {
  nb::class_<ElementwiseKernel>(m, "_ElementwiseKernel")
      .def(
          "__init__",
          [](ElementwiseKernel* self, std::string arguments, std::string operation,
             std::string name, std::string preamble, nb::handle options, std::string loop_prep,
             std::string after_loop) {
            numpy_errors([&] {
              new (self) ElementwiseKernel(
                  std::move(arguments), std::move(operation), std::move(name), std::move(preamble),
                  options_from_python(options), std::move(loop_prep), std::move(after_loop));
            });
          },
          nb::arg("arguments"), nb::arg("operation"), nb::arg("name") = "elementwise_kernel",
          nb::arg("preamble") = "", nb::arg("options").none() = nb::none(),
          nb::arg("loop_prep") = "", nb::arg("after_loop") = "")
      .def(
          "__call__",
          [](const ElementwiseKernel& k, nb::handle args, nb::handle range, nb::handle slice,
             nb::handle stream) {
            const std::string use = "ElementwiseKernel " + k.name();
            std::vector<KernelValue> values = kernel_values(args, k.params(), use);
            std::optional<Stream> s = stream_from_python(stream);
            if (!range.is_none()) {
              const ElementwiseKernel::Range r = range_from_python(range, use);
              numpy_errors([&] { k.run(values, r, s ? &*s : nullptr); });
            } else if (!slice.is_none()) {
              if (!PySlice_Check(slice.ptr()))
                throw nb::type_error((use +
                                      ": slice= must be a slice (slice(start, stop, "
                                      "step)), got " +
                                      std::string(nb::type_name(slice.type()).c_str()))
                                         .c_str());
              const std::string what = use + " slice=";
              auto bound = [&](const char* attribute) -> std::optional<std::int64_t> {
                nb::object v = slice.attr(attribute);
                if (v.is_none()) return std::nullopt;
                return signed_argument(v, what.c_str(), attribute);
              };
              const std::optional<std::int64_t> step = bound("step");
              if (step && *step == 0)
                throw ArgumentError(what, "step must not be zero", "slice(start, stop, 1)");
              Slice sl(bound("start"), bound("stop"), step.value_or(1));
              numpy_errors([&] {
                if (s) {
                  // Python's slice.indices against the first array's size, then a range.
                  const Array* first = nullptr;
                  for (const auto& v : values)
                    if ((first = std::get_if<Array>(&v)) != nullptr) break;
                  if (!first) throw cudakit::ArgumentError(use, "slice= needs an array argument");
                  nb::tuple ix = nb::borrow<nb::tuple>(slice.attr("indices")(first->size()));
                  ElementwiseKernel::Range r;
                  r.start = nb::cast<std::int64_t>(ix[0]);
                  r.stop = nb::cast<std::int64_t>(ix[1]);
                  r.step = nb::cast<std::int64_t>(ix[2]);
                  k.run(values, r, &*s);
                } else {
                  k(values, sl);
                }
              });
            } else {
              numpy_errors([&] { k.run(values, std::nullopt, s ? &*s : nullptr); });
            }
          },
          nb::arg("args"), nb::arg("range").none() = nb::none(),
          nb::arg("slice").none() = nb::none(), nb::arg("stream").none() = nb::none())
      .def_prop_ro("name", &ElementwiseKernel::name)
      .def("source", &ElementwiseKernel::source, nb::arg("index64") = false);

  nb::class_<ReductionKernel>(m, "_ReductionKernel")
      .def(
          "__init__",
          [](ReductionKernel* self, nb::handle dtype_out, std::string neutral,
             std::string reduce_expr, std::string map_expr, std::string arguments, std::string name,
             std::string preamble) {
            const DType d = dtype_from_python(dtype_out);
            numpy_errors([&] {
              new (self) ReductionKernel(d, std::move(neutral), std::move(reduce_expr),
                                         std::move(map_expr), std::move(arguments), std::move(name),
                                         std::move(preamble));
            });
          },
          nb::arg("dtype_out"), nb::arg("neutral"), nb::arg("reduce_expr"), nb::arg("map_expr"),
          nb::arg("arguments"), nb::arg("name") = "reduce_kernel", nb::arg("preamble") = "")
      .def(
          "__call__",
          [](const ReductionKernel& k, nb::handle args, nb::handle stream) {
            std::vector<KernelValue> values =
                kernel_values(args, k.params(), "ReductionKernel", stream_from_python(stream));
            return wrap(numpy_errors([&] { return k(values); }));
          },
          nb::arg("args"), nb::arg("stream").none() = nb::none())
      .def("source", &ReductionKernel::source);

  nb::class_<ScanKernel>(m, "_ScanKernel")
      .def(
          "__init__",
          [](ScanKernel* self, nb::handle dtype, std::string scan_expr,
             std::optional<std::string> neutral, std::string name, std::string preamble,
             bool exclusive) {
            const DType d = dtype_from_python(dtype);
            numpy_errors([&] {
              if (exclusive) {
                if (!neutral)
                  throw cudakit::ArgumentError("ExclusiveScanKernel",
                                               "the neutral element is required");
                new (self) ExclusiveScanKernel(d, std::move(scan_expr), std::move(*neutral),
                                               std::move(name), std::move(preamble));
              } else {
                new (self) InclusiveScanKernel(d, std::move(scan_expr), std::move(neutral),
                                               std::move(name), std::move(preamble));
              }
            });
          },
          nb::arg("dtype"), nb::arg("scan_expr"), nb::arg("neutral").none() = nb::none(),
          nb::arg("name") = "scan", nb::arg("preamble") = "", nb::arg("exclusive") = false)
      .def(
          "__call__",
          [](const ScanKernel& k, nb::handle input, nb::handle output, nb::handle stream) {
            Array in = as_gpuarray(input).value();
            nb::handle target = output.is_none() ? input : output;
            Array out = as_gpuarray(target).value();
            // The scan runs on its output's stream.
            if (auto s = stream_from_python(stream)) out = on_stream(out, *s);
            prepare_write(out);
            numpy_errors([&] { k(in, out); });
            return nb::borrow(target);
          },
          nb::arg("input"), nb::arg("output").none() = nb::none(),
          nb::arg("stream").none() = nb::none());
}

}  // namespace cudakit::python
