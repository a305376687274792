// cudakit::ProfileSession: the launches between construction and stop(),
// summed up per kernel with call counts and launch shapes; array
// expressions named by their expression with the achieved GB/s from the
// bytes they move; a kernel's GB/s from LaunchConfig::bytes_moved; the
// Chrome trace; sessions that overlap. Checked on every backend.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"
#include "cudakit/profiler.hpp"
#include "unit/array_test_support.hpp"

using namespace array_test;

namespace {

const char* kKernels = R"(
__global__ void add_one(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1.0f; }
__global__ void twice(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= 2.0f; }
)";

const ck::ProfileRow* find_row(const ck::ProfileReport& r, const std::string& name) {
  for (const ck::ProfileRow& row : r.rows)
    if (row.name == name) return &row;
  return nullptr;
}

class ProfileSessionTest : public ArrayTest {};

TEST_F(ProfileSessionTest, CountsLaunchesPerKernelWithTheirShapes) {
  ck::Module m = ck::compile(kKernels);
  constexpr int n = 1003;
  auto host = random_values<float>(n);
  ck::DeviceBuffer<float> p(n);
  p.copy_from(host);
  // A launch before the session is not in it.
  m.kernel("add_one").launch(ck::grid_for(n, 128), p, n);
  ck::ProfileSession session;
  for (int i = 0; i < 3; ++i) m.kernel("add_one").launch(ck::grid_for(n, 128), p, n);
  for (int i = 0; i < 2; ++i) m.kernel("twice").launch(ck::grid_for(n, 256), p, n);
  ck::ProfileReport report = session.stop();
  std::vector<float> got = p.to_host();
  for (int i = 0; i < n; i += 97) ASSERT_FLOAT_EQ(got[i], (host[i] + 4.0f) * 4.0f) << i;

  ASSERT_EQ(report.launches.size(), 5u);
  ASSERT_EQ(report.rows.size(), 2u);
  const ck::ProfileRow* add = find_row(report, "add_one");
  const ck::ProfileRow* mul = find_row(report, "twice");
  ASSERT_TRUE(add && mul) << report.to_string();
  EXPECT_EQ(add->calls, 3);
  EXPECT_EQ(mul->calls, 2);
  EXPECT_EQ(add->grid, ck::Dim3(8));
  EXPECT_EQ(add->block, ck::Dim3(128));
  EXPECT_EQ(mul->grid, ck::Dim3(4));
  EXPECT_FALSE(add->shapes_vary);
  for (const ck::ProfileRow* row : {add, mul}) {
    EXPECT_GE(row->min_ms, 0.0);
    EXPECT_LE(row->min_ms, row->mean_ms);
    EXPECT_LE(row->mean_ms, row->max_ms);
    EXPECT_NEAR(row->total_ms, row->mean_ms * double(row->calls), 1e-9);
    EXPECT_EQ(row->gb_per_s, 0.0) << "no byte count was given";
  }
  // Launch order, streams numbered from 0, start times from the first launch.
  EXPECT_EQ(report.launches[0].name, "add_one");
  EXPECT_EQ(report.launches[4].name, "twice");
  EXPECT_EQ(report.launches[0].stream, 0);
  for (const auto& l : report.launches) EXPECT_GE(l.start_ms, 0.0);
  const std::string table = report.to_string();
  EXPECT_NE(table.find("5 launches of 2 kernels"), std::string::npos) << table;
  EXPECT_NE(table.find("GB/s"), std::string::npos) << table;
  EXPECT_THROW(session.stop(), ck::ArgumentError);
}

TEST_F(ProfileSessionTest, FusedExpressionShowsItsBytesAndBandwidth) {
  constexpr std::int64_t n = 100003;  // not a multiple of a block or a vector
  auto ha = random_values<float>(n), hb = random_values<float>(n), hc = random_values<float>(n);
  ck::Array a = ck::from_host(ha), b = ck::from_host(hb), c = ck::from_host(hc);
  ck::Array out = ck::empty({n});
  ck::ProfileSession session;
  for (int i = 0; i < 3; ++i) out.assign(a * b + c);  // the general path, then the fast path
  ck::ProfileReport report = session.stop();
  std::vector<float> got = out.to_host<float>();
  for (std::int64_t k = 0; k < n; k += 101)
    ASSERT_NEAR(got[k], ha[k] * hb[k] + hc[k], 1e-5 * (1 + std::fabs(ha[k] * hb[k] + hc[k])));

  ASSERT_EQ(report.rows.size(), 1u) << report.to_string();
  const ck::ProfileRow& row = report.rows[0];
  // Named by the expression, not by the generated kernel's hash name.
  EXPECT_NE(row.name.find("in0"), std::string::npos) << row.name;
  EXPECT_NE(row.name.find("in2"), std::string::npos) << row.name;
  EXPECT_EQ(row.name.find("cudakit_elementwise_"), std::string::npos) << row.name;
  EXPECT_EQ(row.calls, 3);
  // Three operands read and one result written, 4 bytes each, per call.
  EXPECT_EQ(row.bytes_moved, std::size_t{3} * 4 * 4 * n);
  EXPECT_GT(row.gb_per_s, 0.0);
  EXPECT_NEAR(row.gb_per_s, double(row.bytes_moved) / (row.total_ms * 1e6), 1e-6 * row.gb_per_s);
  // The table shows the figure in the GB/s column.
  char figure[32];
  std::snprintf(figure, sizeof figure, "%.2f", row.gb_per_s);
  EXPECT_NE(report.to_string().find(figure), std::string::npos) << report.to_string();
}

