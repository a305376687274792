// Several devices on one host: the CPU backend with CUDAKIT_CPU_DEVICES=2
// (set by ctest for this program). Enumeration, the current device per
// thread, per-device limits, pools and streams, launches on each device,
// copies between devices, and the errors a GPU gives for a kernel or stream
// of another device. A bad CUDAKIT_CPU_DEVICES is checked in child processes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/cudakit.hpp"
#include "unit/child_process.hpp"
#include "unit/cpu_test_util.hpp"

namespace ck = cudakit;

namespace {

constexpr const char* kScale = R"(
__global__ void scale_add(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";

using cudakit::test::random_floats;

ck::Device cpu(int ordinal) { return ck::Device::get(ck::BackendKind::cpu, ordinal); }

class CpuMultiDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ck::Device::count(ck::BackendKind::cpu) < 2)
      GTEST_SKIP() << "needs CUDAKIT_CPU_DEVICES=2 (ctest sets it for this program)";
    cpu(0).make_current();
  }
};

TEST_F(CpuMultiDevice, EnumeratesTwoDevicesWithTheirOwnNamesAndBusIds) {
  ASSERT_EQ(ck::Device::count(ck::BackendKind::cpu), 2);
  const ck::Device d0 = cpu(0), d1 = cpu(1);
  EXPECT_EQ(d0.ordinal(), 0);
  EXPECT_EQ(d1.ordinal(), 1);
  EXPECT_EQ(d0.name().rfind("cudakit CPU device 0 of 2 (", 0), 0u) << d0.name();
  EXPECT_EQ(d1.name().rfind("cudakit CPU device 1 of 2 (", 0), 0u) << d1.name();
  EXPECT_EQ(d0.pci_bus_id(), "ffff:00:00.0");
  EXPECT_EQ(d1.pci_bus_id(), "ffff:00:01.0");
  EXPECT_EQ(d1.attribute(ck::DeviceAttribute::pci_device_id), 1);
  EXPECT_EQ(d1.attribute(ck::DeviceAttribute::pci_domain_id), 0xffff);
  EXPECT_EQ(d1.arch(), "cpu");
  EXPECT_EQ(d1.total_memory(), d0.total_memory());  // one host: the same RAM
  EXPECT_EQ(d1.describe().rfind("cpu device 1 (", 0), 0u) << d1.describe();
  try {
    (void)ck::Device::get(ck::BackendKind::cpu, 2);
    FAIL() << "device 2 of 2 was accepted";
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 devices"), std::string::npos) << e.what();
  }
}

TEST_F(CpuMultiDevice, PeerAccessBetweenTheDevicesOfOneHost) {
  EXPECT_TRUE(cpu(0).can_access_peer(cpu(1)));
  EXPECT_TRUE(cpu(1).can_access_peer(cpu(0)));
  EXPECT_FALSE(cpu(1).can_access_peer(cpu(1)));  // as CUDA answers for a device and itself
  EXPECT_THROW(ck::detail::backend(ck::BackendKind::cpu).can_access_peer(0, 2), ck::ArgumentError);
}

TEST_F(CpuMultiDevice, CurrentDeviceIsPerThreadAndRestoredByScope) {
  EXPECT_EQ(ck::Device::current().ordinal(), 0);
  {
    ck::DeviceScope scope(cpu(1));
    EXPECT_EQ(ck::Device::current().ordinal(), 1);
    int seen_by_other_thread = -1;
    std::thread([&] { seen_by_other_thread = ck::Device::current().ordinal(); }).join();
    EXPECT_EQ(seen_by_other_thread, 0);  // a thread that chose nothing: device 0
  }
  EXPECT_EQ(ck::Device::current().ordinal(), 0);
  std::thread([] {
    cpu(1).make_current();
    EXPECT_EQ(ck::Device::current().ordinal(), 1);
  }).join();
  EXPECT_EQ(ck::Device::current().ordinal(), 0);
}

TEST_F(CpuMultiDevice, LimitsAndCacheConfigurationArePerDevice) {
  const ck::Device d0 = cpu(0), d1 = cpu(1);
  const std::size_t before = d0.limit(ck::ContextLimit::printf_fifo_size);
  d1.set_limit(ck::ContextLimit::printf_fifo_size, 3 << 20);
  EXPECT_EQ(d1.limit(ck::ContextLimit::printf_fifo_size), std::size_t{3} << 20);
  EXPECT_EQ(d0.limit(ck::ContextLimit::printf_fifo_size), before);
  d1.set_limit(ck::ContextLimit::printf_fifo_size, before);
}

