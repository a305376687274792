// Waits of host threads for device work that the installed
// WaitInterruptCheck (cudakit/wait_interrupt.hpp) can interrupt, and the
// cancelling of the running launches that goes with an interrupt.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "cudakit/wait_interrupt.hpp"

namespace cudakit::detail::cpu {

enum class WaitMode {
  plain,          // never interrupted (a stream's own thread waiting for another)
  interruptible,  // the check's exception leaves the wait
  patient,        // a wait that cannot throw (a destructor, freeing memory): an
                  // interrupt cancels the running launches, and the wait goes on
};

// How often a waiting host thread calls the check.
inline constexpr std::chrono::milliseconds kInterruptPoll{50};

// Calls the installed check; when it throws, cancels the running launches
// (cancel_running_launches) and rethrows (interruptible) or drops the
// exception (patient).
void poll_interrupt(WaitMode mode);

// cv.wait(lock, done), calling the check between slices of kInterruptPoll
// (with `lock` released) unless `mode` is plain or no check is installed.
// A wait that ends within the first slice costs what cv.wait costs.
template <class Done>
void wait_until_done(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, Done done,
                     WaitMode mode) {
  if (mode == WaitMode::plain || !wait_interrupt_check()) {
    cv.wait(lock, done);
    return;
  }
  while (!cv.wait_for(lock, kInterruptPoll, done)) {
    lock.unlock();
    poll_interrupt(mode);  // may throw, with the lock released
    lock.lock();
  }
}

}  // namespace cudakit::detail::cpu
