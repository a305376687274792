// The CPU backend's record of registered host ranges. Nothing needs
// page-locking on the CPU, but the record makes the caller's mistakes the
// errors the driver gives on a GPU: a range registered twice (or overlapping
// another), an address unregistered that was never registered.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

namespace cudakit::detail {

class HostRegistry {
 public:
  // ArgumentError when [data, data + bytes) overlaps a registered range.
  void add(void* data, std::size_t bytes);
  // ArgumentError when `data` does not start a registered range.
  void remove(void* data);
  // Whether [data, data + bytes) lies inside one registered range.
  bool contains(const void* data, std::size_t bytes) const;
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<const char*, std::size_t> ranges_;  // start -> bytes
};

}  // namespace cudakit::detail