TEST_F(CpuMultiDevice, PoolsAndBuffersBelongToTheirDevice) {
  const ck::Device d0 = cpu(0), d1 = cpu(1);
  EXPECT_NE(&ck::MemoryPool::of(d0), &ck::MemoryPool::of(d1));
  ck::DeviceBuffer<float> on0(d0, 1001);
  ck::DeviceBuffer<float> on1(d1, 1001);
  EXPECT_EQ(on0.device().ordinal(), 0);
  EXPECT_EQ(on1.device().ordinal(), 1);
  {
    ck::DeviceScope scope(d1);
    ck::DeviceBuffer<float> current(1001);  // the current device's
    EXPECT_EQ(current.device().ordinal(), 1);
  }
}

TEST_F(CpuMultiDevice, LaunchesOnEachDeviceOnItsDefaultAndOwnStreams) {
  const int n = 10'007;  // not a multiple of the block
  for (int ordinal = 0; ordinal < 2; ++ordinal) {
    ck::DeviceScope scope(cpu(ordinal));
    ck::Module module = ck::compile(kScale, {}, cpu(ordinal));
    ck::Kernel kernel = module.kernel("scale_add");
    const auto x = random_floats(n);
    const auto y = random_floats(n);
    ck::DeviceBuffer<float> dx = ck::to_device(x), dy = ck::to_device(y);
    kernel.launch(ck::grid_for(n, 128), dx, dy, 1.5f, n);
    auto out = dy.to_host();
    for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out[i], 1.5f * x[i] + y[i]) << "device " << ordinal;

    ck::Stream stream = cpu(ordinal).create_stream();
    ck::DeviceBuffer<float> dz = ck::to_device(y);
    kernel.launch(ck::grid_for(n, 128, stream), dx, dz, -2.0f, n);
    stream.synchronize();
    out = dz.to_host();
    for (int i = 0; i < n; ++i)
      ASSERT_FLOAT_EQ(out[i], -2.0f * x[i] + y[i]) << "device " << ordinal;
  }
}

TEST_F(CpuMultiDevice, KernelOfAnotherDeviceIsRefusedAsOnAGpu) {
  ck::Module module0 = ck::compile(kScale, {}, cpu(0));
  ck::Kernel kernel0 = module0.kernel("scale_add");
  ck::DeviceBuffer<float> x(cpu(0), 64), y(cpu(0), 64);
  ck::DeviceScope scope(cpu(1));
  try {
    kernel0.launch(ck::grid_for(64, 64), x, y, 1.0f, 64);
    FAIL() << "a device-0 kernel launched while device 1 was current";
  } catch (const ck::CudaError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_EQ(e.code_name(), "CUDA_ERROR_INVALID_HANDLE");
    const std::string what = e.what();
    EXPECT_NE(what.find("loaded on cpu device 0 but cpu device 1 is current"), std::string::npos)
        << what;
    EXPECT_NE(what.find("make that device current"), std::string::npos) << what;
  }
}

TEST_F(CpuMultiDevice, StreamOfAnotherDeviceIsRefusedAsOnAGpu) {
  ck::Module module0 = ck::compile(kScale, {}, cpu(0));
  ck::Kernel kernel0 = module0.kernel("scale_add");
  ck::DeviceBuffer<float> x(cpu(0), 64), y(cpu(0), 64);
  ck::Stream stream1 = cpu(1).create_stream();
  try {
    kernel0.launch(ck::grid_for(64, 64, stream1), x, y, 1.0f, 64);
    FAIL() << "a launch on a device-1 stream while device 0 was current";
  } catch (const ck::CudaError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_NE(std::string(e.what()).find("the stream belongs to cpu device 1"), std::string::npos)
        << e.what();
  }
}

TEST_F(CpuMultiDevice, CopiesBetweenDevicesSeeTheOtherDevicesWork) {
  const int n = 4'000'037;
  const auto x = random_floats(n), y = random_floats(n);
  ck::DeviceBuffer<float> on1(cpu(1), n), dx(cpu(1), n);
  ck::Module module1 = ck::compile(kScale, {}, cpu(1));  // kept: unloading would wait
  {
    // Written by a kernel on device 1's default stream ...
    ck::DeviceScope scope(cpu(1));
    dx.copy_from(std::span<const float>(x));
    on1.copy_from(std::span<const float>(y));
    module1.kernel("scale_add").launch(ck::grid_for(n, 256), dx, on1, 3.0f, n);
  }
  // ... and copied device to device with device 0 current, no synchronize.
  ck::DeviceBuffer<float> on0(cpu(0), n);
  on0.copy_from(on1);
  const auto out = on0.to_host();
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out[i], 3.0f * x[i] + y[i]) << i;

  // Back the other way with device 1 current, then to the host on one of its streams.
  ck::DeviceScope scope(cpu(1));
  ck::DeviceBuffer<float> back(cpu(1), n);
  back.copy_from(on0);
  ck::Stream stream1 = cpu(1).create_stream();
  std::vector<float> host(n);
  back.copy_to_async(std::span<float>(host), stream1);
  stream1.synchronize();
  EXPECT_EQ(host, out);
}

