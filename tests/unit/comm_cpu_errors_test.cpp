// A communicator refuses bad input with a clear error and never hangs:
// ranks that disagree, buffers and streams of another device, roots and
// peers out of range, ops a dtype lacks, a rank that never arrives (a short
// timeout here), bad ids and timeouts. CPU backend, CUDAKIT_CPU_DEVICES=4.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "comm_test_util.hpp"
#include "cudakit/array.hpp"
#include "cudakit/communicator.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "unit/cuda_test_util.hpp"

namespace {

using namespace cudakit;
using namespace comm_test;
using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class CommErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Device::count(BackendKind::cpu) < 2) GTEST_SKIP() << "needs CUDAKIT_CPU_DEVICES=2";
  }
};

// Runs `post(rank)` on both ranks and returns the error their streams report.
template <class Post>
CommunicatorError disagreement(Ranks& ranks, Post post) {
  for (int r = 0; r < ranks.size(); ++r) post(r);
  try {
    ranks.synchronize();
  } catch (const CommunicatorError& e) {
    return e;
  }
  ADD_FAILURE() << "the ranks' streams reported no error";
  return CommunicatorError("", "");
}

TEST_F(CommErrors, CountsThatDifferAcrossRanksAreReportedPerRank) {
  Ranks ranks(2, 5s);
  DeviceBuffer<float> a(ranks.devices[0], 1001), b(ranks.devices[1], 1000);
  const auto e = disagreement(ranks, [&](int r) {
    if (r == 0) ranks.comms[0].all_reduce(a, ReduceOp::sum, ranks.streams[0]);
    if (r == 1) ranks.comms[1].all_reduce(b, ReduceOp::sum, ranks.streams[1]);
  });
  EXPECT_TRUE(contains(e.message(), "rank 0: all_reduce of 1001 float32")) << e.what();
  EXPECT_TRUE(contains(e.message(), "rank 1: all_reduce of 1000 float32")) << e.what();
  EXPECT_TRUE(contains(e.hint(), "same count")) << e.what();
}

TEST_F(CommErrors, DtypesThatDifferAcrossRanksAreReported) {
  Ranks ranks(2, 5s);
  DeviceBuffer<float> a(ranks.devices[0], 64);
  DeviceBuffer<std::int32_t> b(ranks.devices[1], 64);
  const auto e = disagreement(ranks, [&](int r) {
    if (r == 0) ranks.comms[0].all_reduce(a, ReduceOp::sum, ranks.streams[0]);
    if (r == 1) ranks.comms[1].all_reduce(b, ReduceOp::sum, ranks.streams[1]);
  });
  EXPECT_TRUE(contains(e.message(), "64 float32")) << e.what();
  EXPECT_TRUE(contains(e.message(), "64 int32")) << e.what();
}

TEST_F(CommErrors, DifferentCollectivesAtTheSamePlaceAreReported) {
  Ranks ranks(2, 5s);
  DeviceBuffer<float> a(ranks.devices[0], 8), b(ranks.devices[1], 8);
  const auto e = disagreement(ranks, [&](int r) {
    if (r == 0) ranks.comms[0].all_reduce(a, ReduceOp::sum, ranks.streams[0]);
    if (r == 1) ranks.comms[1].broadcast(b, 0, ranks.streams[1]);
  });
  EXPECT_TRUE(contains(e.message(), "rank 1: broadcast of 8 float32 with root 0")) << e.what();
}

