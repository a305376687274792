// Communicator's collectives on the CPU backend's virtual devices, in one
// process (the tests run with CUDAKIT_CPU_DEVICES=4): every collective,
// every op and dtype, on 2 and 4 ranks, in place and out of place, each
// checked against a host reference on fresh random input of an odd size.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <random>
#include <span>

#include "comm_test_util.hpp"
#include "cudakit/array.hpp"
#include "cudakit/communicator.hpp"
#include "cudakit/device_buffer.hpp"

namespace {

using namespace cudakit;
using namespace comm_test;

constexpr std::size_t kCount = 1001;

class CommCpu : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (Device::count(BackendKind::cpu) < GetParam())
      GTEST_SKIP() << "needs CUDAKIT_CPU_DEVICES=" << GetParam();
  }
  int nranks() const { return GetParam(); }
  std::mt19937_64 rng{std::random_device{}()};
};

// Uploads one random vector per rank (size count x blocks) to its device.
template <class T>
struct Inputs {
  std::vector<std::vector<T>> host;
  std::vector<DeviceBuffer<T>> device;
  Inputs(const Ranks& ranks, std::mt19937_64& rng, std::size_t n, ReduceOp op) {
    for (int r = 0; r < ranks.size(); ++r) {
      host.push_back(random_values<T>(rng, n, op));
      device.emplace_back(ranks.devices[static_cast<std::size_t>(r)], n);
      device.back().copy_from(std::span<const T>(host.back()));
    }
  }
};

template <class T>
void check_all_reduce(const Ranks& ranks, std::mt19937_64& rng, ReduceOp op, bool in_place) {
  Inputs<T> in(ranks, rng, kCount, op);
  std::vector<DeviceBuffer<T>> out;
  for (int r = 0; r < ranks.size(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (in_place) {
      ranks.comms[i].all_reduce(in.device[i], op, ranks.streams[i]);
    } else {
      out.emplace_back(ranks.devices[i], kCount);
      ranks.comms[i].all_reduce(in.device[i], out.back(), op, ranks.streams[i]);
    }
  }
  ranks.synchronize();
  for (std::size_t r = 0; r < static_cast<std::size_t>(ranks.size()); ++r) {
    const std::vector<T> got = in_place ? in.device[r].to_host() : out[r].to_host();
    for (std::size_t k = 0; k < kCount; ++k)
      ASSERT_TRUE(close(got[k], reduce_reference(in.host, k, op)))
          << to_string(dtype_of<T>()) << " " << to_string(op) << " rank " << r << " element " << k;
  }
}

template <class T>
void check_every_op(const Ranks& ranks, std::mt19937_64& rng) {
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg}) {
    if (op == ReduceOp::avg && !is_floating(dtype_of<T>())) continue;
    for (bool in_place : {false, true}) check_all_reduce<T>(ranks, rng, op, in_place);
  }
}

TEST_P(CommCpu, AllReduceOfEveryOpAndDtypeMatchesTheHostReference) {
  Ranks ranks(nranks());
  check_every_op<std::int8_t>(ranks, rng);
  check_every_op<std::uint8_t>(ranks, rng);
  check_every_op<std::int32_t>(ranks, rng);
  check_every_op<std::uint32_t>(ranks, rng);
  check_every_op<std::int64_t>(ranks, rng);
  check_every_op<std::uint64_t>(ranks, rng);
  check_every_op<Half>(ranks, rng);
  check_every_op<BFloat16>(ranks, rng);
  check_every_op<float>(ranks, rng);
  check_every_op<double>(ranks, rng);
}

