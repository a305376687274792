// The printf FIFO of one CPU-backend launch. On a GPU, kernel printf output
// goes to a buffer of the context's printf_fifo_size bytes (1 MiB by
// default) and what does not fit is lost; the CPU backend keeps the same
// limit per launch, so a kernel that prints too much behaves alike on both,
// and, unlike a GPU, says how much was lost.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

namespace cudakit::detail::cpu {

class PrintfFifo {
 public:
  explicit PrintfFifo(std::size_t capacity) : capacity_(capacity) {}

  // One printf call's formatted text, from any thread of the launch: written
  // to stdout when it fits in what is left of the buffer, else counted as
  // lost (a whole call, as a GPU drops a whole record). Returns `length`
  // when written, -1 when lost.
  int write(const char* text, std::size_t length);

  std::size_t capacity() const { return capacity_; }
  std::size_t lost_bytes() const { return lost_.load(std::memory_order_relaxed); }
  std::size_t lost_calls() const { return lost_calls_.load(std::memory_order_relaxed); }

  // "cudakit: 1560 bytes of printf output (78 calls) from kernel K were
  // lost: ..." with the fix; empty when nothing was lost.
  std::string lost_message(const std::string& kernel_name) const;

 private:
  std::size_t capacity_;
  std::atomic<std::size_t> used_{0};
  std::atomic<std::size_t> lost_{0};
  std::atomic<std::size_t> lost_calls_{0};
};

}  // namespace cudakit::detail::cpu
