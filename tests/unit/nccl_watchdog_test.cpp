// The NCCL watchdog's bookkeeping without a GPU (fake events and abort):
// completed operations are released, a late one aborts its communicator's
// group and files a CommunicatorError for every stream with pending work of
// that group (and only those), the message names the operation, rank,
// timeout and knob; wait_idle returns; the abort waits while a caller holds
// the group's lock. And the stream faults the synchronize hooks take.
#include "backend/cuda/nccl_watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/stream_faults.hpp"
#include "cudakit/error.hpp"

namespace {

using namespace cudakit;
using namespace cudakit::detail;
using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fake event: a flag the test sets.
struct FakeEvent {
  std::atomic<bool> done{false};
};

NativeEvent as_event(FakeEvent& e) { return &e; }
NativeStream stream_no(std::uintptr_t n) { return reinterpret_cast<NativeStream>(n); }

// What the hooks saw.
struct Seen {
  std::mutex mutex;
  std::vector<NativeEvent> released;
  std::vector<std::pair<NativeStream, std::string>> failed;  // stream, what()
  std::vector<AbortGroup*> aborted;
  std::atomic<int> queries{0};
};

CollectiveWatchdog::Hooks fake_hooks(Seen& seen) {
  CollectiveWatchdog::Hooks h;
  h.completed = [&seen](NativeEvent e, int) {
    ++seen.queries;
    return static_cast<FakeEvent*>(e)->done.load();
  };
  h.release = [&seen](NativeEvent e, int) {
    std::lock_guard lock(seen.mutex);
    seen.released.push_back(e);
  };
  h.fail_stream = [&seen](NativeStream s, int, std::exception_ptr error) {
    try {
      std::rethrow_exception(error);
    } catch (const CommunicatorError& e) {
      std::lock_guard lock(seen.mutex);
      seen.failed.emplace_back(s, e.what());
    }
  };
  h.abort = [&seen](AbortGroup& g) {
    std::lock_guard lock(seen.mutex);
    seen.aborted.push_back(&g);
  };
  return h;
}

std::shared_ptr<WatchedComm> make_comm(std::shared_ptr<AbortGroup> group, int rank, int nranks,
                                       std::chrono::milliseconds timeout) {
  auto comm = std::make_shared<WatchedComm>();
  comm->rank = rank;
  comm->nranks = nranks;
  comm->timeout = timeout;
  comm->group = std::move(group);
  return comm;
}

// Waits up to 10 s for `condition` (a regression fails, never hangs).
template <class F>
bool eventually(F condition) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(NcclWatchdog, CompletedOperationsAreReleasedAndNothingIsAborted) {
  Seen seen;
  CollectiveWatchdog dog(fake_hooks(seen), 1ms);
  auto comm = make_comm(std::make_shared<AbortGroup>(), 0, 2, 10s);
  FakeEvent a, b;
  dog.watch(*comm, stream_no(1), as_event(a), "all_reduce of 7 float32");
  dog.watch(*comm, stream_no(1), as_event(b), "broadcast of 7 float32 with root 1");
  EXPECT_EQ(dog.pending(), 2u);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(dog.pending(), 2u);
  a.done = true;
  ASSERT_TRUE(eventually([&] { return dog.pending() == 1; }));
  b.done = true;
  dog.wait_idle(*comm);
  EXPECT_EQ(dog.pending(), 0u);
  std::lock_guard lock(seen.mutex);
  EXPECT_EQ(seen.released, (std::vector<NativeEvent>{as_event(a), as_event(b)}));
  EXPECT_TRUE(seen.failed.empty());
  EXPECT_TRUE(seen.aborted.empty());
  EXPECT_FALSE(comm->group->aborted);
}

TEST(NcclWatchdog, OnlyTheOldestEventOfAStreamIsAsked) {
  Seen seen;
  CollectiveWatchdog dog(fake_hooks(seen), 1ms);
  auto comm = make_comm(std::make_shared<AbortGroup>(), 0, 1, 10s);
  FakeEvent first, second;
  second.done = true;
  dog.watch(*comm, stream_no(1), as_event(first), "send of 1 int8 to peer 0");
  dog.watch(*comm, stream_no(1), as_event(second), "recv of 1 int8 from peer 0");
  ASSERT_TRUE(eventually([&] { return seen.queries >= 5; }));
  EXPECT_EQ(dog.pending(), 2u);
  first.done = true;
  dog.wait_idle(*comm);
  EXPECT_EQ(dog.pending(), 0u);
}

TEST(NcclWatchdog, ALateOperationAbortsItsGroupAndFailsItsStreams) {
  Seen seen;
  CollectiveWatchdog dog(fake_hooks(seen), 1ms);
  auto group = std::make_shared<AbortGroup>();
  auto rank0 = make_comm(group, 0, 2, 50ms);
  auto rank1 = make_comm(group, 1, 2, 10s);
  auto other = make_comm(std::make_shared<AbortGroup>(), 0, 1, 10s);
  FakeEvent late, sibling, bystander;
  const auto start = std::chrono::steady_clock::now();
  dog.watch(*rank0, stream_no(1), as_event(late), "recv of 16 float32 from peer 1");
  dog.watch(*rank1, stream_no(2), as_event(sibling), "send of 16 float32 to peer 0");
  dog.watch(*other, stream_no(3), as_event(bystander), "all_reduce of 3 float64");
  dog.wait_idle(*rank0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
  ASSERT_TRUE(group->aborted);
  dog.wait_idle(*rank1);  // its pending operation went with the abort
  EXPECT_EQ(dog.pending(), 1u);
  {
    std::lock_guard lock(seen.mutex);
    ASSERT_EQ(seen.aborted, std::vector<AbortGroup*>{group.get()});
    ASSERT_EQ(seen.failed.size(), 2u);
    EXPECT_EQ(seen.failed[0].first, stream_no(1));
    EXPECT_EQ(seen.failed[1].first, stream_no(2));
    const std::string& text = seen.failed[0].second;
    for (const char* part :
         {"recv of 16 float32 from peer 1", "rank 0 of 2", "within 0.05 s", "did not arrive",
          "died", "aborted", "new communicator", "CUDAKIT_COMM_TIMEOUT", "create()"})
      EXPECT_TRUE(contains(text, part)) << part << " missing in: " << text;
    EXPECT_EQ(seen.released.size(), 2u);
  }
  EXPECT_TRUE(contains(group->reason, "recv of 16 float32 from peer 1 on rank 0 of 2"));
  const std::string later = aborted_error(*rank1, "all_reduce of 4 float32").what();
  EXPECT_TRUE(contains(later, "all_reduce of 4 float32 on rank 1 of 2")) << later;
  EXPECT_TRUE(contains(later, "aborted earlier")) << later;
  EXPECT_TRUE(contains(later, "recv of 16 float32 from peer 1")) << later;
  EXPECT_FALSE(other->group->aborted);
  bystander.done = true;
  dog.wait_idle(*other);
}

TEST(NcclWatchdog, TheAbortWaitsWhileACallerHoldsTheGroup) {
  Seen seen;
  CollectiveWatchdog dog(fake_hooks(seen), 1ms);
  auto comm = make_comm(std::make_shared<AbortGroup>(), 0, 1, 10ms);
  FakeEvent never;
  {
    std::lock_guard calls(comm->group->calls);
    dog.watch(*comm, stream_no(1), as_event(never), "recv of 1 int32 from peer 0");
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(comm->group->aborted);
  }
  dog.wait_idle(*comm);
  EXPECT_TRUE(comm->group->aborted);
  std::lock_guard lock(seen.mutex);
  EXPECT_EQ(seen.aborted.size(), 1u);
}

TEST(NcclWatchdog, AGroupHeldByACallerDoesNotDelayTheAbortOfAnother) {
  Seen seen;
  CollectiveWatchdog dog(fake_hooks(seen), 1ms);
  auto held = make_comm(std::make_shared<AbortGroup>(), 0, 1, 10ms);
  auto other_comm = make_comm(std::make_shared<AbortGroup>(), 0, 1, 20ms);
  FakeEvent never1, never2;
  std::unique_lock calls(held->group->calls);
  dog.watch(*held, stream_no(1), as_event(never1), "recv of 1 int32 from peer 0");
  {
    std::lock_guard other(other_comm->group->calls);
    dog.watch(*other_comm, stream_no(2), as_event(never2), "recv of 2 int32 from peer 0");
  }
  dog.wait_idle(*other_comm);
  EXPECT_TRUE(other_comm->group->aborted);
  EXPECT_FALSE(held->group->aborted);
  calls.unlock();
  dog.wait_idle(*held);
  EXPECT_TRUE(held->group->aborted);
}

TEST(NcclWatchdog, SecondsAreWrittenPlainly) {
  EXPECT_EQ(format_seconds(2000ms), "2 s");
  EXPECT_EQ(format_seconds(500ms), "0.5 s");
  EXPECT_EQ(format_seconds(60000ms), "60 s");
}

TEST(StreamFaults, SynchronizeTakesTheFirstErrorOfItsStreamOnce) {
  StreamFaults faults;
  faults.take(stream_no(1), -1);  // nothing filed: no throw
  faults.file(stream_no(1), 0, std::make_exception_ptr(CommunicatorError("first", "one")));
  faults.file(stream_no(1), 0, std::make_exception_ptr(CommunicatorError("second", "two")));
  faults.file(stream_no(5), 1, std::make_exception_ptr(CommunicatorError("other", "three")));
  EXPECT_EQ(faults.size(), 2u);
  faults.take(stream_no(3), -1);
  try {
    faults.take(stream_no(1), -1);
    FAIL() << "no error";
  } catch (const CommunicatorError& e) {
    EXPECT_TRUE(contains(e.what(), "first"));
  }
  faults.take(stream_no(1), -1);  // taken: no throw
  faults.take_on_device(0);       // stream 5 is on device 1
  EXPECT_THROW(faults.take_on_device(1), CommunicatorError);
  EXPECT_EQ(faults.size(), 0u);
  faults.file(stream_no(4), 0, std::make_exception_ptr(CommunicatorError("x", "y")));
  faults.forget(stream_no(4));
  faults.take(stream_no(4), -1);
  EXPECT_EQ(faults.size(), 0u);
}

TEST(StreamFaults, TheDefaultStreamOfEachDeviceKeepsItsOwn) {
  StreamFaults faults;
  faults.file(nullptr, 0, std::make_exception_ptr(CommunicatorError("device 0", "a")));
  faults.file(nullptr, 1, std::make_exception_ptr(CommunicatorError("device 1", "b")));
  EXPECT_EQ(faults.size(), 2u);
  faults.take(nullptr, 2);  // nothing on device 2
  try {
    faults.take(nullptr, 1);
    FAIL() << "no error";
  } catch (const CommunicatorError& e) {
    EXPECT_TRUE(contains(e.what(), "device 1"));
  }
  EXPECT_THROW(faults.take(nullptr, 0), CommunicatorError);
  EXPECT_EQ(faults.size(), 0u);
}

}  // namespace
