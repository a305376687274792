// Communicators over NCCL on the GPU: a 1-rank communicator's round trip,
// and local() over every visible GPU (one on the test machine) with
// collectives checked against a host reference. The watchdog: an operation
// not complete within the timeout (stuck behind a spinning kernel on one
// GPU; a receive no rank sends to; on two GPUs, a rank that never arrives)
// is aborted, the error surfaces at synchronize and at the next call, and a
// new communicator on the same device works (each wait under a deadline: a
// hang fails).
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

#include "backend/backend.hpp"
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

void expect_timeout_error(const Waited& w, const std::string& operation, const std::string& rank) {
  EXPECT_GE(w.took.count(), 1.5) << "the error came before the 2 s timeout";
  EXPECT_LT(w.took.count(), 20.0);
  const std::string parts[] = {operation, rank,       "within 2 s",          "did not arrive",
                               "aborted", "create()", "CUDAKIT_COMM_TIMEOUT"};
  for (const std::string& part : parts)
    EXPECT_TRUE(contains(w.error, part)) << "'" << part << "' missing in: " << w.error;
}

void expect_refused_as_aborted(const Communicator& comm, const Device& device) {
  DeviceBuffer<float> b(device, 16);
  try {
    comm.all_reduce(b, ReduceOp::sum, device.default_stream());
    ADD_FAILURE() << "an aborted communicator (rank " << comm.rank() << ") took a collective";
  } catch (const CommunicatorError& e) {
    EXPECT_TRUE(contains(e.what(), "aborted earlier")) << e.what();
  }
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

// A kernel spinning on a flag in pinned host memory: what a stream is stuck
// behind until release() (or the destructor, so a failed test cannot hang).
class SpinGate {
 public:
  explicit SpinGate(const Device& device) : backend_(detail::backend(BackendKind::cuda)) {
    detail::CompileRequest request;
    request.source = R"(
extern "C" __global__ void spin_until_set(volatile int* flag) {
  while (*flag == 0) {
  }
})";
    request.options.arch = backend_.default_arch(device.ordinal());
    module_ = backend_.load_module(device.ordinal(), backend_.compile(request));
    kernel_ = backend_.get_kernel(module_, "spin_until_set");
    flag_ = static_cast<int*>(backend_.allocate_pinned(sizeof(int)));
    __atomic_store_n(flag_, 0, __ATOMIC_SEQ_CST);
  }
  ~SpinGate() {
    release();
    try {
      backend_.synchronize(0);
    } catch (...) {
    }
    backend_.deallocate_pinned(flag_);
    backend_.unload_module(module_);
  }
  SpinGate(const SpinGate&) = delete;
  SpinGate& operator=(const SpinGate&) = delete;
  void block(const Stream& stream) {
    detail::DevicePtr flag = backend_.host_device_pointer(flag_);
    void* args[] = {&flag};
    backend_.launch(kernel_, "spin_until_set", Dim3(1), Dim3(1), 0, stream.native(), args);
  }
  void release() { __atomic_store_n(flag_, 1, __ATOMIC_SEQ_CST); }

 private:
  detail::Backend& backend_;
  detail::NativeModule module_ = nullptr;
  detail::NativeKernel kernel_ = nullptr;
  int* flag_ = nullptr;
};

