// The argument half of the checked launch: each argument of a KernelArgs
// against the kernel's parameter of the same position.
#pragma once

#include <cstdint>
#include <string>

#include "core/kernel_state.hpp"
#include "cudakit/kernel_args.hpp"
#include "cudakit/launch_config.hpp"

namespace cudakit::detail {

// "launching kernel k (grid .., block ..) on device 0 (...)"
std::string launch_context(const Kernel::State& kernel, const LaunchConfig& config);

// Checks the count and every argument; fills values[i] with the address of
// the bytes the kernel gets for parameter i: the argument's own bytes, or
// converted[i] holding the value in the parameter's type (a host transfer's
// staging address is written there later). ArgumentError on any mismatch,
// naming the parameter, what was passed and what to pass instead.
void check_arguments(const Kernel::State& kernel, const LaunchConfig& config,
                     const KernelArgs& args, void** values, std::uint64_t* converted);

}  // namespace cudakit::detail
