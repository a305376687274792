// Streams order work on a device. A Stream is a shared handle: copies refer
// to the same stream, the last one destroys it (unless it wraps a stream
// owned elsewhere, e.g. a PyTorch or CuPy stream).
#pragma once

#include <memory>

#include "cudakit/capture_mode.hpp"
#include "cudakit/device.hpp"

namespace cudakit {

class Event;
class Graph;  // cudakit/graph.hpp

// A non-owning view of a stream, as the launch path takes it (no reference
// counting). Null means the device's default stream.
struct StreamRef {
  void* native = nullptr;
};

class Stream {
 public:
  // The current device's default stream.
  Stream();
  // Wraps a native stream (CUstream) that someone else owns; never destroyed by cudakit.
  static Stream wrap(const Device& device, void* native_stream);

  const Device& device() const noexcept { return device_; }
  void* native() const noexcept { return state_ ? state_->native : nullptr; }
  bool is_default() const noexcept { return native() == nullptr; }
  operator StreamRef() const noexcept { return StreamRef{native()}; }

  void synchronize() const;
  // true when all work queued so far has completed.
  bool query() const;
  // Work queued later on this stream waits for `event`.
  void wait(const Event& event) const;
  // Records a new event on this stream and returns it.
  Event record() const;

  // Stream capture (cudakit/graph.hpp: Graph, GraphExec): from
  // begin_capture until end_capture, work queued on this stream is recorded
  // into a graph instead of being run. The same as cudakit::begin_capture,
  // end_capture and is_capturing of this stream.
  void begin_capture(CaptureMode mode = CaptureMode::global) const;
  Graph end_capture() const;
  bool is_capturing() const;

 private:
  friend class Device;
  struct State {
    Device device;
    void* native = nullptr;
    bool owned = false;
    ~State();
  };
  Stream(Device device, std::shared_ptr<State> state);
  Device device_;
  std::shared_ptr<State> state_;
};

}  // namespace cudakit