TEST_P(CommCpu, ReduceLandsOnTheRootOnly) {
  Ranks ranks(nranks());
  const int root = nranks() - 1;
  Inputs<float> in(ranks, rng, kCount, ReduceOp::sum);
  // Each rank's upload comes after the earlier ranks' posts: a synchronous
  // copy does not wait for a collective still waiting for this thread.
  std::vector<DeviceBuffer<float>> out;
  for (std::size_t r = 0; r < in.device.size(); ++r) {
    out.emplace_back(ranks.devices[r], kCount);
    out.back().copy_from(std::span<const float>(std::vector<float>(kCount, -7.0f)));
    ranks.comms[r].reduce(in.device[r], out[r], ReduceOp::max, root, ranks.streams[r]);
  }
  ranks.synchronize();
  for (std::size_t r = 0; r < out.size(); ++r) {
    const auto got = out[r].to_host();
    for (std::size_t k = 0; k < kCount; ++k) {
      if (static_cast<int>(r) == root)
        ASSERT_TRUE(close(got[k], reduce_reference(in.host, k, ReduceOp::max))) << k;
      else
        ASSERT_EQ(got[k], -7.0f) << "rank " << r << " is not the root but its recv changed";
    }
  }
}

TEST_P(CommCpu, BroadcastCopiesTheRootsDataInPlaceAndOutOfPlace) {
  for (bool in_place : {false, true}) {
    Ranks ranks(nranks());
    const int root = 1;
    Inputs<std::int64_t> in(ranks, rng, kCount, ReduceOp::sum);
    std::vector<DeviceBuffer<std::int64_t>> out;
    for (std::size_t r = 0; r < in.device.size(); ++r) {
      if (in_place) {
        ranks.comms[r].broadcast(in.device[r], root, ranks.streams[r]);
      } else {
        out.emplace_back(ranks.devices[r], kCount);
        ranks.comms[r].broadcast(in.device[r], out.back(), root, ranks.streams[r]);
      }
    }
    ranks.synchronize();
    for (std::size_t r = 0; r < in.device.size(); ++r)
      EXPECT_EQ(in_place ? in.device[r].to_host() : out[r].to_host(), in.host[root])
          << "rank " << r;
  }
}

TEST_P(CommCpu, AllGatherConcatenatesTheRanksInRankOrder) {
  Ranks ranks(nranks());
  Inputs<double> in(ranks, rng, kCount, ReduceOp::sum);
  std::vector<double> expected;
  for (const auto& h : in.host) expected.insert(expected.end(), h.begin(), h.end());
  std::vector<DeviceBuffer<double>> out;
  for (std::size_t r = 0; r < in.device.size(); ++r) {
    out.emplace_back(ranks.devices[r], kCount * in.device.size());
    ranks.comms[r].all_gather(in.device[r], out.back(), ranks.streams[r]);
  }
  ranks.synchronize();
  for (std::size_t r = 0; r < out.size(); ++r) EXPECT_EQ(out[r].to_host(), expected) << r;
}

TEST_P(CommCpu, ReduceScatterGivesEachRankItsReducedBlock) {
  Ranks ranks(nranks());
  const std::size_t n = static_cast<std::size_t>(nranks());
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg}) {
    Inputs<float> in(ranks, rng, kCount * n, op);
    std::vector<DeviceBuffer<float>> out;
    for (std::size_t r = 0; r < n; ++r) {
      out.emplace_back(ranks.devices[r], kCount);
      ranks.comms[r].reduce_scatter(in.device[r], out.back(), op, ranks.streams[r]);
    }
    ranks.synchronize();
    for (std::size_t r = 0; r < n; ++r) {
      const auto got = out[r].to_host();
      for (std::size_t k = 0; k < kCount; ++k)
        ASSERT_TRUE(close(got[k], reduce_reference(in.host, r * kCount + k, op)))
            << to_string(op) << " rank " << r << " element " << k;
    }
  }
}

TEST_P(CommCpu, AllToAllSendsBlockPToRankP) {
  Ranks ranks(nranks());
  const std::size_t n = static_cast<std::size_t>(nranks());
  Inputs<std::int32_t> in(ranks, rng, kCount * n, ReduceOp::sum);
  std::vector<DeviceBuffer<std::int32_t>> out;
  for (std::size_t r = 0; r < n; ++r) {
    out.emplace_back(ranks.devices[r], kCount * n);
    ranks.comms[r].all_to_all(in.device[r], out.back(), ranks.streams[r]);
  }
  ranks.synchronize();
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<std::int32_t> expected;
    for (std::size_t p = 0; p < n; ++p)
      expected.insert(expected.end(), in.host[p].begin() + static_cast<long>(r * kCount),
                      in.host[p].begin() + static_cast<long>((r + 1) * kCount));
    EXPECT_EQ(out[r].to_host(), expected) << "rank " << r;
  }
}

