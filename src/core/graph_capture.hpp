// What the core knows about stream captures and the graphs they made: the
// captures open now (the streams, their modes and threads), and for each
// graph the device memory its operations use and the memory freed while it
// was being captured, which the graph keeps until it goes. The backend guard
// (capture_guard.cpp) asks it which calls to refuse; the memory pool and
// direct buffers tell it about frees, so that a graph whose memory was
// freed is refused at replay instead of writing into memory reused since.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/capture_mode.hpp"
#include "cudakit/device.hpp"

namespace cudakit::detail {

// Memory a graph uses or keeps, and why it may no longer run.
class GraphResources {
 public:
  explicit GraphResources(Device device) : device_(std::move(device)) {}
  // Returns the memory freed during the capture to the pool or the backend.
  ~GraphResources();
  GraphResources(const GraphResources&) = delete;
  GraphResources& operator=(const GraphResources&) = delete;

  const Device& device() const noexcept { return device_; }
  // [address, address + bytes) is read or written by a recorded operation.
  void note_use(std::uint64_t address, std::size_t bytes);
  // Memory the capture freed: kept (the graph's operations use it) and given
  // back when the graph and its executable forms are gone.
  void hold(std::uint64_t address, std::size_t bytes, void* stream, bool pooled);
  // Values the graph's host functions need, kept as long as the graph.
  void keep(std::shared_ptr<void> value);
  // Marks the graph unusable when [address, address + bytes) overlaps memory it uses.
  void check_freed(std::uint64_t address, std::size_t bytes);
  // Empty while the graph may run; otherwise what was freed.
  std::string broken_reason() const;
  bool broken() const noexcept { return broken_.load(std::memory_order_acquire); }
  std::size_t held_count() const;

 private:
  struct Held {
    std::uint64_t address;
    std::size_t bytes;
    void* stream;
    bool pooled;
  };
  Device device_;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> used_;  // [begin, end)
  std::vector<Held> held_;
  std::vector<std::shared_ptr<void>> kept_;
  std::atomic<bool> broken_{false};
  std::string broken_reason_;
};

// One open capture.
struct OpenCapture {
  Backend* backend = nullptr;
  int ordinal = 0;
  NativeStream stream = nullptr;
  CaptureMode mode = CaptureMode::global;
  std::thread::id thread;
  std::shared_ptr<GraphResources> resources;
};

// True while any capture is open or any graph with recorded memory lives:
// the one relaxed load the hot paths pay.
bool graph_memory_watched() noexcept;

// Registers a capture (before the backend starts it) and removes it.
void open_capture(const OpenCapture& capture);
std::shared_ptr<GraphResources> close_capture(Backend* backend, NativeStream stream) noexcept;
// The open capture on `stream`, if any (a copy: captures change under a lock).
bool find_capture(Backend* backend, NativeStream stream, OpenCapture& out);
// The capture this thread opened most recently on `backend`, if any.
bool this_thread_capture(Backend* backend, OpenCapture& out);
// The open capture whose mode forbids an implicitly synchronizing call made
// on this thread (global: any thread's; thread_local: this thread's), if any.
bool capture_forbidding_sync(Backend* backend, OpenCapture& out);
// The stream work for the legacy default stream goes to on this thread:
// the stream this thread is capturing on `backend`, else `stream` itself.
NativeStream capture_target(Backend* backend, NativeStream stream) noexcept;

// Records that the capture on `stream` (if any) uses [address, address + bytes).
void note_capture_use(Backend* backend, NativeStream stream, std::uint64_t address,
                      std::size_t bytes);

// A free of device memory: kept by the capture open on the device (true:
// the caller must not free it), else any live graph that uses it is marked
// unusable (false: free as usual).
bool graph_memory_freed(const Device& device, std::uint64_t address, std::size_t bytes,
                        void* stream, bool pooled) noexcept;

// Graphs whose memory is watched register their resources (weakly).
void watch_graph_resources(const std::shared_ptr<GraphResources>& resources);

}  // namespace cudakit::detail
