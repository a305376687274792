// Communicators over NCCL on the GPU: a 1-rank communicator's round trip,
// and local() over every visible GPU (one on the test machine) with
// collectives checked against a host reference.
#include <gtest/gtest.h>

#include <random>
#include <span>

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

}  // namespace
