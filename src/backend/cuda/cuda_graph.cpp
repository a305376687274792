// Graphs on the CUDA backend: stream capture, instantiation, replay and
// update through the driver's graph API (cuStreamBeginCapture_v2,
// cuGraphInstantiateWithFlags, cuGraphLaunch, cuGraphExecUpdate_v2, ...),
// and host functions (cuLaunchHostFunc). The entry points are optional in
// the driver table: a driver without them gets NotSupported naming the call.
#include <cuda.h>

#include <cstdint>
#include <string>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {
namespace {

#define CUDAKIT_GRAPH_ENTRY(name, doing)            \
  require_driver_entry(driver().name, #name, doing, \
                       "update the NVIDIA driver (graphs need CUDA 12 or newer)")

CUstream as_stream(NativeStream stream) { return static_cast<CUstream>(stream); }

}  // namespace

void CudaBackend::launch_host_function(NativeStream stream, HostFunction function,
                                       void* user_data) {
  const char* doing = "queueing a host function on a stream";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuLaunchHostFunc, doing);
  ensure_context();
  CUresult result = entry(as_stream(stream), function, user_data);
  if (result != CUDA_SUCCESS) fail(result, doing, stream, true);
}

void CudaBackend::begin_capture(NativeStream stream, CaptureMode mode) {
  const char* doing = "beginning a stream capture";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuStreamBeginCapture, doing);
  ensure_context();
  // CaptureMode has CUstreamCaptureMode's values.
  CUresult result = entry(as_stream(stream), static_cast<CUstreamCaptureMode>(mode));
  if (result != CUDA_SUCCESS) fail(result, doing, stream, true);
}

NativeGraph CudaBackend::end_capture(NativeStream stream) {
  const char* doing = "ending a stream capture";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuStreamEndCapture, doing);
  ensure_context();
  CUgraph graph = nullptr;
  CUresult result = entry(as_stream(stream), &graph);
  if (result != CUDA_SUCCESS) fail(result, doing, stream, true);
  return graph;
}

bool CudaBackend::is_capturing(NativeStream stream) {
  const char* doing = "asking whether a stream is capturing";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuStreamIsCapturing, doing);
  ensure_context();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult result = entry(as_stream(stream), &status);
  if (result != CUDA_SUCCESS) fail(result, doing, stream, true);
  return status == CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

std::size_t CudaBackend::graph_node_count(NativeGraph graph) {
  const char* doing = "counting a graph's nodes";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuGraphGetNodes, doing);
  std::size_t count = 0;
  CUresult result = entry(static_cast<CUgraph>(graph), nullptr, &count);
  if (result != CUDA_SUCCESS) fail(result, doing, nullptr, false);
  return count;
}

NativeGraphExec CudaBackend::instantiate_graph(NativeGraph graph) {
  const char* doing = "instantiating a graph";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuGraphInstantiateWithFlags, doing);
  ensure_context();
  CUgraphExec exec = nullptr;
  CUresult result = entry(&exec, static_cast<CUgraph>(graph), 0);
  if (result != CUDA_SUCCESS) fail(result, doing, nullptr, false);
  return exec;
}

void CudaBackend::upload_graph(NativeGraphExec exec, NativeStream stream) {
  const char* doing = "uploading a graph";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuGraphUpload, doing);
  CUresult result = entry(static_cast<CUgraphExec>(exec), as_stream(stream));
  if (result != CUDA_SUCCESS) fail(result, doing, stream, true);
}

void CudaBackend::launch_graph(NativeGraphExec exec, NativeStream stream) {
  const char* doing = "launching a graph";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuGraphLaunch, doing);
  CUresult result = entry(static_cast<CUgraphExec>(exec), as_stream(stream));
  if (result != CUDA_SUCCESS) fail(result, doing, stream, true);
}

bool CudaBackend::update_graph_exec(NativeGraphExec exec, NativeGraph graph) {
  const char* doing = "updating an executable graph";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuGraphExecUpdate, doing);
  CUgraphExecUpdateResultInfo info{};
  CUresult result = entry(static_cast<CUgraphExec>(exec), static_cast<CUgraph>(graph), &info);
  if (result == CUDA_SUCCESS) return true;
  // The graphs differ in shape: the executable graph is left as it was.
  if (result == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) return false;
  fail(result, doing, nullptr, false);
}

void CudaBackend::record_event_in_capture(NativeEvent event, NativeStream stream) {
  const char* doing = "recording an event on a capturing stream";
  auto entry = CUDAKIT_GRAPH_ENTRY(cuEventRecordWithFlags, doing);
  ensure_context();
  // An external record node: the event is recorded at each replay and can be
  // waited for and queried afterwards (a plain record inside a capture only
  // orders captured work and cannot be queried).
  CUresult result = entry(static_cast<CUevent>(event), as_stream(stream), CU_EVENT_RECORD_EXTERNAL);
  if (result != CUDA_SUCCESS) fail(result, doing, stream, true);
}

bool CudaBackend::is_pageable_host(const void* address) {
  auto entry = driver().cuPointerGetAttributes;
  if (!entry) return false;  // the driver decides what it can capture
  ensure_context();
  unsigned memory_type = 0;
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  void* value = &memory_type;
  // Unregistered host memory has no memory type (0), or is refused.
  CUresult result = entry(1, &attribute, &value,
                          static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(address)));
  return result != CUDA_SUCCESS || memory_type == 0;
}

void CudaBackend::destroy_graph(NativeGraph graph) noexcept {
  if (driver_ && driver_->cuGraphDestroy)
    (void)driver_->cuGraphDestroy(static_cast<CUgraph>(graph));
}

void CudaBackend::destroy_graph_exec(NativeGraphExec exec) noexcept {
  if (driver_ && driver_->cuGraphExecDestroy)
    (void)driver_->cuGraphExecDestroy(static_cast<CUgraphExec>(exec));
}

}  // namespace cudakit::detail
