// cudakit.profiler's native half: ProfileSession and its report (rows per
// kernel), and benchmark() over the C++ cudakit::benchmark, which times a
// Python callable with events the way cupyx.profiler.benchmark does. The
// Python module (cudakit/profiler.py) adds the context manager and numpy.
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "bindings.hpp"
#include "cudakit/profiler.hpp"
#include "cudakit/stream.hpp"

namespace cudakit::python {
namespace {

std::tuple<unsigned, unsigned, unsigned> as_tuple(const Dim3& d) { return {d.x, d.y, d.z}; }

}  // namespace

void bind_profiler(nb::module_& m) {
  nb::class_<ProfileRow>(m, "ProfileRow", "The launches of one kernel (or array operation).")
      .def_ro("name", &ProfileRow::name)
      .def_ro("calls", &ProfileRow::calls)
      .def_ro("total_ms", &ProfileRow::total_ms)
      .def_ro("mean_ms", &ProfileRow::mean_ms)
      .def_ro("min_ms", &ProfileRow::min_ms)
      .def_ro("max_ms", &ProfileRow::max_ms)
      .def_prop_ro("grid", [](const ProfileRow& r) { return as_tuple(r.grid); })
      .def_prop_ro("block", [](const ProfileRow& r) { return as_tuple(r.block); })
      .def_ro("shapes_vary", &ProfileRow::shapes_vary)
      .def_ro("bytes_moved", &ProfileRow::bytes_moved)
      .def_prop_ro("gb_per_s",
                   [](const ProfileRow& r) -> nb::object {
                     if (r.gb_per_s > 0) return nb::float_(r.gb_per_s);
                     return nb::none();
                   })
      .def("__repr__", [](const ProfileRow& r) {
        return "ProfileRow(name='" + r.name + "', calls=" + std::to_string(r.calls) +
               ", total_ms=" + std::to_string(r.total_ms) + ")";
      });

  nb::class_<ProfileReport>(m, "_ProfileReport")
      .def_ro("rows", &ProfileReport::rows)
      .def_prop_ro("launch_count", [](const ProfileReport& r) { return r.launches.size(); })
      .def("table", &ProfileReport::to_string)
      .def("write_chrome_trace", &ProfileReport::write_chrome_trace, nb::arg("path"));

  nb::class_<ProfileSession>(m, "_ProfileSession")
      .def(nb::init<>())
      .def("stop", &ProfileSession::stop);

  nb::class_<BenchmarkResult>(m, "_BenchmarkResult")
      .def_ro("name", &BenchmarkResult::name)
      .def_ro("cpu_ms", &BenchmarkResult::cpu_ms)
      .def_ro("gpu_ms", &BenchmarkResult::gpu_ms)
      .def("to_string", &BenchmarkResult::to_string);

  m.def(
      "_benchmark",
      [](const std::function<void()>& work, int n_repeat, int n_warmup, double max_duration,
         const std::string& name, const Stream* stream) {
        BenchmarkOptions options;
        options.n_repeat = n_repeat;
        options.n_warmup = n_warmup;
        options.max_duration_s = max_duration;
        options.name = name;
        return stream ? benchmark(work, options, *stream) : benchmark(work, options);
      },
      nb::arg("work"), nb::arg("n_repeat"), nb::arg("n_warmup"), nb::arg("max_duration"),
      nb::arg("name"), nb::arg("stream").none());
}

}  // namespace cudakit::python
