// CUDA arrays and box copies round trip on every backend: host -> array ->
// host, device -> array -> device, sub-boxes with offsets and pitches, 1-D,
// 2-D, 3-D and layered arrays, every format and channel count, on fresh
// random bytes and extents that are multiples of nothing.
#include "cudakit/cuda_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "backend/cpu/cpu_array.hpp"
#include "backend_fixture.hpp"
#include "cuda_array_test_util.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {
namespace {

using CudaArrays = test::OnBackend;

std::vector<unsigned char> random_bytes(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<unsigned char> out(count);
  for (auto& b : out) b = static_cast<unsigned char>(dist(rng));
  return out;
}

TEST_F(CudaArrays, WholeArrayRoundTripsEveryFormatAndChannelCount) {
  const ArrayFormat formats[] = {ArrayFormat::uint8, ArrayFormat::uint16, ArrayFormat::uint32,
                                 ArrayFormat::int8,  ArrayFormat::int16,  ArrayFormat::int32,
                                 ArrayFormat::half,  ArrayFormat::float32};
  unsigned seed = 1;
  for (ArrayFormat format : formats)
    for (unsigned channels : {1u, 2u, 4u}) {
      CudaArray array(device(), test::array_descriptor(37, 5, 3, format, channels));
      ASSERT_EQ(array.bytes(), 37u * 5 * 3 * array_format_bytes(format) * channels);
      const auto in = random_bytes(array.bytes(), seed++);
      array.copy_from_host(in.data());
      std::vector<unsigned char> out(array.bytes());
      array.copy_to_host(out.data());
      EXPECT_EQ(in, out) << "format " << static_cast<unsigned>(format) << " x" << channels;
    }
}

TEST_F(CudaArrays, OneTwoThreeDimensionalAndLayeredRoundTrip) {
  const CudaArrayDescriptor shapes[] = {
      test::array_descriptor(1001, 0, 0, ArrayFormat::float32, 1),
      test::array_descriptor(33, 17, 0, ArrayFormat::int16, 2),
      test::array_descriptor(13, 7, 5, ArrayFormat::uint8, 4),
      test::array_descriptor(29, 0, 6, ArrayFormat::float32, 1, array_flags::layered),
      test::array_descriptor(11, 9, 3, ArrayFormat::uint32, 2,
                             array_flags::layered | array_flags::surface_ldst),
  };
  unsigned seed = 100;
  for (const auto& shape : shapes) {
    CudaArray array(device(), shape);
    const auto in = random_bytes(array.bytes(), seed++);
    array.copy_from_host(in.data());
    std::vector<unsigned char> out(array.bytes());
    array.copy_to_host(out.data());
    EXPECT_EQ(in, out) << shape.width << " x " << shape.height << " x " << shape.depth;
  }
}

TEST_F(CudaArrays, DeviceToArrayToDevice) {
  CudaArray array(device(), test::array_descriptor(23, 11, 4, ArrayFormat::float32, 2));
  const std::size_t bytes = array.bytes();
  const auto in = random_bytes(bytes, 7);
  DeviceBuffer<unsigned char> src(device(), bytes), dst(device(), bytes);
  src.copy_from(std::span<const unsigned char>(in));
  Copy3D to_array;
  to_array.src.kind = CopyEnd::Kind::device;
  to_array.src.device = src.address();
  to_array.dst.kind = CopyEnd::Kind::array;
  to_array.dst.array = &array;
  to_array.width_bytes = 23 * 8;
  to_array.height = 11;
  to_array.depth = 4;
  copy_3d(to_array);
  Copy3D from_array = to_array;
  std::swap(from_array.src, from_array.dst);
  from_array.dst.device = dst.address();
  copy_3d(from_array);
  std::vector<unsigned char> out(bytes);
  dst.copy_to(std::span<unsigned char>(out));
  EXPECT_EQ(in, out);
}

// The expected result of a box copy between two dense-enough host layouts.
void reference_box(const unsigned char* src, std::size_t src_pitch, std::size_t src_height,
                   std::size_t sx, std::size_t sy, std::size_t sz, unsigned char* dst,
                   std::size_t dst_pitch, std::size_t dst_height, std::size_t dx, std::size_t dy,
                   std::size_t dz, std::size_t width, std::size_t height, std::size_t depth) {
  for (std::size_t z = 0; z < depth; ++z)
    for (std::size_t y = 0; y < height; ++y)
      std::memcpy(dst + ((dz + z) * dst_height + dy + y) * dst_pitch + dx,
                  src + ((sz + z) * src_height + sy + y) * src_pitch + sx, width);
}

TEST_F(CudaArrays, SubBoxesWithOffsetsAndPitches) {
  // Host (pitched, offset) -> array (offset) -> device (pitched, offset) -> host.
  const std::size_t element = 4 * 2;  // int16 x 4
  CudaArray array(device(), test::array_descriptor(19, 13, 7, ArrayFormat::int16, 4));
  const auto initial = random_bytes(array.bytes(), 11);
  array.copy_from_host(initial.data());

  const std::size_t host_pitch = 211, host_height = 17, host_slices = 6;
  const auto host = random_bytes(host_pitch * host_height * host_slices, 12);
  Copy3D in;
  in.width_bytes = 5 * element;
  in.height = 9;
  in.depth = 4;
  in.src.host = const_cast<unsigned char*>(host.data());
  in.src.x_bytes = 31;
  in.src.y = 3;
  in.src.z = 1;
  in.src.pitch = host_pitch;
  in.src.height = host_height;
  in.dst.kind = CopyEnd::Kind::array;
  in.dst.array = &array;
  in.dst.x_bytes = 7 * element;
  in.dst.y = 2;
  in.dst.z = 3;
  copy_3d(in);

  std::vector<unsigned char> expected_array = initial;
  reference_box(host.data(), host_pitch, host_height, 31, 3, 1, expected_array.data(), 19 * element,
                13, 7 * element, 2, 3, 5 * element, 9, 4);
  std::vector<unsigned char> got_array(array.bytes());
  array.copy_to_host(got_array.data());
  ASSERT_EQ(got_array, expected_array);

  // Array -> pitched device memory, then the whole device buffer back.
  const std::size_t dev_pitch = 173, dev_height = 15, dev_slices = 5;
  const auto dev_initial = random_bytes(dev_pitch * dev_height * dev_slices, 13);
  DeviceBuffer<unsigned char> dev(device(), dev_initial.size());
  dev.copy_from(std::span<const unsigned char>(dev_initial));
  Copy3D out;
  out.width_bytes = 6 * element;
  out.height = 8;
  out.depth = 3;
  out.src.kind = CopyEnd::Kind::array;
  out.src.array = &array;
  out.src.x_bytes = 4 * element;
  out.src.y = 1;
  out.src.z = 2;
  out.dst.kind = CopyEnd::Kind::device;
  out.dst.device = dev.address();
  out.dst.x_bytes = 9;
  out.dst.y = 5;
  out.dst.z = 1;
  out.dst.pitch = dev_pitch;
  out.dst.height = dev_height;
  Stream stream = device().create_stream();
  copy_3d_async(out, stream);
  stream.synchronize();
  std::vector<unsigned char> expected_dev = dev_initial;
  reference_box(expected_array.data(), 19 * element, 13, 4 * element, 1, 2, expected_dev.data(),
                dev_pitch, dev_height, 9, 5, 1, 6 * element, 8, 3);
  std::vector<unsigned char> got_dev(dev_initial.size());
  dev.copy_to(std::span<unsigned char>(got_dev));
  EXPECT_EQ(got_dev, expected_dev);
}

TEST_F(CudaArrays, PitchedDeviceToDeviceWithoutArrays) {
  // Memcpy2D's use without arrays: a sub-matrix of one pitched buffer into another.
  const std::size_t src_pitch = 301, dst_pitch = 157, rows = 23;
  const auto src_host = random_bytes(src_pitch * rows, 21);
  const auto dst_host = random_bytes(dst_pitch * rows, 22);
  DeviceBuffer<unsigned char> src(device(), src_host.size()), dst(device(), dst_host.size());
  src.copy_from(std::span<const unsigned char>(src_host));
  dst.copy_from(std::span<const unsigned char>(dst_host));
  Copy3D copy;
  copy.src.kind = copy.dst.kind = CopyEnd::Kind::device;
  copy.src.device = src.address();
  copy.src.x_bytes = 17;
  copy.src.y = 4;
  copy.src.pitch = src_pitch;
  copy.dst.device = dst.address();
  copy.dst.x_bytes = 3;
  copy.dst.y = 1;
  copy.dst.pitch = dst_pitch;
  copy.width_bytes = 141;
  copy.height = 19;
  copy_3d(copy);
  std::vector<unsigned char> expected = dst_host;
  reference_box(src_host.data(), src_pitch, rows, 17, 4, 0, expected.data(), dst_pitch, rows, 3, 1,
                0, 141, 19, 1);
  std::vector<unsigned char> got(dst_host.size());
  dst.copy_to(std::span<unsigned char>(got));
  EXPECT_EQ(got, expected);
}

TEST_F(CudaArrays, ArrayToArrayAndMovesKeepTheData) {
  CudaArray a(device(), test::array_descriptor(41, 3, 0, ArrayFormat::half, 2));
  CudaArray b(device(),
              test::array_descriptor(17, 5, 0, ArrayFormat::int32, 1));  // 4-byte elements too
  const auto in = random_bytes(a.bytes(), 31);
  a.copy_from_host(in.data());
  Copy3D copy;
  copy.src.kind = copy.dst.kind = CopyEnd::Kind::array;
  copy.src.array = &a;
  copy.src.x_bytes = 8 * 4;
  copy.src.y = 1;
  copy.dst.array = &b;
  copy.dst.x_bytes = 2 * 4;
  copy.dst.y = 3;
  copy.width_bytes = 12 * 4;
  copy.height = 2;
  copy_3d(copy);
  CudaArray moved = std::move(b);
  EXPECT_TRUE(b.empty());
  std::vector<unsigned char> got(moved.bytes());
  moved.copy_to_host(got.data());
  for (std::size_t y = 0; y < 2; ++y)
    EXPECT_EQ(0, std::memcmp(got.data() + (3 + y) * 17 * 4 + 2 * 4,
                             in.data() + (1 + y) * 41 * 4 + 8 * 4, 12 * 4))
        << "row " << y;
}

// The CPU backend's record, which the texture code reads: dense, x fastest.
TEST_F(CudaArrays, CpuRecordIsDenseXFastest) {
  if (backend() != BackendKind::cpu) GTEST_SKIP() << "the record is the CPU backend's";
  CudaArray array(device(), test::array_descriptor(9, 4, 3, ArrayFormat::uint16, 2));
  const auto in = random_bytes(array.bytes(), 41);
  array.copy_from_host(in.data());
  const auto* record = static_cast<const detail::cpu::CpuArray*>(array.native());
  EXPECT_EQ(record->element_bytes, 4u);
  EXPECT_EQ(record->row_pitch, 9u * 4);
  EXPECT_EQ(record->slice_pitch, 9u * 4 * 4);
  EXPECT_EQ(record->rows, 4u);
  EXPECT_EQ(record->slices, 3u);
  EXPECT_EQ(record->descriptor.width, 9u);
  // Element (x=5, y=2, z=1), channel 1.
  const std::size_t at = 1 * record->slice_pitch + 2 * record->row_pitch + 5 * 4 + 2;
  EXPECT_EQ(0, std::memcmp(static_cast<const char*>(record->data) + at, in.data() + at, 2));
  EXPECT_EQ(0, std::memcmp(record->data, in.data(), in.size()));
}

}  // namespace
}  // namespace cudakit
