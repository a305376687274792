// A kernel launch as a stream runs it later on its thread: the argument
// values copied at launch, the printf buffer, and the checks made when the
// blocks have run (lost printf output, allocation canaries).
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "backend/cpu/block_runner.hpp"
#include "backend/cpu/device_memory.hpp"
#include "backend/cpu/fault_guard.hpp"
#include "backend/cpu/printf_fifo.hpp"

namespace cudakit::detail::cpu {

struct LaunchTask {
  BlockLaunch launch;
  std::string name;
  std::vector<std::max_align_t> storage;  // the argument values, copied at launch
  std::vector<void*> args;
  std::optional<PrintfFifo> printf_fifo;  // sized by the limit when launched

  // What did not fit in the printf buffer, said once the launch is over
  // (after its output, which the stream flushes when the work completes).
  void report_lost_printf() const {
    const std::string message = printf_fifo->lost_message(name);
    if (message.empty()) return;
    std::fflush(stdout);
    std::fputs(message.c_str(), stderr);
  }
  // Runs the launch's blocks through `run`; the lost printf output is
  // reported whether or not the kernel faulted. A launch that ran to its end
  // then has the canaries of the allocations its arguments point into
  // checked: a write past an allocation's end that stayed short of the guard
  // page is reported here, naming the allocation.
  template <class Run>
  void run_checked(Run&& run) {
    launch.kernel_name = name.c_str();
    launch.epoch = current_cancel_epoch();
    try {
      run();
      DeviceMemory::instance().check_canaries(storage.data(), argument_bytes, name);
    } catch (...) {
      // The failure names what went wrong; canaries the kernel overwrote on
      // its way to a guard page are put back without a second report.
      DeviceMemory::instance().check_canaries(storage.data(), argument_bytes, name, false);
      report_lost_printf();
      throw;
    }
    report_lost_printf();
  }
  std::size_t argument_bytes = 0;  // of `storage`
};

}  // namespace cudakit::detail::cpu
