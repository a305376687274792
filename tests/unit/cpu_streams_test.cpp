// The CPU device: properties and attributes, memory, and the ordering
// guarantees of streams and events.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cpu_test_util.hpp"
#include "cudakit/error.hpp"

namespace cudakit::test {
namespace {

// Spins for about `ms` milliseconds, then writes `value` into out[0]:
// long enough that queued work is visibly still running.
const char* kSlow = R"(
__global__ void slow_write(int* out, int value, int ms) {
  long long end = clock64() + (long long)ms * 1000000;
  while (clock64() < end) {}
  out[0] = value;
}
__global__ void add_one(int* out) { out[0] += 1; }
)";

TEST(CpuDevice, PropertiesDescribeAGpuLikeCpuDevice) {
  DeviceProperties p = cpu().properties(0);
  EXPECT_TRUE(contains(p.name, "cudakit CPU backend")) << p.name;
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(p.max_threads_per_block, 1024);
  EXPECT_EQ(p.max_block_dim, Dim3(1024, 1024, 64));
  EXPECT_EQ(p.max_grid_dim, Dim3(2147483647u, 65535, 65535));
  EXPECT_EQ(p.shared_memory_per_block, 48u * 1024);
  EXPECT_GT(p.total_memory, 0u);
  EXPECT_GE(p.multiprocessor_count, 1);
  EXPECT_EQ(cpu().device_count(), 1);
}

TEST(CpuDevice, AttributesMapFromProperties) {
  EXPECT_EQ(cpu().attribute(0, DeviceAttribute::warp_size), 32);
  EXPECT_EQ(cpu().attribute(0, DeviceAttribute::max_threads_per_block), 1024);
  EXPECT_EQ(cpu().attribute(0, DeviceAttribute::max_block_dim_z), 64);
  EXPECT_EQ(cpu().attribute(0, DeviceAttribute::compute_capability_major), 0);
  EXPECT_EQ(cpu().attribute(0, DeviceAttribute::maximum_texture1d_width), 0);
}

TEST(CpuDevice, OtherOrdinalsAreArgumentErrors) {
  EXPECT_THROW(cpu().properties(1), ArgumentError);
  EXPECT_THROW(cpu().allocate(2, 16), ArgumentError);
}

TEST(CpuMemory, AllocationsAre256ByteAligned) {
  for (std::size_t bytes : {1u, 100u, 4096u, 1000001u}) {
    detail::DevicePtr p = cpu().allocate(0, bytes);
    EXPECT_EQ(p % 256, 0u);
    cpu().deallocate(0, p);
  }
}

TEST(CpuMemory, FillSetsElementsOfEachWidth) {
  CpuBuffer<unsigned> d(100);
  auto base = reinterpret_cast<detail::DevicePtr>(d.get());
  cpu().fill(base, 0xdeadbeefu, 4, 100, nullptr, false);
  for (unsigned v : d.to_host()) ASSERT_EQ(v, 0xdeadbeefu);
  cpu().fill(base, 0x1234u, 2, 10, nullptr, false);
  EXPECT_EQ(d.to_host()[0], 0x12341234u);
  cpu().fill(base, 0xabu, 1, 4, nullptr, false);
  EXPECT_EQ(d.to_host()[0], 0xababababu);
  EXPECT_THROW(cpu().fill(base, 0, 3, 1, nullptr, false), ArgumentError);
}

TEST(CpuMemory, OutOfMemoryIsReportedWithTheRequest) {
  try {
    cpu().allocate(0, std::size_t(1) << 62);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested(), std::size_t(1) << 62);
  }
}

TEST(CpuStreams, LaunchReturnsBeforeTheKernelFinishes) {
  CpuModuleHandle mod(kSlow);
  CpuBuffer<int> d(std::vector<int>{0});
  auto s = cpu().create_stream(0, false);
  auto t0 = std::chrono::steady_clock::now();
  mod.launch_on("slow_write", Dim3(1), Dim3(1), 0, s, d.get(), 7, 200);
  auto queued = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(queued, std::chrono::milliseconds(100));
  EXPECT_FALSE(cpu().query_stream(s));
  cpu().synchronize_stream(s);
  EXPECT_TRUE(cpu().query_stream(s));
  EXPECT_EQ(d.to_host()[0], 7);
  cpu().destroy_stream(s);
}

