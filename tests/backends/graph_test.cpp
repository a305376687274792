// Stream capture and graph replay, on every backend: capture runs nothing,
// replay runs the recorded sequence in order with the bits direct launches
// give, an update takes new parameters, and the misuses are refused with
// errors that leave the capture (and everything queued) intact.
#include "cudakit/graph.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/memory_pool.hpp"
#include "cudakit/module.hpp"
#include "cudakit/program.hpp"
#include "cudakit/stream.hpp"

namespace cudakit::test {
namespace {

// A three-kernel time step, deterministic (no thread reads what another writes).
constexpr const char* kStepSource = R"(
__global__ void step_axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void step_square(float* z, const float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 0.5f * y[i] * y[i] - x[i];
}
__global__ void step_mix(float* x, const float* z, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = b * z[i] + 0.001f * (float)(i % 7);
}
)";

constexpr int kN = 1000 + 37;  // not a multiple of the block size

struct State {
  DeviceBuffer<float> x, y, z;
  State() : x(kN), y(kN), z(kN) {}
};

class Graphs : public OnBackend {
 protected:
  void SetUp() override {
    OnBackend::SetUp();
    if (IsSkipped()) return;
    module_.emplace(compile(kStepSource));
    std::mt19937 rng(20261202);
    std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
    x0_.resize(kN);
    y0_.resize(kN);
    for (auto& v : x0_) v = dist(rng);
    for (auto& v : y0_) v = dist(rng);
  }

  void reset(State& s) {
    s.x.untyped().copy_from_host(x0_.data(), kN * sizeof(float));
    s.y.untyped().copy_from_host(y0_.data(), kN * sizeof(float));
    s.z.untyped().zero();
  }

  // One step: three launches on `stream`.
  void step(State& s, const Stream& stream, float a = 0.75f, float b = 0.9f) {
    LaunchConfig config;
    config.grid = Dim3((kN + 127) / 128);
    config.block = Dim3(128);
    config.stream = stream;
    module_->kernel("step_axpy").launch(config, s.y.data(), s.x.data(), a, kN);
    module_->kernel("step_square").launch(config, s.z.data(), s.y.data(), s.x.data(), kN);
    module_->kernel("step_mix").launch(config, s.x.data(), s.z.data(), b, kN);
  }

  static std::vector<float> host(const DeviceBuffer<float>& b) {
    std::vector<float> out(b.size());
    const_cast<DeviceBuffer<float>&>(b).untyped().copy_to_host(out.data(), b.bytes());
    return out;
  }

  static bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  }

  std::optional<Module> module_;
  std::vector<float> x0_, y0_;
};

TEST_F(Graphs, CaptureRunsNothingAndReplayMatchesDirectLaunchesBitForBit) {
  constexpr int kSteps = 40;
  State captured, direct;
  reset(captured);
  reset(direct);
  Stream stream = device().create_stream();
  stream.begin_capture();  // the member form; the other tests use the free functions
  EXPECT_TRUE(stream.is_capturing());
  EXPECT_TRUE(is_capturing(stream));
  for (int i = 0; i < kSteps; ++i) step(captured, stream);
  Graph graph = stream.end_capture();
  EXPECT_FALSE(stream.is_capturing());
  EXPECT_EQ(graph.node_count(), std::size_t{3 * kSteps});
  EXPECT_TRUE(same_bits(host(captured.x), x0_)) << "the capture ran a launch";
  EXPECT_TRUE(same_bits(host(captured.y), y0_)) << "the capture ran a launch";

  GraphExec exec = graph.instantiate();
  exec.upload(stream);
  exec.launch(stream);
  stream.synchronize();
  for (int i = 0; i < kSteps; ++i) step(direct, stream);
  stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x)));
  EXPECT_TRUE(same_bits(host(captured.y), host(direct.y)));
  EXPECT_TRUE(same_bits(host(captured.z), host(direct.z)));

  // A second replay continues from where the first left off.
  exec.launch(stream);
  for (int i = 0; i < kSteps; ++i) step(direct, stream);
  stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x)));
}

