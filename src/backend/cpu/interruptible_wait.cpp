#include "backend/cpu/interruptible_wait.hpp"

#include <atomic>

#include "backend/cpu/fault_guard.hpp"

namespace cudakit {
namespace {
std::atomic<WaitInterruptCheck> installed_check{nullptr};
}  // namespace

void set_wait_interrupt_check(WaitInterruptCheck check) noexcept {
  installed_check.store(check, std::memory_order_release);
}

WaitInterruptCheck wait_interrupt_check() noexcept {
  return installed_check.load(std::memory_order_acquire);
}

void cancel_running_kernels() { detail::cpu::cancel_running_launches(); }

namespace detail::cpu {

void poll_interrupt(WaitMode mode) {
  const WaitInterruptCheck check = wait_interrupt_check();
  if (!check || mode == WaitMode::plain) return;
  try {
    check();
  } catch (...) {
    // What the thread waited for would never end otherwise: the kernels
    // running now are stopped, and their launches fail.
    cancel_running_launches();
    if (mode == WaitMode::interruptible) throw;
  }
}

}  // namespace detail::cpu
}  // namespace cudakit
