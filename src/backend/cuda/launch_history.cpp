#include "backend/cuda/launch_history.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace cudakit::detail {

class LaunchHistory::SlotLock {
 public:
  explicit SlotLock(const Slot& slot) noexcept : slot_(slot) {
    while (slot_.busy.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~SlotLock() { slot_.busy.clear(std::memory_order_release); }
  SlotLock(const SlotLock&) = delete;
  SlotLock& operator=(const SlotLock&) = delete;

 private:
  const Slot& slot_;
};

namespace {
std::size_t hash_stream(const void* stream) noexcept {
  auto value = reinterpret_cast<std::uintptr_t>(stream);
  value ^= value >> 17;
  value *= 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>(value >> 40);
}
}  // namespace

LaunchHistory::Slot& LaunchHistory::slot_for(const void* stream) noexcept {
  return slots_[hash_stream(stream) % kStreams];
}

const LaunchHistory::Slot& LaunchHistory::slot_for(const void* stream) const noexcept {
  return slots_[hash_stream(stream) % kStreams];
}

void LaunchHistory::record(const void* stream, const char* kernel_name) noexcept {
  // Launches at the same moment from several threads have no order worth
  // keeping: a plain load and store numbers them (no locked increment on
  // every launch), and two of them may share a number.
  const std::uint64_t sequence = sequence_.load(std::memory_order_relaxed) + 1;
  sequence_.store(sequence, std::memory_order_relaxed);
  Slot& slot = slots_[hash_stream(stream) % kStreams];
  SlotLock lock(slot);
  // Two streams hashing to one slot share it: the slot then holds the
  // newest launches of both, which is still the right set to report.
  if (!slot.used || slot.stream != stream) {
    slot.stream = stream;
    slot.used = true;
  }
  const char* name = kernel_name ? kernel_name : "(unnamed kernel)";
  // The kernel launched last, again (a loop): its entry is renewed rather
  // than copied again, so the entries hold the last distinct kernels (the
  // reports name each kernel once anyway). The text is compared too: a
  // kernel's name may sit where a freed one's did.
  if (slot.next > 0) {
    Entry& newest = slot.entries[(slot.next - 1) % kPerStream];
    if (newest.sequence != 0 && newest.source == name &&
        std::strncmp(newest.name, name, kNameBytes - 1) == 0) {
      newest.sequence = sequence;
      return;
    }
  }
  Entry& entry = slot.entries[slot.next % kPerStream];
  slot.next++;
  entry.sequence = sequence;
  entry.source = name;
  std::size_t length = std::strlen(name);
  if (length >= kNameBytes) length = kNameBytes - 1;
  std::memcpy(entry.name, name, length);
  entry.name[length] = '\0';
}

std::vector<std::string> LaunchHistory::on_stream(const void* stream) const {
  std::vector<std::pair<std::uint64_t, std::string>> found;
  {
    const Slot& slot = slot_for(stream);
    SlotLock lock(slot);
    if (slot.used)
      for (const Entry& entry : slot.entries)
        if (entry.sequence != 0) found.emplace_back(entry.sequence, entry.name);
  }
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<std::string> names;
  for (auto& item : found)
    if (std::find(names.begin(), names.end(), item.second) == names.end())
      names.push_back(std::move(item.second));
  return names;
}

std::vector<std::string> LaunchHistory::recent(std::size_t count) const {
  std::vector<std::pair<std::uint64_t, std::string>> found;
  for (const Slot& slot : slots_) {
    SlotLock lock(slot);
    if (!slot.used) continue;
    for (const Entry& entry : slot.entries)
      if (entry.sequence != 0) found.emplace_back(entry.sequence, entry.name);
  }
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<std::string> names;
  for (auto& item : found) {
    if (names.size() >= count) break;
    if (std::find(names.begin(), names.end(), item.second) == names.end())
      names.push_back(std::move(item.second));
  }
  return names;
}

void LaunchHistory::forget(const void* stream) noexcept {
  Slot& slot = slot_for(stream);
  SlotLock lock(slot);
  if (slot.used && slot.stream == stream) {
    slot.used = false;
    slot.next = 0;
    slot.entries = {};
  }
}

}  // namespace cudakit::detail
