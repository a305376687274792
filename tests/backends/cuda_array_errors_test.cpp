// Bad CUDA array descriptors and box copies give an ArgumentError naming
// what was wrong, on every backend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cuda_array_test_util.hpp"
#include "cudakit/cuda_array.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

using CudaArrayErrors = test::OnBackend;

template <class F>
void expect_argument_error(F&& f, const std::string& needle) {
  try {
    f();
    FAIL() << "expected ArgumentError mentioning '" << needle << "'";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(CudaArrayErrors, BadDescriptors) {
  const Device& d = device();
  expect_argument_error([&] { CudaArray(d, test::array_descriptor(0, 4, 0)); }, "width is 0");
  expect_argument_error(
      [&] { CudaArray(d, test::array_descriptor(8, 4, 0, ArrayFormat::float32, 3)); },
      "num_channels is 3");
  expect_argument_error(
      [&] { CudaArray(d, test::array_descriptor(8, 4, 0, ArrayFormat::float32, 0)); },
      "num_channels is 0");
  expect_argument_error(
      [&] { CudaArray(d, test::array_descriptor(8, 4, 0, static_cast<ArrayFormat>(0x33), 1, 0)); },
      "format 51");
  expect_argument_error(
      [&] { CudaArray(d, test::array_descriptor(8, 4, 0, ArrayFormat::float32, 1, 0x40)); },
      "unknown flags 0x40");
  expect_argument_error([&] { CudaArray(d, test::array_descriptor(8, 0, 5)); }, "has height 0");
  expect_argument_error(
      [&] {
        CudaArray(d,
                  test::array_descriptor(8, 4, 0, ArrayFormat::float32, 1, array_flags::layered));
      },
      "layered array has depth 0");
  expect_argument_error(
      [&] {
        CudaArray(d,
                  test::array_descriptor(8, 4, 6, ArrayFormat::float32, 1, array_flags::cubemap));
      },
      "six square faces");
  expect_argument_error(
      [&] {
        CudaArray(d, test::array_descriptor(8, 4, 3, ArrayFormat::float32, 1,
                                            array_flags::texture_gather));
      },
      "TEXTURE_GATHER");
  expect_argument_error([&] { CudaArray(d, test::array_descriptor(SIZE_MAX / 2, 4, 4)); },
                        "more bytes");
}

TEST_F(CudaArrayErrors, BoxOverrunningAnArray) {
  CudaArray array(device(), test::array_descriptor(10, 6, 4));  // 40-byte rows
  std::vector<unsigned char> host(4096);
  Copy3D copy;
  copy.src.host = host.data();
  copy.dst.kind = CopyEnd::Kind::array;
  copy.dst.array = &array;
  copy.width_bytes = 32;
  copy.height = 2;
  copy.dst.x_bytes = 12;
  expect_argument_error([&] { copy_3d(copy); }, "reaches byte 44");
  copy.dst.x_bytes = 8;
  copy.dst.y = 5;
  expect_argument_error([&] { copy_3d(copy); }, "array has 6 rows, but the box reaches row 7");
  copy.dst.y = 0;
  copy.dst.z = 3;
  copy.depth = 2;
  expect_argument_error([&] { copy_3d(copy); }, "array has 4 slices");
  copy.dst.z = 0;
  copy.dst.x_bytes = 2;
  expect_argument_error([&] { copy_3d(copy); }, "not a whole number");
  copy.dst.x_bytes = 0;
  copy_3d(copy);  // fits
  CudaArray moved = std::move(array);
  expect_argument_error([&] { copy_3d(copy); }, "destination array is empty");
  moved.reset();
  copy.dst.array = &moved;
  expect_argument_error([&] { copy_3d(copy); }, "destination array is empty");
}

TEST_F(CudaArrayErrors, BadHostAndDeviceLayouts) {
  std::vector<unsigned char> host(4096);
  DeviceBuffer<unsigned char> buffer(device(), 1000, Allocator::direct);  // no pool rounding
  Copy3D copy;
  copy.src.host = host.data();
  copy.src.pitch = 20;
  copy.dst.kind = CopyEnd::Kind::device;
  copy.dst.device = buffer.address();
  copy.width_bytes = 24;
  copy.height = 3;
  expect_argument_error([&] { copy_3d(copy); }, "source host memory's pitch of 20 bytes");
  copy.src.pitch = 0;
  copy.dst.pitch = 30;
  copy.dst.x_bytes = 8;
  expect_argument_error([&] { copy_3d(copy); }, "destination device memory's pitch of 30");
  copy.dst.x_bytes = 0;
  copy.dst.pitch = 0;
  copy.depth = 2;
  copy.src.y = 1;
  copy.src.height = 3;
  expect_argument_error([&] { copy_3d(copy); }, "source host memory's height of 3 rows");
  copy.src.y = 0;
  copy.src.height = 0;
  copy.src.host = nullptr;
  expect_argument_error([&] { copy_3d(copy); }, "host address is null");
  copy.src.host = host.data();
  copy.dst.device = 0;
  expect_argument_error([&] { copy_3d(copy); }, "device address is 0");
  // 24 x 14 rows x 9 slices = 3024 bytes > the buffer's 1000 (and past any
  // rounding a driver may report for the allocation).
  copy.dst.device = buffer.address();
  copy.height = 14;
  copy.depth = 9;
  expect_argument_error([&] { copy_3d(copy); }, "past the end of its allocation of");
  copy.depth = 2;
  copy.src.bytes = 500;  // the caller knows the host memory's size: 24 x 14 x 2 = 672 needed
  expect_argument_error([&] { copy_3d(copy); },
                        "source host memory's 500 bytes end before the box does (it needs 672");
  copy.src.bytes = host.size();
  copy_3d(copy);  // fits
}

TEST_F(CudaArrayErrors, ArraysOfDifferentElementSizes) {
  CudaArray a(device(),
              test::array_descriptor(8, 2, 0, ArrayFormat::float32, 1));  // 4-byte elements
  CudaArray b(device(),
              test::array_descriptor(4, 2, 0, ArrayFormat::float32, 2));  // 8-byte elements
  Copy3D copy;
  copy.src.kind = copy.dst.kind = CopyEnd::Kind::array;
  copy.src.array = &a;
  copy.dst.array = &b;
  copy.width_bytes = 16;
  copy.height = 2;
  expect_argument_error([&] { copy_3d(copy); },
                        "elements of 4 bytes and the destination array of 8");
}

TEST_F(CudaArrayErrors, EmptyBoxCopiesNothing) {
  Copy3D copy;  // width 0: nothing to check or copy
  copy_3d(copy);
}

}  // namespace
}  // namespace cudakit
