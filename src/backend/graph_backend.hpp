// The graph part of the backend seam: host functions on a stream, stream
// capture into a graph, instantiation, replay and update. A backend that has
// graphs implements this interface besides Backend (both the CPU and the CUDA
// backend do); the core finds it with graph_backend_of(). Kept out of
// backend.hpp so that the core's many users of Backend do not depend on it.
#pragma once

#include <cstddef>

#include "backend/backend.hpp"
#include "cudakit/capture_mode.hpp"

namespace cudakit::detail {

using NativeGraph = void*;      // CUgraph, or the CPU backend's recorded sequence
using NativeGraphExec = void*;  // CUgraphExec, or the CPU backend's replayable sequence
using HostFunction = void (*)(void* user_data);  // CUhostFn

class GraphBackend {
 public:
  virtual ~GraphBackend() = default;

  // Queues `function(user_data)` on `stream`: it runs on a host thread once
  // the work before it has completed, and the work after it waits for it. It
  // must not call into the backend (cuLaunchHostFunc's rule).
  virtual void launch_host_function(NativeStream stream, HostFunction function,
                                    void* user_data) = 0;
  // From begin_capture until end_capture, work queued on `stream` is recorded
  // into a graph instead of being run. The core refuses the legacy default
  // stream, and the calls that would wait for the capturing stream, before
  // they get here.
  virtual void begin_capture(NativeStream stream, CaptureMode mode) = 0;
  // The recorded graph; the capture is over whether or not this throws.
  virtual NativeGraph end_capture(NativeStream stream) = 0;
  virtual bool is_capturing(NativeStream stream) = 0;
  virtual std::size_t graph_node_count(NativeGraph graph) = 0;
  virtual NativeGraphExec instantiate_graph(NativeGraph graph) = 0;
  // Prepares the executable graph's resources ahead of its first launch
  // (cuGraphUpload); nothing to do on backends without a device.
  virtual void upload_graph(NativeGraphExec exec, NativeStream stream) = 0;
  // Runs the recorded work, in its order, on `stream`.
  virtual void launch_graph(NativeGraphExec exec, NativeStream stream) = 0;
  // Gives `exec` the parameters of `graph` when both have the same shape (the
  // same operations, in the same order, on the same kernels); false, with
  // `exec` unchanged, when they differ and a new instantiation is needed.
  virtual bool update_graph_exec(NativeGraphExec exec, NativeGraph graph) = 0;
  // An event recorded on a capturing stream: recorded again at each replay
  // of the graph (an external event record node), so that waiting on it or
  // querying it after a replay means what it means for direct work.
  virtual void record_event_in_capture(NativeEvent event, NativeStream stream) = 0;
  // Whether `address` is host memory the backend neither allocated nor
  // registered (pageable): a graph cannot copy to or from it, since the
  // memory may be gone by the time a replay runs.
  virtual bool is_pageable_host(const void* address) = 0;
  virtual void destroy_graph(NativeGraph graph) noexcept = 0;
  virtual void destroy_graph_exec(NativeGraphExec exec) noexcept = 0;
};

// The graph interface of `backend`; NotSupported when it has none.
inline GraphBackend& graph_backend_of(Backend& backend) {
  if (auto* graphs = dynamic_cast<GraphBackend*>(&backend)) return *graphs;
  throw NotSupported("using CUDA graphs", "this backend has no graphs");
}

}  // namespace cudakit::detail
