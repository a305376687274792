// Texture and surface references on the CPU backend (CUDA 11's texture<> and
// surface<> globals, bound by name): a 2-D reference over pitched memory read
// as normalized floats, a linear one read as integers, a 3-D surface written
// and read back with every boundary mode, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

const Device& cpu() {
  static const Device device = Device::get(BackendKind::cpu, 0);
  return device;
}

constexpr const char* kSource = R"(
texture<unsigned char, 2, cudaReadModeNormalizedFloat> image;
texture<int2, 1> pairs;
surface<void, cudaSurfaceType3D> volume;
__device__ float plain;
extern "C" __global__ void read_image(float* out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = tex2D(image, x + 0.5f, y + 0.5f);
}
extern "C" __global__ void read_pairs(int* out, int n) {
  int i = threadIdx.x;
  if (i < n) { int2 v = tex1Dfetch(pairs, i); out[2 * i] = v.x; out[2 * i + 1] = v.y; }
}
extern "C" __global__ void write_volume(int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) surf3Dwrite(x + 100 * y + 10000 * z, volume, x * 4, y, z);
  // past the end: dropped (zero), clamped onto the last element (clamp)
  if (x == 0 && y == 0 && z == 0) {
    surf3Dwrite(-1, volume, w * 4 + 8, 0, 0, cudaBoundaryModeZero);
  }
}
extern "C" __global__ void read_volume_clamped(int* out, int w) {
  surf3Dread(out, volume, (w + 5) * 4, 0, 0, cudaBoundaryModeClamp);
}
extern "C" __global__ void trap_volume(int w) { surf3Dwrite(1, volume, w * 4, 0, 0); }
)";

LaunchConfig grid(unsigned bx, unsigned by, unsigned threads) {
  LaunchConfig config;
  config.grid = Dim3(bx, by);
  config.block = Dim3(threads);
  return config;
}

TEST(CpuTextureReferences, PitchedImageReadsNormalizedFloats) {
  Module module = compile(kSource, {}, cpu());
  TextureReference image = module.texture_reference("image");
  const int w = 37, h = 9, pitch = 64;
  std::mt19937 rng(21);
  std::vector<unsigned char> host(pitch * h);
  for (auto& b : host) b = static_cast<unsigned char>(rng() & 0xff);
  DeviceBuffer<unsigned char> memory(cpu(), host.size());
  memory.copy_from(host);
  image.set_address_2d(memory.address(), ArrayFormat::uint8, 1, w, h, pitch);
  std::vector<float> out(w * h, -1.0f);
  module.kernel("read_image").launch(grid(h, 1, 64), Out(out), w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      ASSERT_EQ(out[y * w + x], static_cast<float>(host[y * pitch + x]) / 255.0f) << x << "," << y;
}

TEST(CpuTextureReferences, LinearPairsReadAsIntegers) {
  Module module = compile(kSource, {}, cpu());
  TextureReference pairs = module.texture_reference("pairs");
  const int n = 201;
  std::vector<int> host(2 * n);
  std::mt19937 rng(5);
  for (auto& v : host) v = static_cast<int>(rng());
  DeviceBuffer<int> memory(cpu(), host.size());
  memory.copy_from(host);
  pairs.set_address(memory.address(), host.size() * sizeof(int));
  pairs.set_format(ArrayFormat::int32, 2);
  pairs.set_flags(texture_flags::read_as_integer);
  std::vector<int> out(2 * n, 0);
  module.kernel("read_pairs").launch(grid(1, 1, 256), Out(out), n);
  EXPECT_EQ(out, host);
}

TEST(CpuTextureReferences, SurfaceWritesEveryElementAndHonoursBoundaryModes) {
  Module module = compile(kSource, {}, cpu());
  SurfaceReference volume = module.surface_reference("volume");
  CudaArrayDescriptor desc;
  desc.width = 13;
  desc.height = 4;
  desc.depth = 3;
  desc.format = ArrayFormat::int32;
  desc.flags = array_flags::surface_ldst;
  CudaArray array(cpu(), desc);
  volume.set_array(array);
  module.kernel("write_volume").launch(grid(4, 3, 32), 13, 4, 3);
  std::vector<int> host(13 * 4 * 3, -7);
  array.copy_to_host(host.data());
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 13; ++x) ASSERT_EQ(host[(z * 4 + y) * 13 + x], x + 100 * y + 10000 * z);
  std::vector<int> clamped(1, 0);
  module.kernel("read_volume_clamped").launch(grid(1, 1, 1), Out(clamped), 13);
  EXPECT_EQ(clamped[0], 12);  // the last element of row 0
  try {
    module.kernel("trap_volume").launch(grid(1, 1, 1), 13);
    cpu().synchronize();
    FAIL() << "an out-of-bounds surface write with cudaBoundaryModeTrap ran";
  } catch (const KernelFault& fault) {
    EXPECT_NE(std::string(fault.what()).find("surf3Dwrite"), std::string::npos) << fault.what();
  }
}

TEST(CpuTextureReferences, BadBindingsAreRefused) {
  Module module = compile(kSource, {}, cpu());
  EXPECT_THROW(module.texture_reference("missing"), ArgumentError);
  EXPECT_THROW(module.texture_reference("plain"), ArgumentError);  // a float, not a texture
  TextureReference image = module.texture_reference("image");
  EXPECT_THROW(image.set_format(ArrayFormat::uint8, 3), ArgumentError);
  EXPECT_THROW(image.set_address_mode(3, AddressMode::wrap), ArgumentError);
  EXPECT_THROW(image.set_flags(0x100), ArgumentError);
  CudaArrayDescriptor desc;
  desc.width = 4;
  desc.height = 4;
  desc.depth = 4;
  desc.format = ArrayFormat::int32;
  CudaArray no_surface(cpu(), desc);
  SurfaceReference volume = module.surface_reference("volume");
  EXPECT_THROW(volume.set_array(no_surface), ArgumentError);
  std::vector<int> out(1);
  // An unbound reference faults with a message, not garbage.
  Module fresh = compile(std::string(kSource) + "// never bound\n", {}, cpu());
  EXPECT_THROW(
      {
        fresh.kernel("read_pairs").launch(grid(1, 1, 1), Out(out), 1);
        cpu().synchronize();
      },
      KernelFault);
}

}  // namespace
}  // namespace cudakit
