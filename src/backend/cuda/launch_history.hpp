// The last few kernels launched on each stream, so that a fault surfacing
// later (at a copy, a synchronize, the next launch) can name the kernels that
// may have caused it. Recording costs a short copy (none when the kernel is
// the stream's last one again) under an uncontended per-slot spin lock and
// never allocates: it sits on the launch path.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace cudakit::detail {

class LaunchHistory {
 public:
  static constexpr std::size_t kPerStream = 4;   // kernels kept per stream
  static constexpr std::size_t kStreams = 64;    // streams tracked at once (hashed)
  static constexpr std::size_t kNameBytes = 96;  // longer names are cut

  void record(const void* stream, const char* kernel_name) noexcept;
  // Kernels launched on `stream`, most recent first.
  std::vector<std::string> on_stream(const void* stream) const;
  // The most recent launches on any stream, most recent first; for faults
  // surfacing where no stream is known (context synchronize, plain copies).
  std::vector<std::string> recent(std::size_t count = kPerStream * 2) const;
  // Forgets a destroyed stream (its handle may be reused by a new one).
  void forget(const void* stream) noexcept;

 private:
  struct Entry {
    std::uint64_t sequence = 0;    // 0: empty
    const char* source = nullptr;  // the name's address when recorded (compared, never read)
    char name[kNameBytes] = {};
  };
  struct Slot {
    mutable std::atomic_flag busy = ATOMIC_FLAG_INIT;
    const void* stream = nullptr;
    bool used = false;
    std::uint32_t next = 0;
    std::array<Entry, kPerStream> entries{};
  };
  class SlotLock;

  Slot& slot_for(const void* stream) noexcept;
  const Slot& slot_for(const void* stream) const noexcept;

  std::atomic<std::uint64_t> sequence_{0};
  std::array<Slot, kStreams> slots_{};
};

}  // namespace cudakit::detail
