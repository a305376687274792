#include "backend/cpu/grid_barrier.hpp"

#include <utility>

#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {

GridBarrier::GridBarrier(unsigned long long blocks, std::string kernel_name)
    : blocks_(blocks), kernel_name_(std::move(kernel_name)) {}

void GridBarrier::throw_abandoned() const {
  throw KernelFault(
      "running kernel " + kernel_name_ + " on the CPU backend",
      "a block waiting at cooperative_groups::this_grid().sync() cannot go on: " + abandoned_,
      {kernel_name_},
      "every block of a cooperative launch must reach each grid.sync(); one that "
      "returns early hangs on a GPU too");
}

void GridBarrier::arrive_and_wait() {
  std::unique_lock lock(mutex_);
  if (abandoned_.empty() && finished_ > 0) {
    abandoned_ = std::to_string(finished_) + " block(s) finished without reaching it";
    released_.notify_all();
  }
  if (!abandoned_.empty()) throw_abandoned();
  if (++waiting_ == blocks_) {
    waiting_ = 0;
    ++generation_;
    released_.notify_all();
    return;
  }
  const unsigned long long generation = generation_;
  released_.wait(lock, [&] { return generation_ != generation || !abandoned_.empty(); });
  if (generation_ == generation) throw_abandoned();
}

void GridBarrier::abandon(std::string why) {
  std::lock_guard lock(mutex_);
  if (abandoned_.empty()) abandoned_ = std::move(why);
  released_.notify_all();
}

void GridBarrier::block_finished(unsigned long long block_index) {
  std::lock_guard lock(mutex_);
  ++finished_;
  if (waiting_ > 0 && abandoned_.empty()) {
    abandoned_ = "block " + std::to_string(block_index) +
                 " (linear index) finished without "
                 "reaching the grid.sync() that " +
                 std::to_string(waiting_) + " blocks wait at";
    released_.notify_all();
  }
}

}  // namespace cudakit::detail::cpu
