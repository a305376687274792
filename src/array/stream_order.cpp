// Cross-stream ordering for array operations. The event used to order a
// launch after stream S is one cached per S: a stream wait takes the event's
// state when it is queued, so re-recording the event for the next launch
// cannot affect a wait already queued, and every recording of a cached event
// is on the same stream, so a later recording completes only after an
// earlier one. The cache holds a copy of each Stream it has an event for:
// a destroyed stream's handle may be reused by a new stream, which must not
// inherit the old stream's event.
#include "array/stream_order.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/detail/expr_node.hpp"
#include "cudakit/memory_pool.hpp"

namespace cudakit::detail {
namespace {

constexpr std::size_t cached_streams = 16;

class StreamEvents {
 public:
  // Queues on `launch` a wait for the work queued so far on `producer`.
  void order(const Stream& launch, const Stream& producer) {
    Backend& backend = detail::backend_of(launch.device());
    // The legacy default stream is the current context's.
    backend.make_current(launch.device().ordinal());
    std::optional<Entry> evicted;  // destroyed after the lock
    {
      std::lock_guard lock(mutex_);
      Entry* entry = find(producer);
      if (!entry) {
        void* event = backend.create_event(producer.device().ordinal(), false);
        if (entries_.size() < cached_streams) {
          entries_.push_back({producer, event});
          entry = &entries_.back();
        } else {
          // Round robin: a program with more streams than this in use at
          // once pays an event creation now and then, nothing worse.
          Entry& victim = entries_[next_victim_++ % cached_streams];
          evicted.emplace(std::move(victim));
          victim = Entry{producer, event};
          entry = &victim;
        }
      }
      // Recorded and waited on under the lock, so an eviction never destroys
      // an event between the two.
      backend.record_event(entry->event, producer.native());
      backend.stream_wait_event(launch.native(), entry->event);
    }
    if (evicted) detail::backend_of(evicted->stream.device()).destroy_event(evicted->event);
  }

 private:
  struct Entry {
    Stream stream;
    void* event;
  };
  Entry* find(const Stream& s) {
    for (Entry& e : entries_)
      if (e.stream.native() == s.native() && e.stream.device() == s.device()) return &e;
    return nullptr;
  }
  std::mutex mutex_;
  std::vector<Entry> entries_;
  std::size_t next_victim_ = 0;
};

StreamEvents& stream_events() {
  // Never destroyed: arrays freed during static destruction may still order.
  static auto* events = new StreamEvents;
  return *events;
}

// The streams one launch has already been ordered after. The launch stream
// is given, or is an output array's, made into a Stream only when needed.
class Ordering {
 public:
  explicit Ordering(const Stream& launch)
      : launch_(&launch), native_(launch.native()), device_(launch.device()) {}
  explicit Ordering(const Array& out)
      : out_(&out), native_(out.stream_ref().native), device_(out.device()) {}

  void add(const Array& a) {
    if (!a.valid()) return;
    const ArrayStorage& storage = *a.storage();
    // The pool gives the memory back to the stream it was allocated for
    // without waiting; this launch's use must hold it back until done.
    if (storage.pooled && storage.alloc_stream != native_ && storage.device == device_)
      MemoryPool::of(storage.device).record_stream(storage.address, launch());
    void* native = a.stream_ref().native;
    if (native == native_ || !(storage.device == device_)) return;
    for (std::size_t i = 0; i < count_; ++i)
      if (done_[i] == native) return;
    stream_events().order(launch(), a.stream());
    if (count_ < std::size(done_)) done_[count_++] = native;
  }

  void add_leaves(const ExprNode& node) {
    if (node.kind == NodeKind::array) add(node.array);
    for (const auto& child : node.children) add_leaves(*child);
  }

 private:
  const Stream& launch() {
    if (!launch_) launch_ = &made_.emplace(out_->stream());
    return *launch_;
  }

  const Stream* launch_ = nullptr;
  const Array* out_ = nullptr;
  std::optional<Stream> made_;
  void* native_;
  const Device& device_;
  void* done_[8] = {};
  std::size_t count_ = 0;
};

}  // namespace

void order_after_operands(const Stream& launch_stream, std::span<const Array* const> operands,
                          const Array* out) {
  Ordering ordering(launch_stream);
  for (const Array* a : operands)
    if (a) ordering.add(*a);
  if (out) ordering.add(*out);
}

void order_after_operands(const Stream& launch_stream, const Expr& expr, const Array* out) {
  Ordering ordering(launch_stream);
  if (expr.node()) ordering.add_leaves(*expr.node());
  if (out) ordering.add(*out);
}

void order_after_operands(const Array& out, std::span<const Array* const> inputs) {
  if (!out.valid()) return;
  Ordering ordering(out);
  for (const Array* a : inputs)
    if (a) ordering.add(*a);
  ordering.add(out);
}

void order_after_operands(const Array& out, const Expr& expr) {
  if (!out.valid()) return;
  Ordering ordering(out);
  if (expr.node()) ordering.add_leaves(*expr.node());
  ordering.add(out);
}

}  // namespace cudakit::detail
