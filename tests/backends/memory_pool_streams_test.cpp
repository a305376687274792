// The memory pool across streams: a block freed on one stream goes to
// another only once the work queued before the free has completed, and a
// block used on other streams (record_stream) only once their work has too.
// Runs on the CPU backend (its streams are asynchronous threads) and, in the
// gpu build of the same source, on a GPU.
#include <gtest/gtest.h>

#include <deque>
#include <thread>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/memory_pool.hpp"
#include "unit/array_test_support.hpp"
#include "unit/stream_test_fixture.hpp"
#include "unit/stream_test_kernels.hpp"

namespace array_test {
namespace {

class PoolStreams : public StreamTest {};

constexpr std::size_t block_bytes = 100'000;  // one 100352-byte class

TEST_F(PoolStreams, SameStreamReusesABlockAtOnceWhileTheStreamIsBusy) {
  ck::Array busy = ck::zeros({1237}, ck::DType::float32, s1());
  slow_scale(busy, s1());
  auto before = pool().stats();
  std::uint64_t p = pool().allocate(block_bytes, s1().native());
  pool().deallocate(p, block_bytes, s1().native());
  EXPECT_EQ(pool().allocate(block_bytes, s1().native()), p);
  auto after = pool().stats();
  EXPECT_EQ(after.hits - before.hits, 1u);
  EXPECT_EQ(after.cross_stream_hits - before.cross_stream_hits, 0u);
  pool().deallocate(p, block_bytes, s1().native());
}

// An array made on a stream of its own, viewed on another stream and
// dropped after the stream's last handle: the block goes back while the
// stream is alive, then serves the default stream. Querying the destroyed
// stream's handle crashed the driver on a GPU.
TEST_F(PoolStreams, ArrayOutlivingItsStreamsHandleGoesBackSafely) {
  auto before = pool().stats();
  std::uint64_t address = 0;
  {
    ck::Array view;
    {
      ck::Stream own = device().create_stream();
      ck::Array a = ck::empty({25'000}, ck::DType::float32, own);
      address = a.address();
      view = a;
      view.set_stream(device().default_stream());
    }  // `a` and the stream's last handle are gone; the array's memory keeps it
    view.fill(1.0);
  }  // the block goes back to the pool, then the stream is destroyed
  device().synchronize();
  EXPECT_EQ(pool().stats().active_bytes, before.active_bytes);
  // Later requests of that class touch no dead stream and may reuse it.
  ck::Array again = ck::empty({25'000}, ck::DType::float32);
  again.fill(2.0);
  device().synchronize();
  EXPECT_NE(address, 0u);
  EXPECT_EQ(pool().stats().allocations, before.allocations + 1)
      << "the block of the destroyed stream was not reused on the default stream";
}

TEST_F(PoolStreams, BlockFreedOnABusyStreamIsNotGivenToAnother) {
  ck::Array busy = ck::zeros({1237}, ck::DType::float32, s1());
  std::uint64_t p = pool().allocate(block_bytes, s1().native());
  slow_scale(busy, s1());
  pool().deallocate(p, block_bytes, s1().native());
  std::uint64_t q = pool().allocate(block_bytes, s2().native());
  EXPECT_NE(q, p);
  pool().deallocate(q, block_bytes, s2().native());
}

TEST_F(PoolStreams, BlockFreedOnAnIdleStreamIsGivenToAnother) {
  std::uint64_t p = pool().allocate(block_bytes, s1().native());
  pool().deallocate(p, block_bytes, s1().native());
  s1().synchronize();
  auto before = pool().stats();
  EXPECT_EQ(pool().allocate(block_bytes, s2().native()), p);
  EXPECT_EQ(pool().stats().cross_stream_hits - before.cross_stream_hits, 1u);
  EXPECT_EQ(pool().stats().allocations, before.allocations);
  pool().deallocate(p, block_bytes, s2().native());
}

TEST_F(PoolStreams, BlockIsGivenToAnotherStreamOnceItsWorkHasCompleted) {
  ck::Array busy = ck::zeros({1237}, ck::DType::float32, s1());
  std::uint64_t p = pool().allocate(block_bytes, s1().native());
  slow_scale(busy, s1());
  pool().deallocate(p, block_bytes, s1().native());
  std::uint64_t q = pool().allocate(block_bytes, s2().native());  // records the event
  EXPECT_NE(q, p);
  s1().synchronize();
  EXPECT_EQ(pool().allocate(block_bytes, s2().native()), p);
  pool().deallocate(p, block_bytes, s2().native());
  pool().deallocate(q, block_bytes, s2().native());
}

TEST_F(PoolStreams, RecordedStreamHoldsTheBlockBackUntilItsWorkCompletes) {
  ck::Array busy = ck::zeros({1237}, ck::DType::float32, s2());
  std::uint64_t p = pool().allocate(block_bytes, s1().native());
  pool().record_stream(p, s2());
  slow_scale(busy, s2());  // stands for s2's work on the block
  pool().deallocate(p, block_bytes, s1().native());
  std::uint64_t same = pool().allocate(block_bytes, s1().native());
  std::uint64_t third = pool().allocate(block_bytes, s3().native());
  EXPECT_NE(same, p);
  EXPECT_NE(third, p);
  s2().synchronize();
  EXPECT_EQ(pool().allocate(block_bytes, s1().native()), p);
  pool().deallocate(p, block_bytes, s1().native());
  pool().deallocate(same, block_bytes, s1().native());
  pool().deallocate(third, block_bytes, s3().native());
}

TEST_F(PoolStreams, FreeAllReleasesBlocksStillHeldForOtherStreams) {
  ck::Array busy = ck::zeros({1237}, ck::DType::float32, s2());
  std::uint64_t p = pool().allocate(block_bytes, s1().native());
  pool().record_stream(p, s2());
  slow_scale(busy, s2());
  pool().deallocate(p, block_bytes, s1().native());
  busy = ck::Array();
  pool().free_all();  // waits for s2, then returns the block
  auto stats = pool().stats();
  EXPECT_EQ(stats.held_bytes, stats.active_bytes);
}

TEST_F(PoolStreams, RecordStreamIgnoresANullPointer) {
  EXPECT_NO_THROW(pool().record_stream(0, s1()));
}

// Several host threads, each with its own stream, allocate blocks of a few
// classes, stamp them with a value of their own and check them (half the
// time on another thread's stream, after an event, with record_stream as
// the array layer does), keep a varying number of them alive and now and
// then let their stream run dry, so that blocks pass between the streams.
// A block given to a stream before the previous owner's check ran would be
// overwritten under it and counted.
TEST_F(PoolStreams, ConcurrentStreamsNeverSeeEachOthersData) {
  constexpr int threads = 4;
  constexpr int rounds = 80;
  constexpr long long stamp_ticks = 20'000, check_ticks = 200'000;
  std::vector<ck::Stream> streams;
  for (int t = 0; t < threads; ++t) streams.push_back(device().create_stream());
  std::vector<ck::Array> errors;
  for (int t = 0; t < threads; ++t)
    errors.push_back(ck::zeros({1}, ck::DType::int32, streams[static_cast<std::size_t>(t)]));
  for (auto& s : streams) s.synchronize();
  const ck::Kernel stamp = module().kernel("stamp");
  const ck::Kernel check = module().kernel("check");
  const auto before = pool().stats();
  auto work = [&](int t) {
    try {
      std::mt19937 choices(static_cast<unsigned>(t) * 7919u + 17u);
      const ck::Stream& own = streams[static_cast<std::size_t>(t)];
      std::deque<ck::Array> alive;
      for (int r = 0; r < rounds; ++r) {
        const auto n = static_cast<std::int64_t>(1000 + (choices() % 3) * 3000 + choices() % 77);
        const int value = t * 100000 + r + 1;
        ck::Array block = ck::empty({n}, ck::DType::int32, own);
        ck::LaunchConfig on_own = ck::grid_for(static_cast<std::size_t>(n), 128, own);
        stamp.launch(on_own, block, static_cast<int>(n), value, stamp_ticks);
        if (choices() % 2) {
          // Checked on the next thread's stream: it waits for the stamp, and
          // the block stays reserved for it after being freed on `own`.
          const int u = (t + 1) % threads;
          const ck::Stream& other = streams[static_cast<std::size_t>(u)];
          other.wait(own.record());
          ck::MemoryPool::of(device()).record_stream(block.storage()->address, other);
          check.launch(ck::grid_for(static_cast<std::size_t>(n), 128, other), block,
                       static_cast<int>(n), value, check_ticks,
                       errors[static_cast<std::size_t>(u)]);
        } else {
          check.launch(on_own, block, static_cast<int>(n), value, check_ticks,
                       errors[static_cast<std::size_t>(t)]);
        }
        alive.push_back(std::move(block));
        while (alive.size() > choices() % 5) alive.pop_front();
        if (r % 6 == 5) {
          alive.clear();
          own.synchronize();  // its blocks are now free for any stream
        }
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "thread " << t << ": " << e.what();
    }
  };
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) workers.emplace_back(work, t);
  for (auto& w : workers) w.join();
  for (auto& s : streams) s.synchronize();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(errors[static_cast<std::size_t>(t)].item(0).as_int64(), 0) << "thread " << t;
  const auto after = pool().stats();
  EXPECT_GT(after.hits, before.hits);
  // How many blocks passed between streams (tens of the ~260 hits here).
  RecordProperty("cross_stream_hits",
                 static_cast<int>(after.cross_stream_hits - before.cross_stream_hits));
}

}  // namespace
}  // namespace array_test
