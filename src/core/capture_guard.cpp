#include "core/capture_guard.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "core/forwarding_backend.hpp"
#include "core/graph_capture.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {

[[noreturn]] void refuse_in_capture(const std::string& doing, const char* why) {
  throw CudaError(doing + " while a stream is being captured into a graph", why,
                  "nothing is run during a capture, so there is nothing to wait for or read "
                  "yet: end the capture first (leave the `with graphs.capture()` block, "
                  "Stream.end_capture()), replay the graph, then synchronize or read the "
                  "results; the capture is still open and unchanged",
                  900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
}

namespace {

std::uint64_t address_of(const void* p) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
}

class CaptureGuardBackend final : public ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;

  void synchronize(int o) override {
    refuse_if_sync_forbidden("synchronizing the device");
    inner().synchronize(o);
  }
  void copy(void* d, const void* s, std::size_t b, NativeStream st, bool a) override {
    if (graph_memory_watched()) [[unlikely]] {
      st = capture_target(this, st);
      OpenCapture capture;
      if (!a) {
        if (find_capture(this, st, capture))
          refuse_in_capture("a synchronous copy on the capturing stream",
                            "a synchronous copy waits for the stream, whose work is only "
                            "recorded, never run, until the graph is replayed");
        refuse_if_sync_forbidden("a synchronous copy (it may synchronize implicitly)");
      } else if (find_capture(this, st, capture)) {
        if (graphs().is_pageable_host(d) || graphs().is_pageable_host(s))
          refuse_in_capture("a copy to or from pageable host memory on the capturing stream",
                            "a graph's copy runs at each replay, when pageable host memory "
                            "(a numpy array, a std::vector) may be gone; reading results "
                            "to the host also waits for work that is only recorded; copy "
                            "from or to page-locked memory (drv.pagelocked_empty, "
                            "PinnedBuffer) inside a capture");
        capture.resources->note_use(address_of(d), b);
        capture.resources->note_use(address_of(s), b);
      }
    }
    inner().copy(d, s, b, st, a);
  }
  void fill(DevicePtr d, std::uint32_t v, unsigned e, std::size_t c, NativeStream s,
            bool a) override {
    if (graph_memory_watched()) [[unlikely]] {
      s = capture_target(this, s);
      OpenCapture capture;
      if (!a) {
        if (find_capture(this, s, capture))
          refuse_in_capture("a synchronous fill on the capturing stream",
                            "a synchronous fill waits for the stream, whose work is only "
                            "recorded, never run, until the graph is replayed");
        refuse_if_sync_forbidden("a synchronous fill (it may synchronize implicitly)");
      } else if (find_capture(this, s, capture)) {
        capture.resources->note_use(d, static_cast<std::size_t>(e) * c);
      }
    }
    inner().fill(d, v, e, c, s, a);
  }
  void synchronize_stream(NativeStream s) override {
    s = capture_target(this, s);
    refuse_if_capturing(s, "synchronizing the capturing stream");
    inner().synchronize_stream(s);
  }
  bool query_stream(NativeStream s) override {
    s = capture_target(this, s);
    refuse_if_capturing(s, "querying the capturing stream");
    return inner().query_stream(s);
  }
  void stream_wait_event(NativeStream s, NativeEvent e) override {
    inner().stream_wait_event(capture_target(this, s), e);
  }
  void record_event(NativeEvent e, NativeStream s) override {
    s = capture_target(this, s);
    if (graph_memory_watched()) [[unlikely]] {
      OpenCapture capture;
      if (find_capture(this, s, capture)) {
        graphs().record_event_in_capture(e, s);
        return;
      }
    }
    inner().record_event(e, s);
  }
  void synchronize_event(NativeEvent e) override {
    refuse_if_sync_forbidden("synchronizing an event");
    inner().synchronize_event(e);
  }
  void launch(NativeKernel k, const char* name, Dim3 grid, Dim3 block, unsigned shared,
              NativeStream stream, void** args) override {
    inner().launch(k, name, grid, block, shared, capture_target(this, stream), args);
  }
  void launch_cooperative(NativeKernel k, const char* name, Dim3 grid, Dim3 block, unsigned shared,
                          NativeStream stream, void** args) override {
    inner().launch_cooperative(k, name, grid, block, shared, capture_target(this, stream), args);
  }
  void launch_host_function(NativeStream s, HostFunction f, void* data) override {
    graphs().launch_host_function(capture_target(this, s), f, data);
  }
  void gemm(int o, NativeStream stream, const GemmRequest& request) override {
    inner().gemm(o, capture_target(this, stream), request);
  }
  void launch_graph(NativeGraphExec e, NativeStream s) override {
    s = capture_target(this, s);
    refuse_if_capturing(s, "replaying a graph on the capturing stream");
    graphs().launch_graph(e, s);
  }

 private:
  void refuse_if_capturing(NativeStream s, const char* doing) {
    OpenCapture capture;
    if (find_capture(this, s, capture))
      refuse_in_capture(doing,
                        "the stream's work is only recorded, never run, until the graph "
                        "is replayed");
  }
  void refuse_if_sync_forbidden(const char* doing) {
    OpenCapture capture;
    if (capture_forbidding_sync(this, capture))
      refuse_in_capture(doing, capture.mode == CaptureMode::global
                                   ? "a capture in the global mode is open (on any thread), and "
                                     "this call may wait for the stream being captured"
                                   : "this thread has a capture open in the thread-local mode, "
                                     "and this call may wait for the stream being captured");
  }
};

}  // namespace

std::unique_ptr<Backend> make_capture_guarded_backend(std::unique_ptr<Backend> inner) {
  return std::make_unique<CaptureGuardBackend>(std::move(inner));
}

}  // namespace cudakit::detail
