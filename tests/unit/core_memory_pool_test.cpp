// The caching allocator and the buffers over it.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/memory_pool.hpp"
#include "cudakit/pinned_buffer.hpp"
#include "unit/core_fake_backend.hpp"

namespace cudakit {
namespace {

using testing::fake;

class Pool : public ::testing::Test {
 protected:
  void SetUp() override {
    fake().reset();
    fake().capacity = std::size_t(1) << 30;
    pool().free_all();
    // The fake streams below stand for streams cudakit created.
    for (void* s : {stream1, stream2}) pool().adopt_stream(s);
  }
  void TearDown() override {
    for (void* s : {stream1, stream2}) pool().forget_stream(s);
    pool().free_all();
    fake().capacity = std::size_t(1) << 30;
  }
  static MemoryPool& pool() { return MemoryPool::of(Device::get(0)); }
  static inline void* const stream1 = reinterpret_cast<void*>(0x10);
  static inline void* const stream2 = reinterpret_cast<void*>(0x20);
};

TEST(PoolSizeClasses, SmallRequestsRoundTo512Bytes) {
  EXPECT_EQ(MemoryPool::round_size(0), 0u);
  EXPECT_EQ(MemoryPool::round_size(1), 512u);
  EXPECT_EQ(MemoryPool::round_size(512), 512u);
  EXPECT_EQ(MemoryPool::round_size(513), 1024u);
  EXPECT_EQ(MemoryPool::round_size((1 << 20) - 1), std::size_t(1) << 20);
}

TEST(PoolSizeClasses, LargeRequestsRoundTo2MiB) {
  const std::size_t mib = 1 << 20;
  EXPECT_EQ(MemoryPool::round_size(mib), mib);  // a class's own size stays in it
  EXPECT_EQ(MemoryPool::round_size(mib + 1), 2 * mib);
  EXPECT_EQ(MemoryPool::round_size(2 * mib), 2 * mib);
  EXPECT_EQ(MemoryPool::round_size(2 * mib + 1), 4 * mib);
}

TEST_F(Pool, OnePoolPerDevice) { EXPECT_EQ(&pool(), &MemoryPool::of(Device::get(0))); }

TEST_F(Pool, FreedBlockIsReusedOnTheSameStream) {
  auto before = pool().stats();
  auto p = pool().allocate(1000);
  pool().deallocate(p, 1000);
  auto q = pool().allocate(700);  // same 1024-byte class
  EXPECT_EQ(p, q);
  auto after = pool().stats();
  EXPECT_EQ(after.allocations - before.allocations, 1u);
  EXPECT_EQ(after.hits - before.hits, 1u);
  pool().deallocate(q, 700);
}

TEST_F(Pool, BlockFreedOnAnotherStreamIsReusedOnceItsWorkIsDone) {
  // The fake device finishes all work at once, so the other stream's block
  // is free to take; the CPU and GPU tests cover a stream still busy.
  void* s1 = reinterpret_cast<void*>(0x10);
  void* s2 = reinterpret_cast<void*>(0x20);
  auto before = pool().stats();
  auto p = pool().allocate(4096, s1);
  pool().deallocate(p, 4096, s1);
  auto q = pool().allocate(4096, s2);
  EXPECT_EQ(p, q);
  auto after = pool().stats();
  EXPECT_EQ(after.allocations - before.allocations, 1u);
  EXPECT_EQ(after.cross_stream_hits - before.cross_stream_hits, 1u);
  pool().deallocate(q, 4096, s2);
}

// A stream about to be destroyed is forgotten first: its cached blocks serve
// the default stream once its work is done, and the pool never names it again
// (the driver may crash on a dead stream handle).
TEST_F(Pool, BlocksOfAForgottenStreamServeTheDefaultStream) {
  void* dying = reinterpret_cast<void*>(0x30);
  pool().adopt_stream(dying);
  auto p = pool().allocate(4096, dying);
  pool().deallocate(p, 4096, dying);
  pool().forget_stream(dying);
  auto before = pool().stats();
  EXPECT_EQ(pool().allocate(4096, nullptr), p);
  EXPECT_EQ(pool().stats().allocations, before.allocations);
  pool().deallocate(p, 4096, nullptr);
  pool().forget_stream(dying);  // a second time does nothing
}

// A block freed on a stream cudakit did not create (a wrapped torch or CuPy
// stream) is not listed under it: nothing tells the pool when it dies.
TEST_F(Pool, BlockFreedOnAForeignStreamGoesToTheDefaultStream) {
  void* foreign = reinterpret_cast<void*>(0x40);
  auto p = pool().allocate(4096, foreign);
  pool().deallocate(p, 4096, foreign);
  auto before = pool().stats();
  EXPECT_EQ(pool().allocate(4096, nullptr), p);
  EXPECT_EQ(pool().stats().allocations, before.allocations);
  EXPECT_EQ(pool().stats().cross_stream_hits, before.cross_stream_hits);
  pool().deallocate(p, 4096, nullptr);
}

TEST_F(Pool, OwnStreamsBlockIsPreferred) {
  void* s1 = reinterpret_cast<void*>(0x10);
  void* s2 = reinterpret_cast<void*>(0x20);
  auto p = pool().allocate(4096, s1);
  auto q = pool().allocate(4096, s2);
  pool().deallocate(p, 4096, s1);
  pool().deallocate(q, 4096, s2);
  auto before = pool().stats();
  EXPECT_EQ(pool().allocate(4096, s2), q);
  EXPECT_EQ(pool().allocate(4096, s1), p);
  EXPECT_EQ(pool().stats().cross_stream_hits, before.cross_stream_hits);
  pool().deallocate(p, 4096, s1);
  pool().deallocate(q, 4096, s2);
}

TEST_F(Pool, StatsTrackHeldAndActiveBytes) {
  auto p = pool().allocate(3 << 20);  // 4 MiB class
  auto s = pool().stats();
  EXPECT_EQ(s.held_bytes, std::size_t(4) << 20);
  EXPECT_EQ(s.active_bytes, std::size_t(4) << 20);
  pool().deallocate(p, 3 << 20);
  s = pool().stats();
  EXPECT_EQ(s.held_bytes, std::size_t(4) << 20);
  EXPECT_EQ(s.active_bytes, 0u);
}

TEST_F(Pool, FreeAllReturnsCachedBlocksToTheDevice) {
  auto p = pool().allocate(10000);
  pool().deallocate(p, 10000);
  const int frees = fake().deallocations;
  pool().free_all();
  EXPECT_EQ(fake().deallocations, frees + 1);
  EXPECT_EQ(pool().stats().held_bytes, 0u);
  EXPECT_EQ(fake().in_use, 0u);
}

TEST_F(Pool, OutOfMemoryFreesTheCacheAndRetries) {
  fake().capacity = 8 << 20;
  auto p = pool().allocate(6 << 20);
  pool().deallocate(p, 6 << 20);      // 6 MiB cached, 2 MiB free
  auto q = pool().allocate(5 << 20);  // 6 MiB class again: a hit, no retry needed
  pool().deallocate(q, 5 << 20);
  auto r = pool().allocate(7 << 20);  // 8 MiB class: only fits once the cache is freed
  EXPECT_NE(r, 0u);
  EXPECT_EQ(pool().stats().held_bytes, std::size_t(8) << 20);
  pool().deallocate(r, 7 << 20);
}

TEST_F(Pool, TenTerabytesIsOutOfMemory) {
  try {
    UntypedBuffer huge(Device::get(0), std::size_t(10) << 40);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested(), std::size_t(10) << 40);
  }
}

TEST_F(Pool, ZeroBytesAllocatesNothing) {
  const int allocations = fake().allocations;
  EXPECT_EQ(pool().allocate(0), 0u);
  UntypedBuffer empty(Device::get(0), 0);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(fake().allocations, allocations);
}

TEST_F(Pool, BufferReturnsItsMemoryToThePool) {
  {
    DeviceBuffer<float> buffer(Device::get(0), 1000);
    EXPECT_EQ(pool().stats().active_bytes, 4096u);
  }
  EXPECT_EQ(pool().stats().active_bytes, 0u);
  EXPECT_EQ(pool().stats().held_bytes, 4096u);
}

TEST_F(Pool, DirectBuffersBypassThePool) {
  const int frees = fake().deallocations;
  {
    DeviceBuffer<float> buffer(Device::get(0), 1000, Allocator::direct);
    EXPECT_EQ(pool().stats().active_bytes, 0u);
    EXPECT_EQ(fake().in_use, 4000u);
  }
  EXPECT_EQ(fake().deallocations, frees + 1);
}

TEST_F(Pool, BufferRoundTripsRandomData) {
  std::mt19937 rng(3);
  std::vector<int> host(1237);
  for (auto& v : host) v = static_cast<int>(rng());
  auto buffer = to_device(host);
  EXPECT_EQ(buffer.to_host(), host);
  DeviceBuffer<int> copy(host.size());
  copy.copy_from(buffer);
  EXPECT_EQ(copy.to_host(), host);
}

TEST_F(Pool, MovedBufferOwnsTheMemoryOnce) {
  DeviceBuffer<int> a(Device::get(0), 100);
  auto address = a.address();
  DeviceBuffer<int> b(std::move(a));
  EXPECT_EQ(b.address(), address);
  EXPECT_EQ(a.address(), 0u);  // NOLINT(bugprone-use-after-move): moved-from state is defined
  DeviceBuffer<int> c;
  c = std::move(b);
  EXPECT_EQ(c.address(), address);
}

TEST_F(Pool, CopyLargerThanTheBufferIsAnError) {
  DeviceBuffer<int> buffer(Device::get(0), 10);
  std::vector<int> host(11, 1);
  EXPECT_THROW(buffer.copy_from(host), ArgumentError);
  EXPECT_THROW(buffer.copy_to(host), ArgumentError);
  EXPECT_THROW(buffer.untyped().copy_from_host(host.data(), 8, 36), ArgumentError);
}

TEST_F(Pool, FillWritesElementsOfTheGivenSize) {
  DeviceBuffer<std::uint16_t> buffer(Device::get(0), 33);
  buffer.untyped().fill_bytes(0xBEEF, 2, 33);
  for (auto v : buffer.to_host()) EXPECT_EQ(v, 0xBEEF);
  EXPECT_THROW(buffer.untyped().fill_bytes(1, 3, 2), ArgumentError);
  EXPECT_THROW(buffer.untyped().fill_bytes(1, 4, 17), ArgumentError);
}

TEST_F(Pool, EmptyBufferHasNoDevice) {
  UntypedBuffer empty;
  EXPECT_THROW(empty.device(), ArgumentError);
}

TEST(PinnedBufferTest, HoldsElements) {
  PinnedBuffer<double> pinned(100);
  std::iota(pinned.begin(), pinned.end(), 1.0);
  EXPECT_EQ(pinned[99], 100.0);
  EXPECT_EQ(pinned.bytes(), 800u);
}

}  // namespace
}  // namespace cudakit
