// The grid-wide barrier of a cooperative launch on the CPU backend
// (cooperative_groups::this_grid().sync()): every block runs on its own OS
// thread, and the thread that completes a block's part of the barrier waits
// here for the other blocks. A block that fails, or finishes while others
// wait for it, releases the waiters with an error instead of leaving them
// stuck, so a broken kernel ends with a KernelFault rather than a hang.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>

namespace cudakit::detail::cpu {

class GridBarrier {
 public:
  GridBarrier(unsigned long long blocks, std::string kernel_name);
  // Waits until every block has arrived. Throws KernelFault when the
  // barrier was abandoned (another block failed or finished without it).
  void arrive_and_wait();
  // A block failed: the waiting blocks (and later arrivals) give up.
  void abandon(std::string why);
  // A block ran to its end. Blocks waiting for it can never go on.
  void block_finished(unsigned long long block_index);

 private:
  [[noreturn]] void throw_abandoned() const;

  std::mutex mutex_;
  std::condition_variable released_;
  const unsigned long long blocks_;
  const std::string kernel_name_;
  unsigned long long waiting_ = 0;
  unsigned long long finished_ = 0;
  unsigned long long generation_ = 0;
  std::string abandoned_;  // why, once abandoned
};

}  // namespace cudakit::detail::cpu
