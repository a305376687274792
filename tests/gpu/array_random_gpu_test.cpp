// The random generator on the GPU: the same seed gives the host reference's
// numbers (bit for bit for uniform and integers; normal within the CUDA math
// library's error), so GPU and CPU backend agree.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cudakit/array_random.hpp"
#include "cudakit/backend_kind.hpp"
#include "gpu/cuda_device_test.hpp"
#include "unit/array_random_reference.hpp"

namespace {

using namespace cudakit;

class ArrayRandomGpu : public cudakit_test::CudaDeviceTest {
 protected:
};

TEST_F(ArrayRandomGpu, UniformFloat32IsBitIdenticalToTheHostReference) {
  Generator g(0xfeedULL, stream());
  const auto got = g.random({1 << 20 | 3}, DType::float32).to_host<float>();
  for (std::size_t e = 0; e < got.size(); ++e) {
    const float want = cudakit_test::uniform_f32(0xfeedULL, 0, e);
    ASSERT_EQ(std::memcmp(&got[e], &want, 4), 0) << "element " << e;
  }
}

TEST_F(ArrayRandomGpu, UniformFloat64IsBitIdenticalToTheHostReference) {
  Generator g(31, stream());
  const auto got = g.random({100001}, DType::float64).to_host<double>();
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_EQ(got[e], cudakit_test::uniform_f64(31, 0, e));
}

TEST_F(ArrayRandomGpu, IntegersAreBitIdenticalToTheHostReference) {
  Generator g(8, stream());
  const auto got = g.integers(-100, 1000, {65537}, DType::int64).to_host<std::int64_t>();
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_EQ(got[e], cudakit_test::integer32(8, 0, e, -100, 1100));
}

TEST_F(ArrayRandomGpu, NormalMatchesTheHostReferenceClosely) {
  Generator g(123, stream());
  const auto f = g.standard_normal({65539}, DType::float32).to_host<float>();
  for (std::size_t e = 0; e < f.size(); ++e) {
    const float want = cudakit_test::normal_f32(123, 0, e);
    ASSERT_NEAR(f[e], want, 1e-5f * std::max(1.0f, std::fabs(want))) << "element " << e;
  }
  const std::uint64_t offset = g.offset();
  const auto d = g.standard_normal({65539}, DType::float64).to_host<double>();
  for (std::size_t e = 0; e < d.size(); ++e) {
    const double want = cudakit_test::normal_f64(123, offset, e);
    ASSERT_NEAR(d[e], want, 1e-12 * std::max(1.0, std::fabs(want))) << "element " << e;
  }
}

TEST_F(ArrayRandomGpu, SameSeedGivesTheSameNumbersAsTheCpuBackend) {
  Generator gpu(555, stream());
  Generator cpu(555, Device::get(BackendKind::cpu, 0).default_stream());
  EXPECT_EQ(gpu.random({10007}, DType::float32).to_host<float>(),
            cpu.random({10007}, DType::float32).to_host<float>());
  EXPECT_EQ(gpu.integers(0, 1 << 20, {10007}, DType::int32).to_host<std::int32_t>(),
            cpu.integers(0, 1 << 20, {10007}, DType::int32).to_host<std::int32_t>());
}

}  // namespace