TEST_F(CommErrors, ARankThatNeverArrivesIsNamedAfterTheTimeout) {
  Ranks ranks(2, 1s);
  DeviceBuffer<float> a(ranks.devices[0], 16);
  const auto start = std::chrono::steady_clock::now();
  ranks.comms[0].all_reduce(a, ReduceOp::sum, ranks.streams[0]);
  try {
    ranks.streams[0].synchronize();
    FAIL() << "expected CommunicatorError";
  } catch (const CommunicatorError& e) {
    EXPECT_EQ(e.missing_ranks(), std::vector<int>{1});
    EXPECT_TRUE(contains(e.message(), "rank 1 did not arrive within 1 s")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_COMM_TIMEOUT")) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
}

TEST_F(CommErrors, ARecvWithoutASendNamesThePeerAfterTheTimeout) {
  Ranks ranks(2, 1s);
  DeviceBuffer<double> a(ranks.devices[1], 16);
  ranks.comms[1].recv(a, 0, ranks.streams[1]);
  try {
    ranks.streams[1].synchronize();
    FAIL() << "expected CommunicatorError";
  } catch (const CommunicatorError& e) {
    EXPECT_EQ(e.missing_ranks(), std::vector<int>{0});
    EXPECT_TRUE(contains(e.message(), "rank 0 sent nothing within 1 s")) << e.what();
  }
}

TEST_F(CommErrors, ASendAndRecvThatDisagreeAreReported) {
  Ranks ranks(2, 5s);
  DeviceBuffer<float> sent(ranks.devices[0], 10), received(ranks.devices[1], 12);
  ranks.comms[0].send(sent, 1, ranks.streams[0]);
  ranks.comms[1].recv(received, 0, ranks.streams[1]);
  try {
    ranks.synchronize();
    FAIL() << "expected CommunicatorError";
  } catch (const CommunicatorError& e) {
    EXPECT_TRUE(contains(e.message(), "rank 0 sent 10 float32 but this rank receives 12 float32"))
        << e.what();
  }
}

TEST_F(CommErrors, ABufferOnAnotherDeviceIsRefusedAtTheCall) {
  Ranks ranks(2);
  DeviceBuffer<float> elsewhere(ranks.devices[1], 8), here(ranks.devices[0], 8);
  try {
    ranks.comms[0].all_reduce(elsewhere, here, ReduceOp::sum, ranks.streams[0]);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "send buffer is on cpu device 1")) << e.what();
    EXPECT_TRUE(contains(e.message(), "this rank's device is cpu device 0")) << e.what();
  }
}

TEST_F(CommErrors, AStreamOfAnotherDeviceIsRefusedAtTheCall) {
  Ranks ranks(2);
  DeviceBuffer<float> here(ranks.devices[0], 8);
  try {
    ranks.comms[0].all_reduce(here, ReduceOp::sum, ranks.streams[1]);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "stream belongs to cpu device 1")) << e.what();
  }
}

TEST_F(CommErrors, RootsAndPeersOutOfRangeAreRefused) {
  Ranks ranks(2);
  DeviceBuffer<float> b(ranks.devices[0], 8);
  try {
    ranks.comms[0].reduce(b, b, ReduceOp::sum, 2, ranks.streams[0]);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "the root 2 is outside 0..1")) << e.what();
  }
  EXPECT_THROW(ranks.comms[0].broadcast(b, -1, ranks.streams[0]), ArgumentError);
  try {
    ranks.comms[0].send(b, 5, ranks.streams[0]);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "the peer 5 is outside 0..1")) << e.what();
  }
}

TEST_F(CommErrors, OpsADtypeLacksAreRefused) {
  Ranks ranks(2);
  DeviceBuffer<std::int32_t> ints(ranks.devices[0], 8);
  DeviceBuffer<std::int16_t> shorts(ranks.devices[0], 8);
  DeviceBuffer<std::complex<float>> complexes(ranks.devices[0], 8);
  try {
    ranks.comms[0].all_reduce(ints, ReduceOp::avg, ranks.streams[0]);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "avg is defined for floating-point dtypes only")) << e.what();
  }
  EXPECT_THROW(ranks.comms[0].all_reduce(shorts, ReduceOp::sum, ranks.streams[0]), ArgumentError);
  EXPECT_THROW(ranks.comms[0].all_reduce(complexes, ReduceOp::max, ranks.streams[0]),
               ArgumentError);
}

TEST_F(CommErrors, BuffersTooSmallForTheOperationAreRefused) {
  Ranks ranks(2);
  DeviceBuffer<float> send(ranks.devices[0], 10), recv(ranks.devices[0], 19);
  try {
    ranks.comms[0].all_gather(send, recv, ranks.streams[0]);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "recv buffer holds 19 elements; the operation needs 20"))
        << e.what();
  }
  DeviceBuffer<float> odd(ranks.devices[0], 11);
  EXPECT_THROW(ranks.comms[0].all_to_all(odd, odd, ranks.streams[0]), ArgumentError);
}

