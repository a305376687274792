#include "cudakit/event.hpp"

#include <utility>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

Event::State::~State() {
  if (native) detail::backend_of(device).destroy_event(native);
}

Event::Event() : Event(Device::current()) {}

Event::Event(const Device& device, bool timing)
    : device_(device), state_(std::make_shared<State>(State{device, nullptr})) {
  // Filled in place: a temporary State holding the event would destroy it.
  state_->native = detail::backend_of(device).create_event(device.ordinal(), timing);
}

void Event::record(const Stream& stream) const {
  detail::backend_of(device_).record_event(state_->native, stream.native());
}

void Event::record() const { detail::backend_of(device_).record_event(state_->native, nullptr); }

void Event::synchronize() const { detail::backend_of(device_).synchronize_event(state_->native); }

bool Event::query() const { return detail::backend_of(device_).query_event(state_->native); }

float Event::elapsed_ms_since(const Event& start) const { return elapsed_ms(start, *this); }

float elapsed_ms(const Event& start, const Event& stop) {
  if (!(start.device() == stop.device()))
    throw ArgumentError("measuring elapsed time", "the events belong to different devices (" +
                                                      start.device().describe() + " and " +
                                                      stop.device().describe() + ")");
  return detail::backend_of(start.device()).elapsed_ms(start.native(), stop.native());
}

}  // namespace cudakit
