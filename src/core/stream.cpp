#include "cudakit/stream.hpp"

#include <utility>

#include "backend/backend.hpp"
#include "cudakit/event.hpp"
#include "cudakit/memory_pool.hpp"

namespace cudakit {

Stream::State::~State() {
  if (!owned || !native) return;
  // The pool's free lists must not outlive the stream (see MemoryPool).
  MemoryPool::of(device).forget_stream(native);
  detail::backend_of(device).destroy_stream(native);
}

Stream::Stream() : Stream(Device::current().default_stream()) {}

Stream::Stream(Device device, std::shared_ptr<State> state)
    : device_(std::move(device)), state_(std::move(state)) {}

Stream Stream::wrap(const Device& device, void* native_stream) {
  return Stream(device, std::make_shared<State>(State{device, native_stream, false}));
}

void Stream::synchronize() const { detail::backend_of(device_).synchronize_stream(native()); }

bool Stream::query() const { return detail::backend_of(device_).query_stream(native()); }

void Stream::wait(const Event& event) const {
  detail::backend_of(device_).stream_wait_event(native(), event.native());
}

Event Stream::record() const {
  Event event(device_);
  event.record(*this);
  return event;
}

}  // namespace cudakit
