// Devices, streams, events and launch configurations over the fake backend.
#include <gtest/gtest.h>

#include <thread>

#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/param_layout.hpp"
#include "cudakit/stream.hpp"
#include "unit/core_fake_backend.hpp"

namespace cudakit {
namespace {

using testing::fake;

TEST(DeviceTest, OutOfRangeOrdinalSaysHowManyThereAre) {
  try {
    Device::get(3);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("has 1 device"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Device::get(-1), ArgumentError);
}

TEST(DeviceTest, PropertiesAreReadOnce) {
  auto d = Device::get(0);
  (void)d.properties();
  const int reads = fake().properties_reads;
  EXPECT_EQ(d.name(), "fake device");
  EXPECT_EQ(d.compute_capability(), std::make_pair(9, 0));
  EXPECT_EQ(fake().properties_reads, reads);
}

TEST(DeviceTest, AttributeByNameAcceptsBothSpellings) {
  auto d = Device::get(0);
  EXPECT_EQ(d.attribute("MAX_THREADS_PER_BLOCK"), 1024);
  EXPECT_EQ(d.attribute("CU_DEVICE_ATTRIBUTE_WARP_SIZE"), 32);
  EXPECT_EQ(d.attribute("multiprocessor_count"), 4);
}

TEST(DeviceTest, UnknownAttributeNameIsAnArgumentError) {
  EXPECT_THROW(Device::get(0).attribute("NOT_AN_ATTRIBUTE"), ArgumentError);
}

TEST(DeviceTest, AttributesListsWhatTheBackendReports) {
  auto all = Device::get(0).attributes();
  EXPECT_EQ(all.size(), 3u);  // the fake reports three
}

TEST(DeviceTest, DescribeNamesOrdinalNameAndArch) {
  auto text = Device::get(0).describe();
  EXPECT_NE(text.find("device 0 (fake device, "), std::string::npos) << text;
}

TEST(DeviceTest, CurrentIsPerThreadAndScopeRestoresIt) {
  auto d = Device::get(0);
  d.make_current();
  EXPECT_EQ(Device::current(), d);
  {
    DeviceScope scope(d);
    EXPECT_EQ(Device::current(), d);
  }
  EXPECT_EQ(Device::current(), d);
  std::thread([&] { EXPECT_EQ(Device::current().ordinal(), 0); }).join();
}

TEST(DeviceTest, LimitsRoundTrip) {
  auto d = Device::get(0);
  d.set_limit(ContextLimit::printf_fifo_size, 4 << 20);
  EXPECT_EQ(d.limit(ContextLimit::printf_fifo_size), std::size_t(4) << 20);
}

TEST(StreamTest, DefaultStreamIsNull) {
  EXPECT_TRUE(Device::get(0).default_stream().is_default());
  EXPECT_TRUE(Stream().is_default());
}

TEST(StreamTest, CreatedStreamsAreDistinct) {
  auto d = Device::get(0);
  auto a = d.create_stream(), b = d.create_stream();
  EXPECT_NE(a.native(), nullptr);
  EXPECT_NE(a.native(), b.native());
  EXPECT_TRUE(a.query());
  a.synchronize();
}

TEST(StreamTest, OwnedStreamIsDestroyedOnceWithItsLastHandle) {
  const int destroyed = fake().streams_destroyed;
  {
    auto s = Device::get(0).create_stream();
    auto copy = s;
    EXPECT_EQ(fake().streams_destroyed, destroyed);
  }
  EXPECT_EQ(fake().streams_destroyed, destroyed + 1);
}

TEST(StreamTest, WrappedAndDefaultStreamsAreNeverDestroyed) {
  const int destroyed = fake().streams_destroyed;
  { auto s = Stream::wrap(Device::get(0), reinterpret_cast<void*>(0xabc0)); }
  { auto s = Device::get(0).default_stream(); }
  EXPECT_EQ(fake().streams_destroyed, destroyed);
}

TEST(EventTest, EventIsDestroyedOnceWithItsLastHandle) {
  const int destroyed = fake().events_destroyed;
  {
    Event e(Device::get(0));
    Event copy = e;
    copy.record();
    EXPECT_EQ(fake().events_destroyed, destroyed);
  }
  EXPECT_EQ(fake().events_destroyed, destroyed + 1);
}

TEST(StreamTest, WrapKeepsTheNativeHandle) {
  void* external = reinterpret_cast<void*>(0xabc0);
  auto s = Stream::wrap(Device::get(0), external);
  EXPECT_EQ(s.native(), external);
  EXPECT_EQ(StreamRef(s).native, external);
}

TEST(EventTest, ElapsedTimeBetweenRecordedEvents) {
  auto d = Device::get(0);
  auto s = d.create_stream();
  Event start = s.record();
  Event stop(d);
  stop.record(s);
  stop.synchronize();
  EXPECT_TRUE(stop.query());
  EXPECT_GT(elapsed_ms(start, stop), 0.f);
  EXPECT_EQ(stop.elapsed_ms_since(start), elapsed_ms(start, stop));
}

TEST(LaunchConfigTest, GridForCoversEveryElement) {
  auto c = grid_for(1000003, 256);
  EXPECT_EQ(c.block, Dim3(256));
  EXPECT_EQ(c.grid, Dim3(3907));
  EXPECT_EQ(grid_for(256, 256).grid, Dim3(1));
  EXPECT_EQ(grid_for(0, 256).grid, Dim3(1));
}

TEST(LaunchConfigTest, GridForRejectsAZeroBlock) { EXPECT_THROW(grid_for(10, 0), ArgumentError); }

TEST(LaunchConfigTest, GridForRejectsMoreBlocksThanAGridHolds) {
  EXPECT_THROW(grid_for(std::size_t(1) << 40, 1), ArgumentError);
}

TEST(LaunchConfigTest, GridFor2dCoversWidthAndHeight) {
  auto c = grid_for_2d(3840, 2161, 16, 16);
  EXPECT_EQ(c.block, Dim3(16, 16));
  EXPECT_EQ(c.grid, Dim3(240, 136));
  EXPECT_THROW(grid_for_2d(10, 10, 0, 16), ArgumentError);
}

TEST(LaunchConfigTest, DescribeNamesGridBlockAndSharedMemory) {
  LaunchConfig c{Dim3(4), Dim3(256), 1024};
  EXPECT_EQ(c.describe(), "grid 4x1x1, block 256x1x1, 1024 B shared");
}

TEST(ParamLayoutTest, DescribeAndSignature) {
  ParamLayout layout;
  Param a;
  a.name = "a";
  a.type = "const float *";
  a.kind = ParamKind::pointer;
  a.size = 8;
  Param n;
  n.kind = ParamKind::scalar;
  n.scalar = ScalarType::i32;
  n.size = 4;
  n.offset = 8;
  layout.params = {a, n};
  EXPECT_EQ(layout.params[0].describe(0), "parameter 0 'a' (const float *)");
  EXPECT_EQ(layout.params[1].describe(1), "parameter 1 (int32)");
  EXPECT_EQ(layout.signature(), "(const float * a, int32)");
  EXPECT_EQ(layout.total_bytes(), 12u);
}

TEST(EnumNames, AreReadable) {
  EXPECT_EQ(to_string(ScalarType::f64), "float64");
  EXPECT_EQ(to_string(ParamKind::pointer_or_u64), "pointer or 64-bit integer");
  EXPECT_EQ(to_string(CodeFormat::cubin), "cubin");
  EXPECT_EQ(to_string(BackendKind::cpu), "cpu");
}

}  // namespace
}  // namespace cudakit
