// Events mark points in a stream: to wait on, to order streams, and to time
// device work (elapsed_ms).
#pragma once

#include <memory>

#include "cudakit/device.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

class Event {
 public:
  // A timing event on the current device.
  Event();
  explicit Event(const Device& device, bool timing = true);

  const Device& device() const noexcept { return device_; }
  void* native() const noexcept { return state_->native; }

  void record(const Stream& stream) const;
  void record() const;  // on the default stream
  void synchronize() const;
  bool query() const;
  // Milliseconds between `start` and this event, both recorded and complete.
  float elapsed_ms_since(const Event& start) const;

 private:
  struct State {
    Device device;
    void* native = nullptr;
    ~State();
  };
  Device device_;
  std::shared_ptr<State> state_;
};

// Milliseconds between two completed events.
float elapsed_ms(const Event& start, const Event& stop);

}  // namespace cudakit
