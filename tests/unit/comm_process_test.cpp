// Communicators across processes on the CPU backend: this test program
// starts itself again as rank 1 (the id passed hex-encoded in the
// environment), and both ranks run the same collectives over the TCP hub of
// the parent's get_unique_id(), each checking its results against a
// reference built from the same seeds. Also: a rank whose process dies.
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <span>
#include <string>

#include "comm_test_util.hpp"
#include "cudakit/communicator.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "unit/child_process.hpp"

namespace {

using namespace cudakit;
using namespace comm_test;
using namespace std::chrono_literals;

constexpr std::size_t kCount = 1001;
constexpr int kRanks = 2;

// Rank r's input of collective `which`, the same in every process.
template <class T>
std::vector<T> input(unsigned long long seed, int which, int rank, std::size_t n,
                     ReduceOp op = ReduceOp::sum) {
  std::mt19937_64 rng(seed * 1000003ULL + static_cast<unsigned long long>(which * 16 + rank));
  return random_values<T>(rng, n, op);
}

template <class T>
std::vector<std::vector<T>> inputs(unsigned long long seed, int which, std::size_t n,
                                   ReduceOp op = ReduceOp::sum) {
  std::vector<std::vector<T>> all;
  for (int r = 0; r < kRanks; ++r) all.push_back(input<T>(seed, which, r, n, op));
  return all;
}

template <class T>
DeviceBuffer<T> upload(const Device& d, const std::vector<T>& host) {
  DeviceBuffer<T> b(d, host.size());
  b.copy_from(std::span<const T>(host));
  return b;
}

// The whole exchange of one rank, checked with gtest assertions.
void run_rank(const UniqueId& id, int rank, unsigned long long seed) {
  const Device device = Device::get(BackendKind::cpu, 0);
  Communicator comm = Communicator::create(kRanks, id, rank, device, 30s);
  ASSERT_EQ(comm.rank(), rank);
  ASSERT_EQ(comm.size(), kRanks);
  const Stream stream = device.create_stream();
  const auto me = static_cast<std::size_t>(rank);

  const auto sums = inputs<float>(seed, 0, kCount);
  auto summed = upload(device, sums[me]);
  comm.all_reduce(summed, ReduceOp::sum, stream);

  const auto maxima = inputs<std::int64_t>(seed, 1, kCount);
  auto maximum_in = upload(device, maxima[me]);
  DeviceBuffer<std::int64_t> maximum(device, kCount);
  comm.all_reduce(maximum_in, maximum, ReduceOp::max, stream);

  const auto broadcasts = inputs<std::int32_t>(seed, 2, kCount);
  auto broadcast = upload(device, broadcasts[me]);
  comm.broadcast(broadcast, 1, stream);

  const auto gathers = inputs<double>(seed, 3, kCount);
  auto gather_in = upload(device, gathers[me]);
  DeviceBuffer<double> gathered(device, kCount * kRanks);
  comm.all_gather(gather_in, gathered, stream);

  const auto scatters = inputs<float>(seed, 4, kCount * kRanks);
  auto scatter_in = upload(device, scatters[me]);
  DeviceBuffer<float> scattered(device, kCount);
  comm.reduce_scatter(scatter_in, scattered, ReduceOp::sum, stream);

  const auto exchanges = inputs<std::uint8_t>(seed, 5, kCount * kRanks);
  auto exchange_in = upload(device, exchanges[me]);
  DeviceBuffer<std::uint8_t> exchanged(device, kCount * kRanks);
  comm.all_to_all(exchange_in, exchanged, stream);

  const auto messages = inputs<Half>(seed, 6, kCount);
  auto message_out = upload(device, messages[me]);
  DeviceBuffer<Half> message_in(device, kCount);
  {
    Communicator::Group group(BackendKind::cpu);
    comm.send(message_out, 1 - rank, stream);
    comm.recv(message_in, 1 - rank, stream);
    group.end();
  }
  stream.synchronize();

  const auto got_sum = summed.to_host();
  const auto got_max = maximum.to_host();
  for (std::size_t k = 0; k < kCount; ++k) {
    ASSERT_TRUE(close(got_sum[k], reduce_reference(sums, k, ReduceOp::sum))) << k;
    ASSERT_TRUE(close(got_max[k], reduce_reference(maxima, k, ReduceOp::max))) << k;
  }
  EXPECT_EQ(broadcast.to_host(), broadcasts[1]);
  std::vector<double> all_gathered = gathers[0];
  all_gathered.insert(all_gathered.end(), gathers[1].begin(), gathers[1].end());
  EXPECT_EQ(gathered.to_host(), all_gathered);
  const auto got_scatter = scattered.to_host();
  for (std::size_t k = 0; k < kCount; ++k)
    ASSERT_TRUE(close(got_scatter[k], reduce_reference(scatters, me * kCount + k, ReduceOp::sum)));
  std::vector<std::uint8_t> expected_exchange;
  for (int p = 0; p < kRanks; ++p) {
    const auto& from = exchanges[static_cast<std::size_t>(p)];
    expected_exchange.insert(expected_exchange.end(), from.begin() + static_cast<long>(me * kCount),
                             from.begin() + static_cast<long>((me + 1) * kCount));
  }
  EXPECT_EQ(exchanged.to_host(), expected_exchange);
  const auto got_message = message_in.to_host();
  const auto& sent = messages[1 - me];
  for (std::size_t k = 0; k < kCount; ++k) ASSERT_EQ(got_message[k].bits, sent[k].bits) << k;
}

std::string child_command(const std::string& test, const UniqueId& id, unsigned long long seed) {
  return "CUDAKIT_COMM_TEST_ID=" + id.to_hex() + " CUDAKIT_COMM_TEST_SEED=" + std::to_string(seed) +
         " '" + test::self_path() + "' --gtest_filter=CommPeer." + test + " 2>&1";
}

// ---- the child's side: runs only when started by the tests below ----------------------------

bool started_as_peer(UniqueId& id, unsigned long long& seed) {
  const char* hex = std::getenv("CUDAKIT_COMM_TEST_ID");
  const char* seed_text = std::getenv("CUDAKIT_COMM_TEST_SEED");
  if (!hex || !seed_text) return false;
  id = UniqueId::from_hex(hex);
  seed = std::strtoull(seed_text, nullptr, 10);
  return true;
}

TEST(CommPeer, RankOne) {
  UniqueId id;
  unsigned long long seed = 0;
  if (!started_as_peer(id, seed)) GTEST_SKIP() << "runs as the child of CommProcesses tests";
  run_rank(id, 1, seed);
}

TEST(CommPeer, JoinsThenDies) {
  UniqueId id;
  unsigned long long seed = 0;
  if (!started_as_peer(id, seed)) GTEST_SKIP() << "runs as the child of CommProcesses tests";
  Communicator comm = Communicator::create(kRanks, id, 1, Device::get(BackendKind::cpu, 0), 30s);
  std::_Exit(3);  // as a crash would: no collective, the socket closed by the kernel
}

// ---- the parent's side ------------------------------------------------------------------------

TEST(CommProcesses, TwoProcessesRunEveryCollectiveThroughTheHub) {
  const UniqueId id = get_unique_id(BackendKind::cpu);
  const unsigned long long seed = std::random_device{}();
  auto child = std::async(std::launch::async,
                          [&] { return test::run_process(child_command("RankOne", id, seed)); });
  run_rank(id, 0, seed);
  const test::ProcessResult peer = child.get();
  EXPECT_EQ(peer.exit_code, 0) << peer.output;
  EXPECT_NE(peer.output.find("[  PASSED  ] 1 test"), std::string::npos) << peer.output;
}

// One thread per rank in one process, each with its own virtual device, as
// one process per GPU would be: the ranks meet through the same hub.
TEST(CommProcesses, ThreadsOfOneProcessJoinAsRanksOfOneCommunicator) {
  if (Device::count(BackendKind::cpu) < kRanks) GTEST_SKIP() << "needs CUDAKIT_CPU_DEVICES=2";
  const UniqueId id = get_unique_id(BackendKind::cpu);
  const auto values = inputs<double>(std::random_device{}(), 0, kCount);
  std::vector<std::future<std::vector<double>>> ranks;
  for (int rank = 0; rank < kRanks; ++rank)
    ranks.push_back(std::async(std::launch::async, [&, rank] {
      const Device device = Device::get(BackendKind::cpu, rank);
      Communicator comm = Communicator::create(kRanks, id, rank, device, 30s);
      auto buffer = upload(device, values[static_cast<std::size_t>(rank)]);
      const Stream stream = device.create_stream();
      comm.all_reduce(buffer, ReduceOp::sum, stream);
      stream.synchronize();
      return buffer.to_host();
    }));
  for (auto& rank : ranks) {
    const std::vector<double> got = rank.get();
    for (std::size_t k = 0; k < kCount; ++k)
      ASSERT_TRUE(close(got[k], reduce_reference(values, k, ReduceOp::sum))) << k;
  }
}

TEST(CommProcesses, ARankWhoseProcessDiesIsReportedAtOnce) {
  const UniqueId id = get_unique_id(BackendKind::cpu);
  auto child = std::async(std::launch::async,
                          [&] { return test::run_process(child_command("JoinsThenDies", id, 1)); });
  const Device device = Device::get(BackendKind::cpu, 0);
  Communicator comm = Communicator::create(kRanks, id, 0, device, 30s);
  EXPECT_EQ(child.get().exit_code, 3);
  DeviceBuffer<float> b(device, 16);
  const Stream stream = device.create_stream();
  const auto start = std::chrono::steady_clock::now();
  comm.all_reduce(b, ReduceOp::sum, stream);
  try {
    stream.synchronize();
    FAIL() << "expected CommunicatorError";
  } catch (const CommunicatorError& e) {
    EXPECT_EQ(e.missing_ranks(), std::vector<int>{1});
    EXPECT_NE(std::string(e.message()).find("rank 1 left the communicator"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s) << "waited for the timeout";
}

}  // namespace