TEST_F(Graphs, ReplayOnTheDefaultStreamIsOrderedWithIt) {
  State captured, direct;
  reset(captured);
  reset(direct);
  Stream stream = device().create_stream();
  begin_capture(stream, CaptureMode::thread_local_);
  step(captured, stream);
  GraphExec exec = end_capture(stream).instantiate();
  Stream default_stream = device().default_stream();
  for (int i = 0; i < 5; ++i) exec.launch(default_stream);
  for (int i = 0; i < 5; ++i) step(direct, default_stream);
  default_stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x)));
}

TEST_F(Graphs, DefaultStreamWorkOfTheCapturingThreadIsCaptured) {
  State captured, direct;
  reset(captured);
  reset(direct);
  Stream stream = device().create_stream();
  begin_capture(stream);
  step(captured, device().default_stream());  // goes to the capturing stream
  Graph graph = end_capture(stream);
  EXPECT_EQ(graph.node_count(), 3u);
  EXPECT_TRUE(same_bits(host(captured.x), x0_));
  graph.instantiate().launch(stream);
  step(direct, stream);
  stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x)));
}

TEST_F(Graphs, UpdateTakesNewParametersOfTheSameShape) {
  State captured, direct;
  reset(captured);
  reset(direct);
  Stream stream = device().create_stream();
  begin_capture(stream);
  step(captured, stream, 0.75f, 0.9f);
  GraphExec exec = end_capture(stream).instantiate();

  begin_capture(stream);
  step(captured, stream, -1.25f, 0.5f);
  Graph changed = end_capture(stream);
  EXPECT_TRUE(exec.update(changed));
  exec.launch(stream);
  step(direct, stream, -1.25f, 0.5f);
  stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x)));

  begin_capture(stream);
  step(captured, stream);
  step(captured, stream);
  Graph longer = end_capture(stream);
  EXPECT_FALSE(exec.update(longer)) << "a graph of another shape cannot update it";
  exec.launch(stream);  // still the -1.25 / 0.5 step
  step(direct, stream, -1.25f, 0.5f);
  stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x)));
}

TEST_F(Graphs, FillsEventsAndHostFunctionsAreCapturedAndRunAtEachReplay) {
  DeviceBuffer<std::uint32_t> words(kN);
  words.untyped().fill_bytes(7, 4, kN);
  std::atomic<int> calls{0};
  Stream stream = device().create_stream();
  Event done(device());
  begin_capture(stream);
  words.untyped().fill_bytes_async(0xdeadbeefu, 4, kN, stream);
  launch_host_function(stream, [&calls] { calls.fetch_add(1); });
  done.record(stream);
  Graph graph = end_capture(stream);
  EXPECT_EQ(calls.load(), 0) << "the capture ran the host function";
  std::vector<std::uint32_t> out(kN);
  words.untyped().copy_to_host(out.data(), words.bytes());
  EXPECT_EQ(out[kN - 1], 7u) << "the capture ran the fill";

  GraphExec exec = graph.instantiate();
  exec.launch(stream);
  stream.synchronize();
  EXPECT_TRUE(done.query());
  EXPECT_EQ(calls.load(), 1);
  exec.launch(stream);
  stream.synchronize();
  EXPECT_EQ(calls.load(), 2);
  words.untyped().copy_to_host(out.data(), words.bytes());
  EXPECT_EQ(out[0], 0xdeadbeefu);
  EXPECT_EQ(out[kN - 1], 0xdeadbeefu);
}