TEST(CpuStreams, WorkOnOneStreamRunsInOrder) {
  CpuModuleHandle mod(kSlow);
  CpuBuffer<int> d(std::vector<int>{0});
  auto s = cpu().create_stream(0, true);
  mod.launch_on("slow_write", Dim3(1), Dim3(1), 0, s, d.get(), 10, 50);
  for (int i = 0; i < 5; ++i) mod.launch_on("add_one", Dim3(1), Dim3(1), 0, s, d.get());
  int host = -1;
  cpu().copy(&host, d.get(), sizeof(int), s, true);
  cpu().synchronize_stream(s);
  EXPECT_EQ(host, 15);
  cpu().destroy_stream(s);
}

TEST(CpuStreams, StreamWaitEventOrdersWorkAcrossStreams) {
  CpuModuleHandle mod(kSlow);
  CpuBuffer<int> d(std::vector<int>{0});
  auto producer = cpu().create_stream(0, true);
  auto consumer = cpu().create_stream(0, true);
  auto ready = cpu().create_event(0, false);
  mod.launch_on("slow_write", Dim3(1), Dim3(1), 0, producer, d.get(), 100, 100);
  cpu().record_event(ready, producer);
  cpu().stream_wait_event(consumer, ready);
  mod.launch_on("add_one", Dim3(1), Dim3(1), 0, consumer, d.get());
  cpu().synchronize_stream(consumer);
  EXPECT_EQ(d.to_host()[0], 101);
  cpu().destroy_event(ready);
  cpu().destroy_stream(producer);
  cpu().destroy_stream(consumer);
}

TEST(CpuStreams, NullStreamWaitsForBlockingStreams) {
  CpuModuleHandle mod(kSlow);
  CpuBuffer<int> d(std::vector<int>{0});
  auto s = cpu().create_stream(0, false);
  mod.launch_on("slow_write", Dim3(1), Dim3(1), 0, s, d.get(), 5, 100);
  mod.launch_on("add_one", Dim3(1), Dim3(1), 0, nullptr, d.get());
  cpu().synchronize_stream(nullptr);
  EXPECT_EQ(d.to_host()[0], 6);
  cpu().destroy_stream(s);
}

TEST(CpuStreams, SynchronousCopyWaitsForQueuedWork) {
  CpuModuleHandle mod(kSlow);
  CpuBuffer<int> d(std::vector<int>{0});
  mod.launch_on("slow_write", Dim3(1), Dim3(1), 0, nullptr, d.get(), 9, 100);
  int host = 0;
  cpu().copy(&host, d.get(), sizeof(int), nullptr, false);
  EXPECT_EQ(host, 9);
}

TEST(CpuEvents, ElapsedTimeMeasuresTheWorkBetweenRecords) {
  CpuModuleHandle mod(kSlow);
  CpuBuffer<int> d(1);
  auto s = cpu().create_stream(0, true);
  auto start = cpu().create_event(0, true), stop = cpu().create_event(0, true);
  cpu().record_event(start, s);
  mod.launch_on("slow_write", Dim3(1), Dim3(1), 0, s, d.get(), 1, 80);
  cpu().record_event(stop, s);
  EXPECT_FALSE(cpu().query_event(stop));
  cpu().synchronize_event(stop);
  EXPECT_TRUE(cpu().query_event(stop));
  float ms = cpu().elapsed_ms(start, stop);
  EXPECT_GE(ms, 79.0f);
  EXPECT_LT(ms, 2000.0f);
  cpu().destroy_event(start);
  cpu().destroy_event(stop);
  cpu().destroy_stream(s);
}

TEST(CpuEvents, ElapsedTimeOfAnUnrecordedEventIsAnError) {
  auto a = cpu().create_event(0, true), b = cpu().create_event(0, true);
  EXPECT_THROW(cpu().elapsed_ms(a, b), CudaError);
  cpu().destroy_event(a);
  cpu().destroy_event(b);
}

TEST(CpuStreams, KernelFaultSurfacesAtSynchronize) {
  CpuModuleHandle mod("__global__ void k() { __trap(); }");
  auto s = cpu().create_stream(0, true);
  mod.launch_on("k", Dim3(3), Dim3(4), 0, s);
  EXPECT_THROW(cpu().synchronize_stream(s), KernelFault);
  // Reported once; the stream keeps working.
  EXPECT_NO_THROW(cpu().synchronize_stream(s));
  cpu().destroy_stream(s);
}

}  // namespace
}  // namespace cudakit::test