// One GPU: an all_reduce stuck behind a kernel that does not end is not
// complete within the timeout: the watchdog aborts the communicator and
// files the error, which the stream's synchronize raises once the stream
// moves again; the communicator refuses more work, and a new one works.
TEST_F(CommGpu, AnOperationNotCompleteWithinTheTimeoutIsAbortedAndReported) {
  const Device& device = *device_;
  {
    Communicator comm = Communicator::create(1, get_unique_id(BackendKind::cuda), 0, device,
                                             std::chrono::seconds(2));
    const Stream stream = device.create_stream();
    const auto host = random_floats(1001);
    DeviceBuffer<float> in(device, host.size()), out(device, host.size());
    in.copy_from(std::span<const float>(host));
    SpinGate gate(device);
    gate.block(stream);
    const auto start = std::chrono::steady_clock::now();
    comm.all_reduce(in, out, ReduceOp::sum, stream);
    std::this_thread::sleep_for(std::chrono::seconds(4));  // the watchdog fires at 2 s
    gate.release();
    Waited w = within_deadline([&] { stream.synchronize(); });
    w.took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(w.error.empty()) << "the late all_reduce was not reported";
    expect_timeout_error(w, "all_reduce of 1001 float32", "rank 0 of 1");
    expect_refused_as_aborted(comm, device);
    within_deadline([&] { stream.synchronize(); });  // the error was reported once
  }  // destroying the aborted communicator neither hangs nor frees it twice
  expect_round_trip(device);
}

// One GPU, NCCL's own hang: a receive from itself that no send matches.
// Recent NCCL refuses it at the call (ncclInvalidUsage: "Trying to recv to
// self without a matching send"); then there is no hang to test here.
TEST_F(CommGpu, ARecvNoRankSendsToTimesOutAtSynchronizeAndANewCommunicatorWorks) {
  const Device& device = *device_;
  {
    Communicator comm = Communicator::create(1, get_unique_id(BackendKind::cuda), 0, device,
                                             std::chrono::seconds(2));
    const Stream stream = device.create_stream();
    DeviceBuffer<float> buffer(device, 16);
    bool refused = false;
    const Waited w = within_deadline([&] {
      try {
        comm.recv(buffer, 0, stream);  // no rank sends: the kernel waits for ever
      } catch (const CommunicatorError&) {
        refused = true;
        throw;
      }
      stream.synchronize();
    });
    if (refused)
      GTEST_SKIP() << "NCCL refuses a receive from self without a send, so nothing hangs: "
                   << w.error;
    ASSERT_FALSE(w.error.empty()) << "the receive with no sender completed";
    expect_timeout_error(w, "recv of 16 float32 from peer 0", "rank 0 of 1");
    expect_refused_as_aborted(comm, device);
    within_deadline([&] { stream.synchronize(); });
  }
  expect_round_trip(device);
}

// Two GPUs: rank 0 of a local() pair calls an all_reduce rank 1 never
// joins (after one they both did, so the connections exist): NCCL's kernel
// waits for ever until the watchdog aborts it; the device's synchronize
// raises the error, and every rank of the set refuses more work.
TEST_F(CommGpu, ARankThatNeverArrivesIsAbortedOnEveryRankOfALocalSet) {
  if (Device::count(BackendKind::cuda) < 2) GTEST_SKIP() << "needs 2 GPUs";
  const std::vector<Device> devices = {Device::get(BackendKind::cuda, 0),
                                       Device::get(BackendKind::cuda, 1)};
  {
    std::vector<Communicator> ranks = Communicator::local(devices, std::chrono::seconds(2));
    std::vector<DeviceBuffer<float>> buffers;
    for (const Device& d : devices) {
      buffers.emplace_back(d, 1001);
      buffers.back().copy_from(std::span<const float>(random_floats(1001)));
    }
    {
      Communicator::Group group(BackendKind::cuda);
      for (std::size_t r = 0; r < 2; ++r)
        ranks[r].all_reduce(buffers[r], ReduceOp::sum, devices[r].default_stream());
      group.end();
    }
    within_deadline([&] {
      for (const Device& d : devices) d.synchronize();
    });
    const Waited w = within_deadline([&] {
      ranks[0].all_reduce(buffers[0], ReduceOp::sum, devices[0].default_stream());
      devices[0].synchronize();
    });
    ASSERT_FALSE(w.error.empty()) << "rank 0's all_reduce completed without rank 1";
    expect_timeout_error(w, "all_reduce of 1001 float32", "rank 0 of 2");
    for (std::size_t r = 0; r < 2; ++r) expect_refused_as_aborted(ranks[r], devices[r]);
  }
  expect_round_trip(devices[0]);
}

}  // namespace