TEST_F(CommErrors, ArraysOfTwoDtypesOrNotContiguousAreRefused) {
  Ranks ranks(2);
  const Stream stream = ranks.devices[0].default_stream();
  const Array floats = zeros({4, 6}, DType::float32, stream);
  const Array doubles = zeros({24}, DType::float64, stream);
  try {
    ranks.comms[0].all_reduce(floats, doubles, ReduceOp::sum, stream);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "send buffer holds float32 but the recv buffer float64"))
        << e.what();
  }
  try {
    ranks.comms[0].all_reduce(floats.T(), floats.T(), ReduceOp::sum, stream);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "not C-contiguous")) << e.what();
  }
}

TEST_F(CommErrors, LocalRefusesADeviceTwiceAndNoDevices) {
  const Device d = Device::get(BackendKind::cpu, 0);
  const std::vector<Device> twice{d, d};
  EXPECT_THROW(Communicator::local(twice), ArgumentError);
  EXPECT_THROW(Communicator::local(std::span<const Device>()), ArgumentError);
}

TEST_F(CommErrors, GroupEndWithoutGroupStartIsRefused) {
  EXPECT_THROW(Communicator::group_end(BackendKind::cpu), ArgumentError);
}

TEST(CommTimeout, ComesFromTheEnvironmentInSeconds) {
  {
    cudakit::test::ScopedEnv env("CUDAKIT_COMM_TIMEOUT", std::nullopt);
    EXPECT_EQ(Communicator::default_timeout(), 60s);
  }
  {
    cudakit::test::ScopedEnv env("CUDAKIT_COMM_TIMEOUT", "0.5");
    EXPECT_EQ(Communicator::default_timeout(), 500ms);
  }
  for (const char* bad : {"soon", "-3", "0", "1e400"}) {
    cudakit::test::ScopedEnv env("CUDAKIT_COMM_TIMEOUT", bad);
    EXPECT_THROW(Communicator::default_timeout(), ArgumentError) << bad;
  }
}

TEST(CommUniqueId, RoundTripsThroughHexAndRefusesOtherText) {
  UniqueId id = get_unique_id(BackendKind::cpu);
  EXPECT_EQ(UniqueId::from_hex(id.to_hex()), id);
  EXPECT_EQ(UniqueId::from_bytes(id.bytes()), id);
  EXPECT_THROW(UniqueId::from_hex("abc"), ArgumentError);
  EXPECT_THROW(UniqueId::from_hex(std::string(256, 'g')), ArgumentError);
  EXPECT_THROW(UniqueId::from_bytes(std::vector<std::uint8_t>(5)), ArgumentError);
}

TEST(CommUniqueId, AnIdNotMadeByTheCpuBackendIsRefused) {
  const Device d = Device::get(BackendKind::cpu, 0);
  try {
    Communicator::create(2, UniqueId(), 0, d, 1s);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.message(), "not made by the CPU backend")) << e.what();
  }
}

TEST(CommCreate, ARankThatNeverJoinsIsNamedAfterTheTimeout) {
  const Device d = Device::get(BackendKind::cpu, 0);
  const UniqueId id = get_unique_id(BackendKind::cpu);
  try {
    Communicator::create(3, id, 0, d, 1s);
    FAIL() << "expected CommunicatorError";
  } catch (const CommunicatorError& e) {
    EXPECT_EQ(e.missing_ranks(), (std::vector<int>{1, 2}));
    EXPECT_TRUE(contains(e.message(), "ranks 1, 2 did not join within 1 s")) << e.what();
  }
}

TEST(CommCreate, ARankOutsideTheCommunicatorIsRefused) {
  const Device d = Device::get(BackendKind::cpu, 0);
  EXPECT_THROW(Communicator::create(2, get_unique_id(BackendKind::cpu), 2, d), ArgumentError);
  EXPECT_THROW(Communicator::create(0, get_unique_id(BackendKind::cpu), 0, d), ArgumentError);
}

}  // namespace