// Each rank sends to the next and receives from the previous, in one group
// per rank (so neither waits for the other first).
TEST_P(CommCpu, SendAndRecvPassDataAroundARing) {
  Ranks ranks(nranks());
  const int n = nranks();
  Inputs<std::uint8_t> in(ranks, rng, kCount, ReduceOp::sum);
  std::vector<DeviceBuffer<std::uint8_t>> out;
  for (int r = 0; r < n; ++r) out.emplace_back(ranks.devices[static_cast<std::size_t>(r)], kCount);
  {
    Communicator::Group group(BackendKind::cpu);
    for (int r = 0; r < n; ++r) {
      const auto i = static_cast<std::size_t>(r);
      ranks.comms[i].recv(out[i], (r + n - 1) % n, ranks.streams[i]);
      ranks.comms[i].send(in.device[i], (r + 1) % n, ranks.streams[i]);
    }
    group.end();
  }
  ranks.synchronize();
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(out[static_cast<std::size_t>(r)].to_host(),
              in.host[static_cast<std::size_t>((r + n - 1) % n)])
        << "rank " << r;
}

TEST_P(CommCpu, ArraysReduceInPlaceOnTheirDevicesDefaultStreams) {
  Ranks ranks(nranks());
  Inputs<float> in(ranks, rng, kCount, ReduceOp::sum);
  std::vector<Array> arrays;
  for (std::size_t r = 0; r < in.host.size(); ++r) {
    DeviceScope scope(ranks.devices[r]);
    arrays.push_back(from_host(in.host[r]));
  }
  for (std::size_t r = 0; r < arrays.size(); ++r)
    ranks.comms[r].all_reduce(arrays[r], arrays[r], ReduceOp::sum,
                              ranks.devices[r].default_stream());
  // Each device's own: a default stream's handle means the current device's.
  for (const auto& d : ranks.devices) d.synchronize();
  for (std::size_t r = 0; r < arrays.size(); ++r) {
    const auto got = arrays[r].to_host<float>();
    for (std::size_t k = 0; k < kCount; ++k)
      ASSERT_TRUE(close(got[k], reduce_reference(in.host, k, ReduceOp::sum))) << r << " " << k;
  }
}

// Complex sums and averages are sums of the real and imaginary parts.
TEST_P(CommCpu, ComplexNumbersAreSummedPartByPart) {
  Ranks ranks(nranks());
  std::vector<std::vector<std::complex<float>>> host;
  std::vector<DeviceBuffer<std::complex<float>>> buffers;
  std::uniform_real_distribution<float> d(-1, 1);
  for (std::size_t r = 0; r < ranks.devices.size(); ++r) {
    host.emplace_back(kCount);
    for (auto& v : host.back()) v = {d(rng), d(rng)};
    buffers.emplace_back(ranks.devices[r], kCount);
    buffers.back().copy_from(std::span<const std::complex<float>>(host.back()));
  }
  // In a group, as one thread driving several ranks should: nothing is
  // queued until group_end, so no upload can wait for a pending collective.
  {
    Communicator::Group group(BackendKind::cpu);
    for (std::size_t r = 0; r < buffers.size(); ++r)
      ranks.comms[r].all_reduce(buffers[r], ReduceOp::sum, ranks.streams[r]);
  }
  ranks.synchronize();
  for (std::size_t k = 0; k < kCount; ++k) {
    std::complex<double> want = 0;
    for (const auto& h : host) want += std::complex<double>(h[k]);
    const auto got = buffers[0].to_host()[k];
    EXPECT_NEAR(got.real(), want.real(), 1e-5);
    EXPECT_NEAR(got.imag(), want.imag(), 1e-5);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, CommCpu, ::testing::Values(2, 4), [](const auto& param_info) {
  return std::to_string(param_info.param) + "ranks";
});

}  // namespace
