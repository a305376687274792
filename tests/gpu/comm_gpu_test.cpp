// Communicators over NCCL on the GPU: a 1-rank communicator's round trip,
// and local() over every visible GPU (one on the test machine) with
// collectives checked against a host reference. A receive no rank sends to
// hangs on one GPU: the watchdog aborts it after the timeout, the error
// surfaces at synchronize and at the next call, and a new communicator on
// the same device works (each wait under a deadline: a hang fails).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>

#include "cudakit/communicator.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "gpu/cuda_device_test.hpp"

namespace {

using namespace cudakit;

class CommGpu : public cudakit_test::CudaDeviceTest {
 protected:
  void SetUp() override {
    CudaDeviceTest::SetUp();
    if (IsSkipped()) return;
    try {
      (void)get_unique_id(BackendKind::cuda);
    } catch (const NcclNotFound& e) {
      GTEST_SKIP() << "NCCL is not installed: " << e.what();
    }
  }
};

std::vector<float> random_floats(std::size_t n) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST_F(CommGpu, OneRankCommunicatorRoundTripsEveryCollective) {
  const Device& device = *device_;
  Communicator comm = Communicator::create(1, get_unique_id(BackendKind::cuda), 0, device);
  EXPECT_EQ(comm.size(), 1);
  EXPECT_EQ(comm.rank(), 0);
  const Stream stream = device.create_stream();
  const auto host = random_floats(1001);
  DeviceBuffer<float> in(device, host.size()), out(device, host.size());
  in.copy_from(std::span<const float>(host));
  comm.all_reduce(in, out, ReduceOp::sum, stream);
  stream.synchronize();
  EXPECT_EQ(out.to_host(), host);
  comm.all_reduce(in, out, ReduceOp::avg, stream);
  comm.broadcast(out, 0, stream);
  stream.synchronize();
  EXPECT_EQ(out.to_host(), host);
  comm.all_gather(in, out, stream);
  comm.all_to_all(in, out, stream);
  stream.synchronize();
  EXPECT_EQ(out.to_host(), host);
}

TEST_F(CommGpu, LocalOverEveryGpuSumsWithAGroup) {
  std::vector<Device> devices;
  for (int i = 0; i < Device::count(BackendKind::cuda); ++i)
    devices.push_back(Device::get(BackendKind::cuda, i));
  std::vector<Communicator> comms = Communicator::local(devices);
  ASSERT_EQ(comms.size(), devices.size());
  std::vector<std::vector<float>> host;
  std::vector<DeviceBuffer<float>> buffers;
  std::vector<Stream> streams;
  for (const Device& d : devices) {
    host.push_back(random_floats(1001));
    buffers.emplace_back(d, 1001);
    buffers.back().copy_from(std::span<const float>(host.back()));
    streams.push_back(d.create_stream());
  }
  {
    Communicator::Group group(BackendKind::cuda);
    for (std::size_t r = 0; r < comms.size(); ++r)
      comms[r].all_reduce(buffers[r], ReduceOp::sum, streams[r]);
    group.end();
  }
  for (const Stream& s : streams) s.synchronize();
  for (std::size_t k = 0; k < 1001; ++k) {
    double want = 0, magnitude = 0;
    for (const auto& h : host) {
      want += h[k];
      magnitude += std::abs(h[k]);
    }
    const float got = buffers[0].to_host()[k];
    EXPECT_NEAR(got, want, 4 * 1.2e-7 * magnitude * static_cast<double>(host.size())) << k;
  }
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What `wait` threw as a CommunicatorError (empty: it returned), and how
// long it took. A wait not over within 30 s fails the test and ends the
// process: the hang the watchdog is there to prevent.
struct Waited {
  std::string error;
  std::chrono::duration<double> took{};
};
Waited within_deadline(std::function<void()> wait) {
  auto result = std::make_shared<std::promise<Waited>>();
  std::future<Waited> done = result->get_future();
  std::thread([wait = std::move(wait), result] {
    const auto start = std::chrono::steady_clock::now();
    Waited w;
    try {
      wait();
    } catch (const cudakit::CommunicatorError& e) {
      w.error = e.what();
    }
    w.took = std::chrono::steady_clock::now() - start;
    result->set_value(std::move(w));
  }).detach();
  if (done.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "still waiting after 30 s: the NCCL watchdog did not abort the hang";
    std::fprintf(stderr, "still waiting after 30 s: the NCCL watchdog did not abort the hang\n");
    std::fflush(nullptr);
    std::_Exit(1);
  }
  return done.get();
}

void expect_timeout_error(const Waited& w, const std::string& rank) {
  EXPECT_GE(w.took.count(), 1.5) << "the error came before the 2 s timeout";
  EXPECT_LT(w.took.count(), 20.0);
  const std::string parts[] = {"recv of 16 float32 from peer 0",
                               rank,
                               "within 2 s",
                               "did not arrive",
                               "aborted",
                               "CUDAKIT_COMM_TIMEOUT"};
  for (const std::string& part : parts)
    EXPECT_TRUE(contains(w.error, part)) << "'" << part << "' missing in: " << w.error;
}

// A 1-rank all_reduce of fresh random input gives it back (a working communicator).
void expect_round_trip(const Device& device) {
  Communicator comm = Communicator::create(1, get_unique_id(BackendKind::cuda), 0, device);
  const Stream stream = device.create_stream();
  const auto host = random_floats(1001);
  DeviceBuffer<float> in(device, host.size()), out(device, host.size());
  in.copy_from(std::span<const float>(host));
  comm.all_reduce(in, out, ReduceOp::sum, stream);
  within_deadline([&] { stream.synchronize(); });
  EXPECT_EQ(out.to_host(), host);
}

TEST_F(CommGpu, ARecvNoRankSendsToTimesOutAtSynchronizeAndANewCommunicatorWorks) {
  const Device& device = *device_;
  {
    Communicator comm = Communicator::create(1, get_unique_id(BackendKind::cuda), 0, device,
                                             std::chrono::seconds(2));
    const Stream stream = device.create_stream();
    DeviceBuffer<float> buffer(device, 16);
    const Waited w = within_deadline([&] {
      comm.recv(buffer, 0, stream);  // no rank sends: the kernel waits for ever
      stream.synchronize();
    });
    ASSERT_FALSE(w.error.empty()) << "the receive with no sender completed: NCCL did not hang";
    expect_timeout_error(w, "rank 0 of 1");
    try {
      comm.all_reduce(buffer, ReduceOp::sum, stream);
      ADD_FAILURE() << "an aborted communicator took another collective";
    } catch (const CommunicatorError& e) {
      EXPECT_TRUE(contains(e.what(), "aborted earlier")) << e.what();
    }
    within_deadline([&] { stream.synchronize(); });  // the error was reported once
  }  // destroying the aborted communicator neither hangs nor frees it twice
  expect_round_trip(device);
}

TEST_F(CommGpu, EveryRankOfALocalSetIsAbortedWithTheOneThatTimedOut) {
  std::vector<Device> devices;
  for (int i = 0; i < Device::count(BackendKind::cuda); ++i)
    devices.push_back(Device::get(BackendKind::cuda, i));
  {
    std::vector<Communicator> ranks = Communicator::local(devices, std::chrono::seconds(2));
    DeviceBuffer<float> buffer(devices[0], 16);
    const Waited w = within_deadline([&] {
      ranks[0].recv(buffer, 0, devices[0].default_stream());
      devices[0].synchronize();  // the device's synchronize reports it too
    });
    ASSERT_FALSE(w.error.empty()) << "the receive with no sender completed: NCCL did not hang";
    expect_timeout_error(w, "rank 0 of " + std::to_string(devices.size()));
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      DeviceBuffer<float> b(devices[r], 16);
      EXPECT_THROW(ranks[r].all_reduce(b, ReduceOp::sum, devices[r].default_stream()),
                   CommunicatorError)
          << "rank " << r;
    }
  }
  expect_round_trip(devices[0]);
}

}  // namespace
