#include "backend/cpu/printf_fifo.hpp"

#include <cstdio>

namespace cudakit::detail::cpu {

int PrintfFifo::write(const char* text, std::size_t length) {
  std::size_t used = used_.load(std::memory_order_relaxed);
  do {
    if (length > capacity_ - used) {
      lost_.fetch_add(length, std::memory_order_relaxed);
      lost_calls_.fetch_add(1, std::memory_order_relaxed);
      return -1;
    }
  } while (!used_.compare_exchange_weak(used, used + length, std::memory_order_relaxed));
  // stdio locks the stream per call, so lines of different threads do not mix.
  std::fwrite(text, 1, length, stdout);
  return static_cast<int>(length);
}

std::string PrintfFifo::lost_message(const std::string& kernel_name) const {
  const std::size_t bytes = lost_bytes();
  if (bytes == 0) return {};
  const std::size_t calls = lost_calls();
  return "cudakit: " + std::to_string(bytes) + " bytes of printf output (" + std::to_string(calls) +
         (calls == 1 ? " call" : " calls") + ") from kernel " + kernel_name +
         " were lost: the printf buffer (" + std::to_string(capacity_) +
         " bytes) is full; raise it with "
         "device.set_limit(cudakit::ContextLimit::printf_fifo_size, bytes) "
         "(Python: Context.set_limit(limit.PRINTF_FIFO_SIZE, bytes)) before the launch\n";
}

}  // namespace cudakit::detail::cpu
