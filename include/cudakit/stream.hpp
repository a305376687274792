// Streams order work on a device. A Stream is a shared handle: copies refer
// to the same stream, the last one destroys it (unless it wraps a stream
// owned elsewhere, e.g. a PyTorch or CuPy stream).
#pragma once

#include <memory>

#include "cudakit/device.hpp"

namespace cudakit {

class Event;

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
