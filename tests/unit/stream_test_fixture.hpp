// The fixture of the cross-stream tests: three streams of the device under
// test, the slow writer that keeps one of them busy, host values placed on a
// stream, and an empty memory pool to start from.
#pragma once

#include <optional>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/memory_pool.hpp"
#include "unit/array_test_support.hpp"
#include "unit/stream_test_kernels.hpp"

namespace array_test {

class StreamTest : public ArrayTest {
 protected:
  void SetUp() override {
    ArrayTest::SetUp();
    if (IsSkipped()) return;
    s1_.emplace(device().create_stream());
    s2_.emplace(device().create_stream());
    s3_.emplace(device().create_stream());
    module_.emplace(ck::compile(stream_test::kernels_source));
    // Blocks cached for an earlier test's stream could be handed to a new
    // stream that reuses its handle; start from an empty pool.
    pool().free_all();
  }
  void TearDown() override {
    if (!s1_) return;
    for (auto* s : {&*s1_, &*s2_, &*s3_}) s->synchronize();
  }
  ck::MemoryPool& pool() { return ck::MemoryPool::of(device()); }
  const ck::Stream& s1() { return *s1_; }
  const ck::Stream& s2() { return *s2_; }
  const ck::Stream& s3() { return *s3_; }

  // Queues on `stream`: after a long spin, a = a * 2 + 1.
  void slow_scale(const ck::Array& a, const ck::Stream& stream) {
    ck::LaunchConfig config;
    config.stream = stream;
    module_->kernel("slow_scale")
        .launch(config, a, static_cast<int>(a.size()), stream_test::slow_ticks());
  }

  // Host values on `stream`, copied and waited for.
  ck::Array on(const ck::Stream& stream, const std::vector<float>& values, ck::Shape shape = {}) {
    if (shape.empty()) shape = {static_cast<std::int64_t>(values.size())};
    ck::Array a = ck::from_host(values.data(), shape, ck::DType::float32, stream);
    stream.synchronize();
    return a;
  }

  // What slow_scale makes of `v`.
  static std::vector<float> scaled(const std::vector<float>& v) {
    std::vector<float> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i] * 2.0f + 1.0f;
    return out;
  }

  const ck::Module& module() const { return *module_; }

 private:
  std::optional<ck::Stream> s1_, s2_, s3_;
  std::optional<ck::Module> module_;
};

}  // namespace array_test
