// CUDAKIT_EXACT_ALLOCATIONS=1, which `cudakit check` sets: the memory pool's
// blocks have exactly the requested size, so compute-sanitizer sees where a
// 100-float array ends. Registered with the variable set (tests/debug.cmake).
#include <gtest/gtest.h>

#include <cstdlib>

#include "cudakit/device.hpp"
#include "cudakit/memory_pool.hpp"

namespace cudakit {
namespace {

TEST(ExactPoolBlocks, BlocksHaveTheRequestedSizeAndAreReusedForIt) {
  ASSERT_NE(std::getenv("CUDAKIT_EXACT_ALLOCATIONS"), nullptr) << "run through ctest";
  MemoryPool& pool = MemoryPool::of(Device::current());
  pool.free_all();
  const MemoryPoolStats before = pool.stats();
  const std::uint64_t block = pool.allocate(400);
  ASSERT_NE(block, 0u);
  EXPECT_EQ(pool.stats().held_bytes - before.held_bytes, 400u);
  EXPECT_EQ(pool.stats().active_bytes - before.active_bytes, 400u);
  pool.deallocate(block, 400);
  EXPECT_EQ(pool.stats().active_bytes, before.active_bytes);
  // The same size comes back from the cache; another size is a new block.
  const std::uint64_t again = pool.allocate(400);
  EXPECT_EQ(again, block);
  const std::uint64_t other = pool.allocate(404);
  EXPECT_EQ(pool.stats().held_bytes - before.held_bytes, 804u);
  pool.deallocate(again, 400);
  pool.deallocate(other, 404);
  pool.free_all();
}

}  // namespace
}  // namespace cudakit