TEST_F(ProfileSessionTest, ReductionsCountTheirOperandsAndResult) {
  constexpr std::int64_t n = 50003;
  auto ha = random_values<float>(n), hb = random_values<float>(n);
  ck::Array a = ck::from_host(ha), b = ck::from_host(hb);
  ck::ProfileSession session;
  const float total = ck::sum(a).to_host<float>()[0];          // one operand
  const float fused = ck::sum(a * b + a).to_host<float>()[0];  // two, read once each
  ck::ProfileReport report = session.stop();
  double want_total = 0, want_fused = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    want_total += ha[k];
    want_fused += double(ha[k]) * hb[k] + ha[k];
  }
  EXPECT_NEAR(total, want_total, 1e-3 * (1 + std::fabs(want_total)));
  EXPECT_NEAR(fused, want_fused, 1e-3 * (1 + std::fabs(want_fused)));
  ASSERT_EQ(report.launches.size(), 2u) << report.to_string();
  EXPECT_EQ(report.launches[0].bytes_moved, std::size_t{4} * n + 4);
  EXPECT_EQ(report.launches[1].bytes_moved, std::size_t{8} * n + 4);
  for (const ck::ProfileRow& row : report.rows) EXPECT_GT(row.gb_per_s, 0.0) << row.name;
}

TEST_F(ProfileSessionTest, KernelBandwidthFromLaunchConfigBytesAndLabel) {
  ck::Module m = ck::compile(kKernels);
  constexpr int n = 4099;
  ck::DeviceBuffer<float> p(n);
  p.copy_from(random_values<float>(n));
  ck::ProfileSession session;
  ck::LaunchConfig config = ck::grid_for(n, 256);
  config.bytes_moved = 2 * sizeof(float) * n;  // read and written once
  m.kernel("add_one").launch(config, p, n);
  config.label = "add_one (labelled)";
  m.kernel("add_one").launch(config, p, n);
  ck::ProfileReport report = session.stop();
  const ck::ProfileRow* plain = find_row(report, "add_one");
  const ck::ProfileRow* labelled = find_row(report, "add_one (labelled)");
  ASSERT_TRUE(plain && labelled) << report.to_string();
  EXPECT_EQ(plain->bytes_moved, 2 * sizeof(float) * n);
  EXPECT_GT(plain->gb_per_s, 0.0);
  EXPECT_EQ(labelled->calls, 1);
}

TEST_F(ProfileSessionTest, OverlappingSessionsEachSeeTheirLaunches) {
  ck::Module m = ck::compile(kKernels);
  ck::DeviceBuffer<float> p(64);
  p.copy_from(random_values<float>(64));
  ck::ProfileSession outer;
  m.kernel("add_one").launch(ck::grid_for(64, 64), p, 64);
  ck::ProfileReport inner_report;
  {
    ck::ProfileSession inner;
    m.kernel("twice").launch(ck::grid_for(64, 64), p, 64);
    inner_report = inner.stop();
  }
  m.kernel("twice").launch(ck::grid_for(64, 64), p, 64);
  ck::ProfileReport outer_report = outer.stop();
  EXPECT_EQ(inner_report.launches.size(), 1u);
  EXPECT_EQ(outer_report.launches.size(), 3u);
  ASSERT_NE(find_row(outer_report, "twice"), nullptr);
  EXPECT_EQ(find_row(outer_report, "twice")->calls, 2);

  // No session: nothing recorded, and a new session starts empty.
  m.kernel("twice").launch(ck::grid_for(64, 64), p, 64);
  ck::ProfileSession fresh;
  EXPECT_TRUE(fresh.stop().launches.empty());
}

TEST_F(ProfileSessionTest, ChromeTraceHasOneEventPerLaunch) {
  ck::Module m = ck::compile(kKernels);
  ck::DeviceBuffer<float> p(64);
  p.copy_from(random_values<float>(64));
  ck::ProfileSession session;
  for (int i = 0; i < 4; ++i) m.kernel("add_one").launch(ck::grid_for(64, 32), p, 64);
  ck::ProfileReport report = session.stop();
  const std::string path =
      ::testing::TempDir() + "cudakit_session_" + std::to_string(::getpid()) + ".json";
  report.write_chrome_trace(path);
  std::ifstream in(path);
  std::string json((std::istreambuf_iterator<char>(in)), {});
  std::size_t events = 0;
  for (std::size_t at = 0; (at = json.find("\"ph\": \"X\"", at)) != std::string::npos; ++at)
    ++events;
  EXPECT_EQ(events, 4u) << json;
  std::remove(path.c_str());
  EXPECT_THROW(report.write_chrome_trace("/nonexistent-dir/trace.json"), ck::ArgumentError);
}

}  // namespace