TEST_F(CpuMultiDevice, DeviceSynchronizeReportsThatDevicesFault) {
  ck::DeviceScope scope(cpu(1));
  ck::Module module = ck::compile("__global__ void trap_it() { __trap(); }", {}, cpu(1));
  module.kernel("trap_it").launch(ck::LaunchConfig{ck::Dim3(1), ck::Dim3(1)});
  cpu(0).synchronize();  // device 0 has nothing to report
  EXPECT_THROW(cpu(1).synchronize(), ck::KernelFault);
  cpu(1).synchronize();  // reported once
}

// ---- a thread that never chose a device, in a fresh process -----------------------

// Run only as a child: a kernel of device 1 launched from threads that chose
// no device, first when only device 1 has been used (adopted, as the CUDA
// backend adopts the only context retained), then once device 0 has been used
// too (device 0 is current there, so the launch is refused).
TEST(CpuAdoptChild, Runs) {
  if (!std::getenv("CUDAKIT_MULTI_DEVICE_ADOPT")) GTEST_SKIP() << "run by the test below";
  const int n = 300;
  ck::Module module = ck::compile(kScale, {}, cpu(1));
  const auto x = random_floats(n), y = random_floats(n);
  ck::DeviceBuffer<float> dx(cpu(1), n), dy(cpu(1), n);
  dx.copy_from(std::span<const float>(x));
  dy.copy_from(std::span<const float>(y));
  auto launch = [&] {
    try {
      module.kernel("scale_add").launch(ck::grid_for(n, 128), dx, dy, 2.0f, n);
      cpu(1).synchronize();
      std::printf("launched\n");
    } catch (const ck::CudaError& e) {
      std::printf("refused: %s\n", e.what());
    }
  };
  std::thread(launch).join();
  const auto out = dy.to_host();
  bool right = true;
  for (int i = 0; i < n; ++i) right = right && out[i] == 2.0f * x[i] + y[i];
  std::printf("result %s\n", right ? "right" : "wrong");
  ck::DeviceBuffer<float> on0(cpu(0), 1);
  std::thread(launch).join();
}

TEST(CpuMultiDeviceAdopt, AThreadWithoutADeviceAdoptsTheOnlyOneUsed) {
  const auto result =
      test::run_process("CUDAKIT_MULTI_DEVICE_ADOPT=1 CUDAKIT_CPU_DEVICES=2 " + test::self_path() +
                        " --gtest_filter=CpuAdoptChild.Runs 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  const auto first = result.output.find("launched\nresult right\n");
  EXPECT_NE(first, std::string::npos) << result.output;
  EXPECT_NE(result.output.find("refused: launching kernel scale_add on the CPU backend: invalid "
                               "resource handle: kernel scale_add was loaded on cpu device 1 but "
                               "cpu device 0 is current"),
            std::string::npos)
      << result.output;
}

// ---- CUDAKIT_CPU_DEVICES read by a fresh process ---------------------------------

// Run only as a child (the parent sets CUDAKIT_MULTI_DEVICE_CHILD): prints
// how many CPU devices the backend presents.
TEST(CpuDeviceCountChild, Prints) {
  if (!std::getenv("CUDAKIT_MULTI_DEVICE_CHILD")) GTEST_SKIP() << "run by the tests below";
  std::printf("cpu devices: %d\n", ck::Device::count(ck::BackendKind::cpu));
}

test::ProcessResult child_with(const std::string& value) {
  return test::run_process("CUDAKIT_MULTI_DEVICE_CHILD=1 CUDAKIT_CPU_DEVICES='" + value + "' " +
                           test::self_path() + " --gtest_filter=CpuDeviceCountChild.Prints 2>&1");
}

TEST(CpuDeviceCount, ComesFromTheEnvironment) {
  for (const char* value : {"1", "3", "64"}) {
    const auto result = child_with(value);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find(std::string("cpu devices: ") + value), std::string::npos)
        << result.output;
    EXPECT_EQ(result.output.find("warning"), std::string::npos) << result.output;
  }
}

TEST(CpuDeviceCount, BadValuesWarnAndGiveOneDevice) {
  for (const char* value : {"0", "-2", "two", "2x", "65", "99999999999999999999"}) {
    const auto result = child_with(value);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find("cpu devices: 1"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find(std::string("CUDAKIT_CPU_DEVICES='") + value +
                                 "' is not a device count from 1 to 64; using 1 device"),
              std::string::npos)
        << result.output;
  }
}

}  // namespace
