// CUDA graphs by stream capture: the work queued on a stream between
// Stream::begin_capture() and Stream::end_capture() is recorded, not run,
// into a Graph; Graph::instantiate() makes a GraphExec that replays the
// whole sequence with one launch, for a fraction of the cost of launching
// each operation again (the launch checks ran once, at capture time). Both
// backends capture: the CPU backend records its queued operations and
// replays them in order.
//
//   auto stream = device.create_stream();
//   stream.begin_capture();  // or cudakit::begin_capture(stream)
//   for (int i = 0; i < 1000; ++i) step.launch(config, x, n);  // config.stream = stream
//   cudakit::GraphExec exec = stream.end_capture().instantiate();
//   exec.launch(stream);  // the 1000 launches, again
//
// While a capture is open, work the capturing thread sends to the legacy
// default stream goes to the capturing stream; calls that would wait for
// the capturing stream (synchronizing, synchronous copies, reading results)
// are refused with CudaError (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) and the
// capture stays open. Memory freed during the capture is kept by the graph;
// memory the graph uses that is freed after the capture makes its replay fail
// with ArgumentError instead of writing into memory given to someone else.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "cudakit/capture_mode.hpp"
#include "cudakit/device.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

namespace detail {
class GraphResources;
}

class GraphExec;
class Graph;

// Stream capture: from begin_capture until end_capture, work queued on
// `stream` is recorded into a Graph instead of being run. ArgumentError on
// the legacy default stream and on a stream already capturing.
// (Free functions rather than Stream members so that stream.hpp, which most
// of the library includes, does not depend on graphs.)
void begin_capture(const Stream& stream, CaptureMode mode = CaptureMode::global);
Graph end_capture(const Stream& stream);
bool is_capturing(const Stream& stream);

// Queues `function` on `stream`: it runs on a host thread after the work
// queued before it, and the work after it waits for it; inside a capture it
// is recorded and runs at every replay. It must not use cudakit (the
// driver's rule for host functions); an exception it throws is reported on
// stderr and dropped.
void launch_host_function(const Stream& stream, std::function<void()> function);

// A recorded sequence of operations (CUgraph). A shared handle.
class Graph {
 public:
  Graph() = default;  // empty: no graph
  explicit operator bool() const noexcept { return state_ != nullptr; }
  const Device& device() const;
  // Operations recorded (kernels, copies, fills, events, host functions).
  std::size_t node_count() const;
  // The replayable form (cuGraphInstantiate).
  GraphExec instantiate() const;

 private:
  friend Graph end_capture(const Stream& stream);
  friend class GraphExec;
  struct State;
  explicit Graph(std::shared_ptr<State> state) : state_(std::move(state)) {}
  const State& checked(const char* doing) const;
  std::shared_ptr<State> state_;
};

// An instantiated graph (CUgraphExec). A shared handle; one replay at a time
// runs its operations, in the order they were captured.
class GraphExec {
 public:
  GraphExec() = default;
  explicit operator bool() const noexcept { return state_ != nullptr; }
  const Device& device() const;
  // Queues the whole recorded sequence on `stream`. ArgumentError when
  // memory the graph uses was freed since the capture.
  void launch(const Stream& stream) const;
  // Prepares the device for the first launch (cuGraphUpload), so it is as
  // cheap as the later ones.
  void upload(const Stream& stream) const;
  // Takes the parameters of `graph` (kernel arguments, copy addresses, fill
  // values), captured with the same operations in the same order; false,
  // with this GraphExec unchanged, when the operations differ (instantiate
  // `graph` instead).
  bool update(const Graph& graph);

 private:
  friend class Graph;
  struct State;
  explicit GraphExec(std::shared_ptr<State> state) : state_(std::move(state)) {}
  const State& checked(const char* doing) const;
  std::shared_ptr<State> state_;
};

}  // namespace cudakit
