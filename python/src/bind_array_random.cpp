// cudakit.curandom: cudakit's Philox4x32-10 generator (the same numbers on the
// GPU and on the CPU backend for a seed), behind PyCUDA's rand() and a
// generator class with gen_uniform / gen_normal / fill_uniform / fill_normal.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "array_object.hpp"
#include "array_streams.hpp"
#include "cudakit/array_random.hpp"
#include "cudakit/quasi_random.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// A draw on `stream` (the generator's own stream when none): the same
// numbers, from a generator at the same seed and offset that draws there.
template <class Draw>
Array draw_on(Generator& g, nb::handle stream, Draw&& draw) {
  const std::optional<Stream> s = stream_from_python(stream);
  if (!s) return numpy_errors([&] { return draw(g); });
  Generator on_s(g.seed(), *s);
  on_s.set_offset(g.offset());
  Array out = numpy_errors([&] { return draw(on_s); });
  g.set_offset(on_s.offset());
  return out;
}

Array drawn(Generator& g, const std::string& kind, const Shape& shape, DType dtype,
            nb::handle stream) {
  return draw_on(g, stream, [&](Generator& gen) {
    if (kind == "uniform") return gen.random(shape, dtype);
    return gen.standard_normal(shape, dtype);
  });
}

// fill_*: the draw written into an existing array (evaluating what reads it
// first), on `stream` when given.
void fill_into(Generator& g, const std::string& kind, nb::handle target_handle, nb::handle stream) {
  Array target = as_gpuarray(target_handle).value();
  if (auto s = stream_from_python(stream)) target = on_stream(target, *s);
  Array values = drawn(g, kind, target.shape(), target.dtype(), stream);
  prepare_write(target);
  numpy_errors([&] { target.assign(values); });
}

}  // namespace

void bind_array_random(nb::module_& m) {
  nb::class_<Generator>(m, "PhiloxGenerator",
                        "Philox4x32-10: element e of a draw depends only on (seed, offset, e).")
      .def(
          "__init__",
          [](Generator* self, nb::handle seed) {
            new (self) Generator(unsigned_argument(seed, "Generator", "seed"));
          },
          nb::arg("seed").none() = 0)
      .def_prop_ro("seed", &Generator::seed)
      .def_prop_rw("offset", &Generator::offset, &Generator::set_offset)
      .def(
          "gen_uniform",
          [](Generator& g, nb::handle shape, nb::handle dtype, nb::handle stream) {
            return wrap(
                drawn(g, "uniform", shape_from_python(shape), dtype_from_python(dtype), stream));
          },
          nb::arg("shape").none(), nb::arg("dtype").none(), nb::arg("stream").none() = nb::none())
      .def(
          "gen_normal",
          [](Generator& g, nb::handle shape, nb::handle dtype, nb::handle stream) {
            return wrap(
                drawn(g, "normal", shape_from_python(shape), dtype_from_python(dtype), stream));
          },
          nb::arg("shape").none(), nb::arg("dtype").none(), nb::arg("stream").none() = nb::none())
      .def(
          "gen_log_normal",
          [](Generator& g, nb::handle shape, nb::handle dtype, double mean, double sigma,
             nb::handle stream) {
            const Shape s = shape_from_python(shape);
            const DType d = dtype_from_python(dtype);
            return wrap(draw_on(g, stream,
                                [&](Generator& gen) { return gen.lognormal(mean, sigma, s, d); }));
          },
          nb::arg("shape").none(), nb::arg("dtype").none(), nb::arg("mean") = 0.0,
          nb::arg("sigma") = 1.0, nb::arg("stream").none() = nb::none())
      .def(
          "gen_integers",
          [](Generator& g, nb::handle low_object, nb::handle high_object, nb::handle shape,
             nb::handle dtype, nb::handle stream) {
            const auto low = int_argument<std::int64_t>(low_object, "integers", "low");
            const auto high = int_argument<std::int64_t>(high_object, "integers", "high");
            const Shape s = shape_from_python(shape);
            const DType d = dtype_from_python(dtype);
            return wrap(
                draw_on(g, stream, [&](Generator& gen) { return gen.integers(low, high, s, d); }));
          },
          nb::arg("low").none(), nb::arg("high").none(), nb::arg("shape"),
          nb::arg("dtype") = "int64", nb::arg("stream").none() = nb::none())
      .def(
          "fill_uniform",
          [](Generator& g, nb::handle data, nb::handle stream) {
            fill_into(g, "uniform", data, stream);
          },
          nb::arg("data").none(), nb::arg("stream").none() = nb::none())
      .def(
          "fill_normal",
          [](Generator& g, nb::handle data, nb::handle stream) {
            fill_into(g, "normal", data, stream);
          },
          nb::arg("data").none(), nb::arg("stream").none() = nb::none());
  m.def(
      "_seed", [](nb::handle seed) { cudakit::seed(unsigned_argument(seed, "seed", "seed")); },
      nb::arg("seed").none());
  m.def(
      "_default_generator", []() -> Generator& { return default_generator(); },
      nb::rv_policy::reference);
  // cuRAND's Sobol tables as bytes (curandom.generate_direction_vectors and
  // generate_scramble_constants* shape them): `table` is directions32,
  // scrambled_directions32, directions64, scrambled_directions64,
  // scramble_constants32 or scramble_constants64.
  m.def(
      "_sobol_table",
      [](const std::string& table, std::size_t dimensions) {
        auto as_bytes = [](const auto& words) {
          return nb::bytes(reinterpret_cast<const char*>(words.data()),
                           words.size() * sizeof(words[0]));
        };
        const auto scrambling =
            table.starts_with("scrambled_") ? SobolScrambling::scrambled : SobolScrambling::none;
        if (table.ends_with("directions32"))
          return as_bytes(sobol_direction_vectors32(dimensions, scrambling));
        if (table.ends_with("directions64"))
          return as_bytes(sobol_direction_vectors64(dimensions, scrambling));
        if (table == "scramble_constants32")
          return as_bytes(sobol_scramble_constants32(dimensions));
        if (table == "scramble_constants64")
          return as_bytes(sobol_scramble_constants64(dimensions));
        throw nb::value_error(("unknown Sobol table " + table).c_str());
      },
      nb::arg("table"), nb::arg("dimensions"));
  m.def("_curand_version", [] { return curand_version(); });
}

}  // namespace cudakit::python
