// The CPU backend's texture sampling against a real GPU: the same kernel
// samples the same random 2-D, layered and 3-D arrays at the same random
// coordinates on both backends, for every address mode, point and linear
// filtering, normalized coordinates, and float / normalized 8- and 16-bit /
// half texels. Point sampling and gather must agree exactly, border colors
// included; 2-D linear filtering within a few float ulps of the range. Needs
// a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

constexpr const char* kSource = R"(
extern "C" __global__ void sample(float4* out, cudaTextureObject_t t, const float4* at, int n,
                                  int kind) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 c = at[i];
  if (kind == 2) out[i] = tex2D<float4>(t, c.x, c.y);
  else if (kind == 3) out[i] = tex3D<float4>(t, c.x, c.y, c.z);
  else if (kind == 5) out[i] = tex2Dgather<float4>(t, c.x, c.y, (int)c.z);
  else out[i] = tex2DLayered<float4>(t, c.x, c.y, (int)c.z);
}
)";

struct Case {
  ArrayFormat format;
  unsigned flags;  // array_flags::layered or 0
  std::size_t depth;
};

std::vector<unsigned char> random_texels(std::size_t bytes, ArrayFormat format, std::mt19937& rng) {
  std::vector<unsigned char> out(bytes);
  if (format == ArrayFormat::float32) {
    std::normal_distribution<float> d(0.0f, 3.0f);
    for (std::size_t i = 0; i + 4 <= bytes; i += 4) {
      const float v = d(rng);
      std::memcpy(out.data() + i, &v, 4);
    }
  } else if (format == ArrayFormat::half) {
    std::uniform_int_distribution<int> d(0x3000, 0x4bff);  // finite halves of either sign
    for (std::size_t i = 0; i + 2 <= bytes; i += 2) {
      const auto v = static_cast<std::uint16_t>(d(rng) | ((rng() & 1) << 15));
      std::memcpy(out.data() + i, &v, 2);
    }
  } else {
    for (auto& b : out) b = static_cast<unsigned char>(rng() & 0xff);
  }
  return out;
}

TEST(TextureParity, CpuSamplesAsTheGpuDoes) {
  if (!backend_available(BackendKind::cuda))
    GTEST_SKIP() << "no CUDA device: the GPU half of the comparison cannot run";
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const Case cases[] = {{ArrayFormat::float32, 0, 0},
                        {ArrayFormat::uint8, 0, 0},
                        {ArrayFormat::int16, 0, 5},
                        {ArrayFormat::float32, 0, 4},
                        {ArrayFormat::half, array_flags::layered, 4},
                        {ArrayFormat::int8, array_flags::layered, 3},
                        {ArrayFormat::float32, array_flags::texture_gather, 0}};
  const std::size_t w = 19, h = 11, n = 2000;
  for (const Case& c : cases) {
    CudaArrayDescriptor desc;
    desc.width = w, desc.height = h, desc.depth = c.depth;
    desc.format = c.format, desc.channels = 4, desc.flags = c.flags;
    const int kind = (c.flags & array_flags::texture_gather) ? 5 : c.flags ? 4 : c.depth ? 3 : 2;
    std::vector<unsigned char> texels = random_texels(
        w * h * std::max<std::size_t>(c.depth, 1) * desc.element_bytes(), c.format, rng);
    for (const AddressMode mode :
         {AddressMode::wrap, AddressMode::clamp, AddressMode::mirror, AddressMode::border})
      for (const bool normalized : {false, true})
        for (const FilterMode filter : {FilterMode::point, FilterMode::linear}) {
          // wrap and mirror are defined for normalized coordinates only
          if (!normalized && (mode == AddressMode::wrap || mode == AddressMode::mirror)) continue;
          std::uniform_real_distribution<float> coord(normalized ? -1.5f : -4.0f,
                                                      normalized ? 2.5f : 24.0f);
          std::vector<float> at(4 * n);
          for (std::size_t i = 0; i < n; ++i) {
            at[4 * i] = coord(rng), at[4 * i + 1] = coord(rng);
            at[4 * i + 2] = kind == 4   ? static_cast<float>(rng() % c.depth)
                            : kind == 5 ? static_cast<float>(rng() % 4)  // the component
                                        : coord(rng);
          }
          TextureDescriptor td;
          td.address_mode = {mode, mode, mode};
          td.filter = filter;
          td.normalized_coordinates = normalized;
          td.border_color = {0.25f, -0.5f, 1.0f, 2.0f};
          std::vector<std::vector<float>> results;
          for (const Device& dev :
               {Device::get(BackendKind::cpu, 0), Device::get(BackendKind::cuda, 0)}) {
            CudaArray array(dev, desc);
            array.copy_from_host(texels.data());
            TextureObject tex(dev, TextureResource::of_array(array), td);
            Module m = compile(kSource, {}, dev);
            DeviceBuffer<float> coords(dev, at.size()), out(dev, 4 * n);
            coords.copy_from(std::span<const float>(at));
            LaunchConfig config;
            config.grid = Dim3(static_cast<unsigned>((n + 127) / 128));
            config.block = Dim3(128);
            m.kernel("sample").launch(config, out, tex.handle(), coords, static_cast<int>(n), kind);
            results.push_back(out.to_host());
          }
          float range = 0.0f;
          for (float v : results[1]) range = std::max(range, std::fabs(v));
          // Every fetch is bit for bit (the border color held in the texel's
          // format, the linear filter's weights and fixed-point blends as
          // measured), but for 3-D float and half filtering, one unit in the
          // last place where the two z layers cancel (about 2 in 100,000).
          const bool filtered = filter == FilterMode::linear && kind != 5;
          const bool float_3d = filtered && kind == 3 &&
                                (c.format == ArrayFormat::float32 || c.format == ArrayFormat::half);
          const float last_place =
              float_3d ? std::ldexp(range, c.format == ArrayFormat::half ? -10 : -23) : 0.0f;
          std::size_t inexact = 0, beyond = 0;
          std::string first;
          for (std::size_t i = 0; i < 4 * n; ++i) {
            const float diff = std::fabs(results[0][i] - results[1][i]);
            if (diff == 0.0f) continue;
            ++inexact;
            if (diff > last_place) ++beyond;
            if (first.size() < 600)
              first += " at (" + std::to_string(at[4 * (i / 4)]) + ", " +
                       std::to_string(at[4 * (i / 4) + 1]) + ", " +
                       std::to_string(at[4 * (i / 4) + 2]) + ") channel " + std::to_string(i % 4) +
                       ": cpu " + std::to_string(results[0][i]) + " gpu " +
                       std::to_string(results[1][i]) + ";";
          }
          const std::size_t allowed = float_3d ? 4 * n / 1000 : 0;
          EXPECT_TRUE(beyond == 0 && inexact <= allowed)
              << "format " << static_cast<unsigned>(c.format) << " kind " << kind << " mode "
              << static_cast<unsigned>(mode) << " normalized " << normalized << " filter "
              << static_cast<unsigned>(filter) << ": " << inexact << " of " << 4 * n
              << " values differ (" << beyond << " beyond one unit in the last place);" << first;
        }
  }
}

}  // namespace
}  // namespace cudakit
