// Managed (unified) memory through the backend, on every backend: one
// address that host code and kernels both use (cuMemAllocManaged on a GPU,
// device memory on the CPU backend), attaching it to a stream
// (cuStreamAttachMemAsync), and the allocation an address lies in
// (cuMemGetAddressRange).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "backend/backend.hpp"
#include "backend_fixture.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/kernel_args.hpp"
#include "cudakit/module.hpp"
#include "cudakit/program.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {
namespace {

using ManagedMemory = test::OnBackend;

constexpr unsigned kAttachGlobal = 0x1;  // CU_MEM_ATTACH_GLOBAL
constexpr unsigned kAttachSingle = 0x4;  // CU_MEM_ATTACH_SINGLE

// Frees the allocation however the test ends.
struct Managed {
  detail::Backend& backend;
  int ordinal;
  detail::DevicePtr ptr;
  ~Managed() { backend.deallocate(ordinal, ptr); }
  float* data() const { return reinterpret_cast<float*>(static_cast<std::uintptr_t>(ptr)); }
};

TEST_F(ManagedMemory, KernelsAndTheHostShareOneAddress) {
  const int n = 100003;  // not a multiple of the block size
  detail::Backend& backend = detail::backend_of(device());
  Managed x{backend, device().ordinal(),
            backend.allocate_managed(device().ordinal(), n * sizeof(float), kAttachGlobal)};
  ASSERT_NE(x.ptr, 0u);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) x.data()[i] = host[i] = dist(rng);

  Module module = compile(
      "__global__ void triple(float* x, int n) {"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 3.0f; }",
      {}, device());
  Stream stream = device().create_stream();
  backend.attach_managed(stream.native(), x.ptr, 0, kAttachSingle);
  KernelArgs args;
  args.pointer(x.ptr, "managed");
  args.add(n);
  LaunchConfig config{Dim3((n + 255) / 256), Dim3(256)};
  config.stream = stream;
  module.kernel("triple").launch(config, args);
  stream.synchronize();
  for (int i = 0; i < n; ++i) ASSERT_EQ(x.data()[i], 3.0f * host[i]) << "element " << i;
  backend.attach_managed(stream.native(), x.ptr, 0, kAttachGlobal);
  stream.synchronize();
}

TEST_F(ManagedMemory, AddressRangeFindsTheAllocation) {
  detail::Backend& backend = detail::backend_of(device());
  Managed m{backend, device().ordinal(),
            backend.allocate_managed(device().ordinal(), 4000, kAttachGlobal)};
  const auto [start, bytes] = backend.address_range(m.ptr + 100);
  EXPECT_EQ(start, m.ptr);
  EXPECT_GE(bytes, 4000u);
  DeviceBuffer<float> plain(device(), 333);
  const auto plain_address =
      static_cast<detail::DevicePtr>(reinterpret_cast<std::uintptr_t>(plain.data()));
  // The allocation holding the buffer (a pool may hand out part of a block).
  const auto [plain_start, plain_bytes] = backend.address_range(plain_address + 8);
  EXPECT_LE(plain_start, plain_address);
  EXPECT_GE(plain_start + plain_bytes, plain_address + 333 * sizeof(float));
  std::vector<float> host(64);
  EXPECT_THROW(backend.address_range(
                   static_cast<detail::DevicePtr>(reinterpret_cast<std::uintptr_t>(host.data()))),
               ArgumentError);
}

}  // namespace
}  // namespace cudakit
