// The tables cuRAND's quasi-random (Sobol) generators start from, read from
// cuRAND's host library (libcurand, loaded on first use): a kernel passes one
// dimension's direction vectors (and, scrambled, its scramble constant) to
// curand_init for a curandStateSobol32 / Sobol64 (or Scrambled) state. The
// tables hold 20000 dimensions; a longer request repeats them from the start,
// as PyCUDA's generate_direction_vectors does. Throws LibraryNotFound (naming
// the paths tried and the fix) where libcurand is missing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudakit {

// The dimensions cuRAND's Sobol tables hold.
inline constexpr std::size_t kSobolDimensions = 20000;

enum class SobolScrambling { none, scrambled };

// `dimensions` x 32 words, row-major (curandDirectionVectors32_t per row).
std::vector<std::uint32_t> sobol_direction_vectors32(std::size_t dimensions,
                                                     SobolScrambling scrambling);
// `dimensions` x 64 words, row-major (curandDirectionVectors64_t per row).
std::vector<std::uint64_t> sobol_direction_vectors64(std::size_t dimensions,
                                                     SobolScrambling scrambling);
// One scramble constant per dimension.
std::vector<std::uint32_t> sobol_scramble_constants32(std::size_t dimensions);
std::vector<std::uint64_t> sobol_scramble_constants64(std::size_t dimensions);

// cuRAND's version as curandGetVersion gives it (10x00 + ...: 10400 for 10.4.0).
int curand_version();

}  // namespace cudakit
