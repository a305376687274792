// Texture and surface objects on every backend: the same kernel samples a
// CUDA array through a cudaTextureObject_t and writes one through a
// cudaSurfaceObject_t; the results are checked against a host reference of
// the GPU's rules (texel coordinates x * N for normalized coordinates, the
// linear filter's weights rounded to 8 fractional bits, wrap / clamp), so the
// CPU backend and the GPU are held to the same numbers. Bad resources and
// descriptors are refused before the backend sees them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cuda_array_test_util.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

using TextureObjects = test::OnBackend;

constexpr const char* kSource = R"(
extern "C" __global__ void sample(float* out, cudaTextureObject_t tex, const float* xs,
                                  const float* ys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(tex, xs[i], ys[i]);
}
extern "C" __global__ void fetch4(float4* out, cudaTextureObject_t tex, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float4>(tex, i);
}
extern "C" __global__ void fill_layers(cudaSurfaceObject_t surf, int w, int h, int layers) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < w && y < h && z < layers)
    surf2DLayeredwrite(x * 1000 + y * 10 + z, surf, x * (int)sizeof(int), y, z);
}
)";

int wrap_or_clamp(int i, int n, AddressMode mode) {
  if (mode == AddressMode::wrap) return ((i % n) + n) % n;
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// The GPU's bilinear filter (CUDA C Programming Guide, "Texture Fetching"),
// as an H200 rounds it: the texel coordinate to 1/256 (halves up), the weights
// in 1/256, the upper-right texel's weight a*b rounded to 1/256 (halves up)
// and the others keeping each axis's sum.
float reference_linear(const std::vector<float>& img, int w, int h, float x, float y,
                       AddressMode mode, bool normalized) {
  // A normalized coordinate is cut to 21 fractional bits, then scaled exactly.
  const auto texel_coordinate = [normalized](float c, int size) {
    return normalized ? std::floor(std::ldexp(static_cast<double>(c), 21)) / 2097152.0 * size
                      : static_cast<double>(c);
  };
  const double u = texel_coordinate(x, w), v = texel_coordinate(y, h);
  const auto fixed = [](double c) {
    return static_cast<long long>(std::floor(c * 256.0 + 0.5)) - 128;
  };
  const long long qu = fixed(u), qv = fixed(v);
  const long long i = qu >= 0 ? qu / 256 : -((-qu + 255) / 256);
  const long long j = qv >= 0 ? qv / 256 : -((-qv + 255) / 256);
  const int a = static_cast<int>(qu - i * 256), b = static_cast<int>(qv - j * 256);
  const int ab = (a * b + 128) >> 8;
  auto at = [&](long long ii, long long jj) {
    return img[wrap_or_clamp(static_cast<int>(jj), h, mode) * w +
               wrap_or_clamp(static_cast<int>(ii), w, mode)];
  };
  return static_cast<float>(256 - a - b + ab) / 256 * at(i, j) +
         static_cast<float>(a - ab) / 256 * at(i + 1, j) +
         static_cast<float>(b - ab) / 256 * at(i, j + 1) +
         static_cast<float>(ab) / 256 * at(i + 1, j + 1);
}

CudaArrayDescriptor array_of(std::size_t w, std::size_t h, std::size_t d, ArrayFormat format,
                             unsigned channels, unsigned flags = 0) {
  return test::array_descriptor(w, h, d, format, channels, flags);
}

TEST_F(TextureObjects, LinearFilteringOfAnArrayMatchesTheGpuRules) {
  const int w = 23, h = 11, n = 1001;
  std::mt19937 rng(1234);
  std::normal_distribution<float> value(0.0f, 1.0f);
  std::vector<float> img(w * h);
  for (auto& v : img) v = value(rng);
  CudaArray array(device(), array_of(w, h, 0, ArrayFormat::float32, 1));
  array.copy_from_host(img.data());
  Module module = compile(kSource, {}, device());
  for (const bool normalized : {false, true}) {
    const AddressMode mode = normalized ? AddressMode::wrap : AddressMode::clamp;
    TextureDescriptor desc;
    desc.address_mode = {mode, mode, mode};
    desc.filter = FilterMode::linear;
    desc.normalized_coordinates = normalized;
    TextureObject tex(device(), TextureResource::of_array(array), desc);
    std::uniform_real_distribution<float> xs_dist(normalized ? -1.3f : -3.0f,
                                                  normalized ? 2.2f : w + 3.0f);
    std::uniform_real_distribution<float> ys_dist(normalized ? -1.3f : -3.0f,
                                                  normalized ? 2.2f : h + 3.0f);
    std::vector<float> xs(n), ys(n), out(n, -7.0f);
    for (int i = 0; i < n; ++i) xs[i] = xs_dist(rng), ys[i] = ys_dist(rng);
    LaunchConfig config;
    config.grid = Dim3((n + 127) / 128);
    config.block = Dim3(128);
    module.kernel("sample").launch(config, Out(out), tex.handle(), In(xs), In(ys), n);
    // Both backends filter as the reference does, to float rounding.
    float largest = 0.0f;
    for (float v : img) largest = std::max(largest, std::fabs(v));
    const float tolerance = 2e-6f * (largest + 1.0f);
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(out[i], reference_linear(img, w, h, xs[i], ys[i], mode, normalized), tolerance)
          << "normalized " << normalized << " at (" << xs[i] << ", " << ys[i] << ")";
  }
}

TEST_F(TextureObjects, LinearMemoryFetchesFourChannels) {
  const int n = 333;
  std::vector<float> data(4 * n);
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> value(-5.0f, 5.0f);
  for (auto& v : data) v = value(rng);
  DeviceBuffer<float> memory(device(), data.size());
  memory.copy_from(data);
  TextureObject tex(device(), TextureResource::linear(memory.address(), ArrayFormat::float32, 4,
                                                      data.size() * sizeof(float)));
  std::vector<float> out(4 * (n + 5), -7.0f);
  LaunchConfig config;
  config.grid = Dim3(3);
  config.block = Dim3(128);
  Module module = compile(kSource, {}, device());
  module.kernel("fetch4").launch(config, Out(out), tex.handle(), n + 5);
  for (int i = 0; i < 4 * n; ++i) ASSERT_EQ(out[i], data[i]) << i;
  for (int i = 4 * n; i < 4 * (n + 5); ++i) ASSERT_EQ(out[i], 0.0f) << "out of range reads 0";
}

TEST_F(TextureObjects, SurfaceWritesEveryLayer) {
  const int w = 19, h = 5, layers = 3;
  CudaArray array(device(), array_of(w, h, layers, ArrayFormat::int32, 1,
                                     array_flags::layered | array_flags::surface_ldst));
  SurfaceObject surf(array);
  LaunchConfig config;
  config.grid = Dim3(1, h, layers);
  config.block = Dim3(32);
  Module module = compile(kSource, {}, device());
  module.kernel("fill_layers").launch(config, surf.handle(), w, h, layers);
  std::vector<int> out(w * h * layers, -1);
  array.copy_to_host(out.data());
  for (int z = 0; z < layers; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        ASSERT_EQ(out[(z * h + y) * w + x], x * 1000 + y * 10 + z) << x << "," << y << "," << z;
}

TEST_F(TextureObjects, BadResourcesAndDescriptorsAreRefused) {
  CudaArray ints(device(), array_of(8, 8, 0, ArrayFormat::int32, 1));
  TextureDescriptor linear;
  linear.filter = FilterMode::linear;
  EXPECT_THROW(TextureObject(device(), TextureResource::of_array(ints), linear), ArgumentError);
  CudaArray bytes(device(), array_of(8, 8, 0, ArrayFormat::uint8, 1));
  TextureDescriptor as_integer = linear;
  as_integer.read_as_integer = true;
  EXPECT_THROW(TextureObject(device(), TextureResource::of_array(bytes), as_integer),
               ArgumentError);
  EXPECT_NO_THROW(TextureObject(device(), TextureResource::of_array(bytes), linear));
  EXPECT_THROW(SurfaceObject surf(bytes), ArgumentError);  // made without surface_ldst
  DeviceBuffer<float> memory(device(), 1024);
  EXPECT_THROW(TextureObject(device(), TextureResource::linear(memory.address() + 4,
                                                               ArrayFormat::float32, 1, 64)),
               ArgumentError);
  EXPECT_THROW(TextureObject(device(), TextureResource::linear(memory.address(),
                                                               ArrayFormat::float32, 3, 48)),
               ArgumentError);
  EXPECT_THROW(TextureObject(device(), TextureResource::pitch_2d(
                                           memory.address(), ArrayFormat::float32, 1, 10, 4, 20)),
               ArgumentError);
  CudaArray empty;
  EXPECT_THROW(TextureObject(device(), TextureResource::of_array(empty)), ArgumentError);
}

TEST_F(TextureObjects, ReferencesAreNotSupportedOnAGpu) {
  if (backend() != BackendKind::cuda) GTEST_SKIP() << "the CPU backend has references";
  Module module = compile("__device__ float plain;\n", {}, device());
  EXPECT_THROW(module.texture_reference("plain"), NotSupported);
  EXPECT_THROW(module.surface_reference("plain"), NotSupported);
}

}  // namespace
}  // namespace cudakit