TEST_F(Graphs, PoolMemoryFreedInsideTheCaptureIsKeptByTheGraph) {
  State captured, direct;
  reset(captured);
  reset(direct);
  LaunchConfig config;
  config.grid = Dim3((kN + 127) / 128);
  config.block = Dim3(128);
  Stream stream = device().create_stream();
  config.stream = stream;
  std::uint64_t temporary_address = 0;
  begin_capture(stream);
  {
    DeviceBuffer<float> temporary(kN);  // allocated and freed inside the capture
    temporary_address = temporary.address();
    module_->kernel("step_square")
        .launch(config, temporary.data(), captured.y.data(), captured.x.data(), kN);
    module_->kernel("step_mix").launch(config, captured.x.data(), temporary.data(), 0.9f, kN);
  }
  GraphExec exec = end_capture(stream).instantiate();
  // Memory allocated between the capture and the replay is not the graph's.
  DeviceBuffer<float> later(kN);
  EXPECT_NE(later.address(), temporary_address) << "the graph's temporary was handed out again";
  later.untyped().fill_bytes(0x7f7f7f7fu, 4, kN);
  exec.launch(stream);
  config.stream = stream;
  module_->kernel("step_square")
      .launch(config, direct.z.data(), direct.y.data(), direct.x.data(), kN);
  module_->kernel("step_mix").launch(config, direct.x.data(), direct.z.data(), 0.9f, kN);
  stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x)));
}

// ---- misuse: each refused with a clear error, and the capture survives ----

struct Case {
  std::string name;
  std::function<void(Graphs&, const Stream&, State&)> run;
  std::string message;  // a fragment of the error
};

// What ctest and GoogleTest print for a case: its name.
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class GraphMisuse : public Graphs, public ::testing::WithParamInterface<Case> {};

std::vector<Case> misuse_cases() {
  return {
      {"synchronize the capturing stream",
       [](Graphs&, const Stream& s, State&) { s.synchronize(); }, "capturing stream"},
      {"query the capturing stream", [](Graphs&, const Stream& s, State&) { (void)s.query(); },
       "capturing stream"},
      {"synchronize the device", [](Graphs&, const Stream& s, State&) { s.device().synchronize(); },
       "synchronizing the device"},
      {"read a buffer to the host",
       [](Graphs&, const Stream&, State& st) {
         std::vector<float> out(kN);
         st.x.untyped().copy_to_host(out.data(), st.x.bytes());
       },
       "synchronous copy"},
      {"synchronize the default stream",
       [](Graphs&, const Stream& s, State&) { s.device().default_stream().synchronize(); },
       "capturing stream"},
  };
}

TEST_P(GraphMisuse, IsRefusedAndTheCaptureStaysUsable) {
  State captured, direct;
  reset(captured);
  reset(direct);
  Stream stream = device().create_stream();
  begin_capture(stream);
  step(captured, stream);
  try {
    GetParam().run(*this, stream, captured);
    ADD_FAILURE() << "not refused: " << GetParam().name;
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("captur"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(is_capturing(stream));
  step(captured, stream);
  GraphExec exec = end_capture(stream).instantiate();
  exec.launch(stream);
  step(direct, stream);
  step(direct, stream);
  stream.synchronize();
  EXPECT_TRUE(same_bits(host(captured.x), host(direct.x))) << "work was lost";
}

INSTANTIATE_TEST_SUITE_P(Refused, GraphMisuse, ::testing::ValuesIn(misuse_cases()),
                         [](const auto& test_info) {
                           std::string name = test_info.param.name;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST_F(Graphs, CapturingTheLegacyDefaultStreamIsRefused) {
  try {
    begin_capture(device().default_stream());
    FAIL() << "not refused";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("legacy default stream"), std::string::npos) << e.what();
  }
}

TEST_F(Graphs, EndingWithoutACaptureAndCapturingTwiceAreRefused) {
  Stream stream = device().create_stream();
  EXPECT_THROW(end_capture(stream), ArgumentError);
  begin_capture(stream);
  EXPECT_THROW(begin_capture(stream), ArgumentError);
  (void)end_capture(stream);
  EXPECT_THROW(Graph().instantiate(), ArgumentError);
  EXPECT_THROW(GraphExec().launch(stream), ArgumentError);
}

TEST_F(Graphs, ReplayAfterItsMemoryWasFreedIsRefused) {
  Stream stream = device().create_stream();
  auto state = std::make_unique<State>();
  reset(*state);
  begin_capture(stream);
  step(*state, stream);
  GraphExec exec = end_capture(stream).instantiate();
  exec.launch(stream);
  stream.synchronize();
  state.reset();  // the graph's buffers go back to the pool
  try {
    exec.launch(stream);
    FAIL() << "a replay into freed memory was not refused";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("freed after the capture"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cudakit::test
