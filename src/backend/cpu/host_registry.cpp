#include "backend/cpu/host_registry.hpp"

#include <cstdio>
#include <iterator>
#include <string>

#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

std::string describe_address(const void* data) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", data);
  return text;
}

std::string describe_range(const void* data, std::size_t bytes) {
  return std::to_string(bytes) + " bytes at " + describe_address(data);
}

}  // namespace

void HostRegistry::add(void* data, std::size_t bytes) {
  const char* begin = static_cast<const char*>(data);
  std::lock_guard lock(mutex_);
  // The first range starting after `begin`, and the one before it, are the
  // only ones that can overlap.
  auto next = ranges_.upper_bound(begin);
  const bool overlaps_next = next != ranges_.end() && next->first < begin + bytes;
  const bool overlaps_previous =
      next != ranges_.begin() && std::prev(next)->first + std::prev(next)->second > begin;
  if (overlaps_next || overlaps_previous) {
    auto other = overlaps_previous ? std::prev(next) : next;
    throw ArgumentError("registering host memory (" + describe_range(data, bytes) + ")",
                        "the range overlaps memory that is already registered (" +
                            describe_range(other->first, other->second) +
                            ") [as CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED]",
                        "register each array once and keep the returned registration; "
                        "unregister it before registering the memory again");
  }
  ranges_.emplace(begin, bytes);
}

void HostRegistry::remove(void* data) {
  std::lock_guard lock(mutex_);
  auto found = ranges_.find(static_cast<const char*>(data));
  if (found == ranges_.end())
    throw ArgumentError("unregistering host memory at " + describe_address(data),
                        "the address does not start registered host memory [as "
                        "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED]",
                        "unregister only what register_host_memory returned, once");
  ranges_.erase(found);
}

bool HostRegistry::contains(const void* data, std::size_t bytes) const {
  const char* begin = static_cast<const char*>(data);
  std::lock_guard lock(mutex_);
  auto next = ranges_.upper_bound(begin);
  if (next == ranges_.begin()) return false;
  const auto& [start, size] = *std::prev(next);
  return static_cast<std::size_t>(begin - start) < size &&
         bytes <= size - static_cast<std::size_t>(begin - start);
}

std::size_t HostRegistry::size() const {
  std::lock_guard lock(mutex_);
  return ranges_.size();
}

}  // namespace cudakit::detail
