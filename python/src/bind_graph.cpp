// CUDA graphs for Python: Stream.begin_capture / end_capture / is_capturing
// (added to the driver's Stream), Graph and GraphExec over the core's
// include/cudakit/graph.hpp. cudakit.graphs builds its `capture` block and
// `graphed` on these.
#include <nanobind/stl/string.h>

#include <string>

#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/graph.hpp"
#include "cudakit/stream.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

CaptureMode capture_mode(nb::handle mode) {
  const char* doing = "Stream.begin_capture";
  if (nb::isinstance<nb::str>(mode)) {
    const std::string name = nb::cast<std::string>(mode);
    if (name == "global") return CaptureMode::global;
    if (name == "thread_local") return CaptureMode::thread_local_;
    if (name == "relaxed") return CaptureMode::relaxed;
    throw ArgumentError(doing, "mode '" + name + "' is not 'global', 'thread_local' or 'relaxed'");
  }
  const auto value = unsigned_argument(mode, doing, "mode", 2,
                                       "pass 'global' (0), 'thread_local' (1) or 'relaxed' (2)");
  return static_cast<CaptureMode>(value);
}

// The stream a replay runs on: a driver Stream, or None for the default stream.
Stream stream_or_default(nb::handle stream) {
  if (stream.is_none()) return Device::current().default_stream();
  if (nb::isinstance<Stream>(stream)) return nb::cast<Stream>(stream);
  throw ArgumentError("replaying a graph",
                      "stream must be a cudakit.driver.Stream or None (the default stream), not " +
                          nb::cast<std::string>(nb::str(stream.type())));
}

}  // namespace

void bind_graph(nb::module_& m) {
  nb::class_<Graph>(m, "Graph", "Work recorded by a stream capture (CUgraph).")
      .def_prop_ro("node_count", &Graph::node_count,
                   "Operations recorded: kernels, copies, fills, events, host functions.")
      .def("instantiate", &Graph::instantiate,
           "The replayable form of the graph (cuGraphInstantiate).");

  nb::class_<GraphExec>(m, "GraphExec", "An instantiated graph (CUgraphExec).")
      .def(
          "launch",
          [](const GraphExec& g, nb::handle stream) { g.launch(stream_or_default(stream)); },
          nb::arg("stream").none() = nb::none(),
          "Queues the recorded work, in its order, on `stream` (None: the default stream).")
      .def(
          "upload",
          [](const GraphExec& g, nb::handle stream) { g.upload(stream_or_default(stream)); },
          nb::arg("stream").none() = nb::none(),
          "Prepares the device for the first launch (cuGraphUpload).")
      .def("update", &GraphExec::update, nb::arg("graph"),
           "Takes `graph`'s parameters when it has the same operations in the same order; "
           "returns False, leaving this one unchanged, when it does not.");

  // PyCUDA has no graphs; these follow CuPy's Stream.begin_capture / end_capture.
  nb::object stream_class = nb::borrow(nb::type<Stream>());
  stream_class.attr("begin_capture") = nb::cpp_function(
      [](const Stream& s, nb::handle mode) { begin_capture(s, capture_mode(mode)); },
      nb::is_method(), nb::arg("mode") = "global",
      "Records the work queued on this stream from now on into a graph, without running it. "
      "mode: 'global' (default), 'thread_local' or 'relaxed'.");
  stream_class.attr("end_capture") =
      nb::cpp_function([](const Stream& s) -> Graph { return end_capture(s); }, nb::is_method(),
                       "Ends the capture; returns the recorded Graph.");
  stream_class.attr("is_capturing") =
      nb::cpp_function([](const Stream& s) -> bool { return is_capturing(s); }, nb::is_method(),
                       "True between begin_capture() and end_capture().");
}

}  // namespace cudakit::python
