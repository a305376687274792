// cudakit.curandom: cudakit's Philox4x32-10 generator (the same numbers on the
// GPU and on the CPU backend for a seed), behind PyCUDA's rand() and a
// generator class with gen_uniform / gen_normal / fill_uniform / fill_normal.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "array_object.hpp"
#include "cudakit/array_random.hpp"

namespace cudakit::python {
namespace {

Array drawn(Generator& g, const std::string& kind, const Shape& shape, DType dtype) {
  return numpy_errors([&] {
    if (kind == "uniform") return g.random(shape, dtype);
    return g.standard_normal(shape, dtype);
  });
}

// fill_*: the draw written into an existing array (evaluating what reads it first).
void fill_into(Generator& g, const std::string& kind, nb::handle target_handle) {
  Array target = as_gpuarray(target_handle).value();
  Array values = drawn(g, kind, target.shape(), target.dtype());
  prepare_write(target);
  numpy_errors([&] { target.assign(values); });
}

}  // namespace

void bind_array_random(nb::module_& m) {
  nb::class_<Generator>(m, "PhiloxGenerator",
                        "Philox4x32-10: element e of a draw depends only on (seed, offset, e).")
      .def(nb::init<std::uint64_t>(), nb::arg("seed") = 0)
      .def_prop_ro("seed", &Generator::seed)
      .def_prop_rw("offset", &Generator::offset, &Generator::set_offset)
      .def(
          "gen_uniform",
          [](Generator& g, nb::handle shape, nb::handle dtype, nb::handle stream) {
            (void)stream;
            return wrap(drawn(g, "uniform", shape_from_python(shape), dtype_from_python(dtype)));
          },
          nb::arg("shape"), nb::arg("dtype"), nb::arg("stream").none() = nb::none())
      .def(
          "gen_normal",
          [](Generator& g, nb::handle shape, nb::handle dtype, nb::handle stream) {
            (void)stream;
            return wrap(drawn(g, "normal", shape_from_python(shape), dtype_from_python(dtype)));
          },
          nb::arg("shape"), nb::arg("dtype"), nb::arg("stream").none() = nb::none())
      .def(
          "gen_log_normal",
          [](Generator& g, nb::handle shape, nb::handle dtype, double mean, double sigma,
             nb::handle stream) {
            (void)stream;
            const Shape s = shape_from_python(shape);
            const DType d = dtype_from_python(dtype);
            return wrap(numpy_errors([&] { return g.lognormal(mean, sigma, s, d); }));
          },
          nb::arg("shape"), nb::arg("dtype"), nb::arg("mean") = 0.0, nb::arg("sigma") = 1.0,
          nb::arg("stream").none() = nb::none())
      .def(
          "gen_integers",
          [](Generator& g, std::int64_t low, std::int64_t high, nb::handle shape,
             nb::handle dtype) {
            const Shape s = shape_from_python(shape);
            const DType d = dtype_from_python(dtype);
            return wrap(numpy_errors([&] { return g.integers(low, high, s, d); }));
          },
          nb::arg("low"), nb::arg("high"), nb::arg("shape"), nb::arg("dtype") = "int64")
      .def(
          "fill_uniform",
          [](Generator& g, nb::handle data, nb::handle stream) {
            (void)stream;
            fill_into(g, "uniform", data);
          },
          nb::arg("data"), nb::arg("stream").none() = nb::none())
      .def(
          "fill_normal",
          [](Generator& g, nb::handle data, nb::handle stream) {
            (void)stream;
            fill_into(g, "normal", data);
          },
          nb::arg("data"), nb::arg("stream").none() = nb::none());
  m.def("_seed", &cudakit::seed, nb::arg("seed"));
  m.def(
      "_default_generator", []() -> Generator& { return default_generator(); },
      nb::rv_policy::reference);
}

}  // namespace cudakit::python
