// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator, so element i of a draw is a pure
// function of (seed, counter) and any thread can produce it without state.
// That is what makes the numbers identical on the GPU and on the CPU backend.
#pragma once

#include <string_view>

namespace cudakit::detail {

// Device code (valid CUDA C and, through the CPU backend's prelude, host
// C++) defining ck_philox4x32_10(counter, key) and the conversions from
// random words to floating point used by every random kernel.
std::string_view philox_device_source() noexcept;

}  // namespace cudakit::detail
