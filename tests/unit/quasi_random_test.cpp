// cuRAND's Sobol tables through cudakit::sobol_* (libcurand, loaded on first
// use): their shape, the first dimension's van der Corput vectors, the
// repetition past cuRAND's 20000 dimensions, and what a missing libcurand says.
#include "cudakit/quasi_random.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "cudakit/error.hpp"
#include "platform/curand_library.hpp"
#include "unit/cuda_test_util.hpp"

namespace cudakit {
namespace {

using test::contains;
using test::ScopedEnv;
using test::ScratchDir;

bool curand_installed() {
  try {
    (void)detail::curand_library();
    return true;
  } catch (const LibraryNotFound&) {
    return false;
  }
}

TEST(QuasiRandom, DirectionVectorsAreJoeKuosAndRepeatPastTwentyThousandDimensions) {
  if (!curand_installed()) GTEST_SKIP() << "cuRAND's host library is not installed here";
  const std::size_t dims = kSobolDimensions + 3;
  const std::vector<std::uint32_t> v32 = sobol_direction_vectors32(dims, SobolScrambling::none);
  ASSERT_EQ(v32.size(), dims * 32);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(v32[k], 1u << (31 - k)) << k;
  for (std::size_t i = 0; i < 3 * 32; ++i) EXPECT_EQ(v32[kSobolDimensions * 32 + i], v32[i]);
  std::set<std::vector<std::uint32_t>> rows;
  for (std::size_t d = 0; d < 1000; ++d)
    rows.emplace(v32.begin() + static_cast<std::ptrdiff_t>(d * 32),
                 v32.begin() + static_cast<std::ptrdiff_t>(d * 32 + 32));
  EXPECT_EQ(rows.size(), 1000u);
  const std::vector<std::uint64_t> v64 = sobol_direction_vectors64(2, SobolScrambling::none);
  ASSERT_EQ(v64.size(), 2u * 64);
  for (int k = 0; k < 64; ++k) EXPECT_EQ(v64[k], std::uint64_t{1} << (63 - k)) << k;
  // The scrambled set is another table (its first dimension is no longer van der Corput's).
  EXPECT_NE(sobol_direction_vectors64(1, SobolScrambling::scrambled),
            std::vector(v64.begin(), v64.begin() + 64));
  EXPECT_EQ(sobol_scramble_constants32(7).size(), 7u);
  EXPECT_EQ(sobol_scramble_constants64(kSobolDimensions + 1).back(),
            sobol_scramble_constants64(1).front());
  EXPECT_GE(curand_version(), 10000);
  EXPECT_TRUE(sobol_direction_vectors32(0, SobolScrambling::none).empty());
}

TEST(QuasiRandom, MissingLibcurandNamesThePathsTriedAndTheVariable) {
  ScratchDir empty;
  ScopedEnv env("CUDAKIT_CURAND", empty.str());
  try {
    detail::load_curand(detail::curand_search_plan());
    FAIL() << "expected LibraryNotFound";
  } catch (const LibraryNotFound& e) {
    EXPECT_EQ(e.library(), "libcurand (cuRAND)");
    EXPECT_TRUE(contains(e.what(), empty.str() + "/libcurand.so.10")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_CURAND is set")) << e.hint();
  }
}

}  // namespace
}  // namespace cudakit
