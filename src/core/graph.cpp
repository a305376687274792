// Stream capture, Graph and GraphExec over the backend's graph calls, and
// host functions (which a capture may record).
#include "cudakit/graph.hpp"

#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <utility>

#include "backend/backend.hpp"
#include "backend/graph_backend.hpp"
#include "core/graph_capture.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

const char* to_string(CaptureMode mode) noexcept {
  switch (mode) {
    case CaptureMode::global:
      return "global";
    case CaptureMode::thread_local_:
      return "thread_local";
    case CaptureMode::relaxed:
      return "relaxed";
  }
  return "unknown";
}

struct Graph::State {
  explicit State(Device d) : device(std::move(d)) {}
  Device device;
  detail::GraphBackend* backend = nullptr;
  detail::NativeGraph native = nullptr;
  std::shared_ptr<detail::GraphResources> resources;
  ~State() {
    if (native) backend->destroy_graph(native);
  }
};

struct GraphExec::State {
  explicit State(Device d) : device(std::move(d)) {}
  Device device;
  detail::GraphBackend* backend = nullptr;
  detail::NativeGraphExec native = nullptr;
  std::shared_ptr<detail::GraphResources> resources;
  ~State() {
    if (native) backend->destroy_graph_exec(native);
  }
};

namespace {

void run_host_function(const std::function<void()>& function) noexcept {
  try {
    function();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudakit: a host function queued on a stream threw: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cudakit: a host function queued on a stream threw\n");
  }
}

// Run once and freed (a function queued outside a capture).
void call_once_and_free(void* data) {
  auto* function = static_cast<std::function<void()>*>(data);
  run_host_function(*function);
  delete function;
}

// Run at every replay; the graph owns the function.
void call_kept(void* data) { run_host_function(*static_cast<std::function<void()>*>(data)); }

}  // namespace

void launch_host_function(const Stream& stream, std::function<void()> function) {
  if (!function)
    throw ArgumentError("queueing a host function on a stream", "the function is empty");
  detail::Backend& backend = detail::backend_of(stream.device());
  detail::GraphBackend& graphs = detail::graph_backend_of(backend);
  void* target = detail::capture_target(&backend, stream.native());
  detail::OpenCapture capture;
  if (detail::find_capture(&backend, target, capture)) {
    auto kept = std::make_shared<std::function<void()>>(std::move(function));
    graphs.launch_host_function(target, &call_kept, kept.get());
    capture.resources->keep(std::move(kept));
    return;
  }
  auto* owned = new std::function<void()>(std::move(function));
  try {
    graphs.launch_host_function(target, &call_once_and_free, owned);
  } catch (...) {
    delete owned;
    throw;
  }
}

void begin_capture(const Stream& stream, CaptureMode mode) {
  const char* doing = "beginning a stream capture";
  if (mode != CaptureMode::global && mode != CaptureMode::thread_local_ &&
      mode != CaptureMode::relaxed)
    throw ArgumentError(doing, "capture mode " + std::to_string(static_cast<int>(mode)) +
                                   " is not global (0), thread_local (1) or relaxed (2)");
  if (stream.is_default())
    throw ArgumentError(doing,
                        "the legacy default stream cannot be captured: it synchronizes with "
                        "every other stream of the device",
                        "capture on a stream of its own (Device::create_stream(), drv.Stream(), "
                        "cuda.stream()); graphs.capture() makes one when given none");
  detail::Backend& backend = detail::backend_of(stream.device());
  detail::GraphBackend& graphs = detail::graph_backend_of(backend);
  if (is_capturing(stream))
    throw ArgumentError(doing, "the stream is already capturing",
                        "end that capture first (end_capture)");
  detail::OpenCapture capture{&backend,
                              stream.device().ordinal(),
                              stream.native(),
                              mode,
                              std::this_thread::get_id(),
                              std::make_shared<detail::GraphResources>(stream.device())};
  detail::open_capture(capture);
  try {
    graphs.begin_capture(stream.native(), mode);
  } catch (...) {
    detail::close_capture(&backend, stream.native());
    throw;
  }
}

Graph end_capture(const Stream& stream) {
  detail::Backend& backend = detail::backend_of(stream.device());
  detail::GraphBackend& graphs = detail::graph_backend_of(backend);
  std::shared_ptr<detail::GraphResources> resources =
      detail::close_capture(&backend, stream.native());
  if (!resources)
    throw ArgumentError("ending a stream capture", "the stream is not capturing",
                        "begin a capture first (begin_capture)");
  auto state = std::make_shared<Graph::State>(stream.device());
  state->backend = &graphs;
  state->native = graphs.end_capture(stream.native());
  state->resources = std::move(resources);
  detail::watch_graph_resources(state->resources);
  return Graph(std::move(state));
}

bool is_capturing(const Stream& stream) {
  if (stream.is_default()) return false;
  detail::OpenCapture capture;
  return detail::find_capture(&detail::backend_of(stream.device()), stream.native(), capture);
}

const Graph::State& Graph::checked(const char* doing) const {
  if (!state_)
    throw ArgumentError(doing, "the graph is empty (default-constructed or moved from)",
                        "get a graph from Stream::end_capture()");
  return *state_;
}

const Device& Graph::device() const { return checked("asking a graph for its device").device; }

std::size_t Graph::node_count() const {
  const State& s = checked("counting a graph's operations");
  return s.backend->graph_node_count(s.native);
}

GraphExec Graph::instantiate() const {
  const State& s = checked("instantiating a graph");
  auto exec = std::make_shared<GraphExec::State>(s.device);
  exec->backend = s.backend;
  exec->native = s.backend->instantiate_graph(s.native);
  exec->resources = s.resources;
  return GraphExec(std::move(exec));
}

const GraphExec::State& GraphExec::checked(const char* doing) const {
  if (!state_)
    throw ArgumentError(doing, "the executable graph is empty (default-constructed or moved from)",
                        "get one from Graph::instantiate()");
  return *state_;
}

const Device& GraphExec::device() const {
  return checked("asking an executable graph for its device").device;
}

void GraphExec::launch(const Stream& stream) const {
  const State& s = checked("replaying a graph");
  if (s.resources->broken()) [[unlikely]]
    throw ArgumentError("replaying a graph", s.resources->broken_reason(),
                        "the graph would write into memory that may belong to something else "
                        "now; keep every buffer the captured work uses alive while the graph is "
                        "replayed, or capture the work again with the new buffers");
  s.backend->launch_graph(s.native, stream.native());
}

void GraphExec::upload(const Stream& stream) const {
  const State& s = checked("uploading a graph");
  s.backend->upload_graph(s.native, stream.native());
}

bool GraphExec::update(const Graph& graph) {
  const State& s = checked("updating an executable graph");
  const Graph::State& g = graph.checked("updating an executable graph");
  if (g.device != s.device)
    throw ArgumentError("updating an executable graph",
                        "the graph was captured on another device than the executable graph's");
  if (!s.backend->update_graph_exec(s.native, g.native)) return false;
  state_->resources = g.resources;
  return true;
}

void Stream::begin_capture(CaptureMode mode) const { cudakit::begin_capture(*this, mode); }
Graph Stream::end_capture() const { return cudakit::end_capture(*this); }
bool Stream::is_capturing() const { return cudakit::is_capturing(*this); }

}  // namespace cudakit
