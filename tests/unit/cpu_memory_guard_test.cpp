// The CPU backend's device memory is guarded: a kernel writing past a small
// allocation faults in the guard page after it, or is caught by the canary
// in the allocation's rounding (or red zone), as a KernelFault naming the
// allocation; the process goes on and other allocations are intact. Copies
// and fills to addresses outside what the backend allocated are errors
// naming the address, never a dead process; an async copy to pageable host
// memory completes before it returns; free memory is the device's size
// less what is allocated, and an allocation beyond it is OutOfMemory; a
// launch that faults leaves its Out host arrays untouched.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend/cpu/device_memory.hpp"
#include "cpu_test_util.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit::test {
namespace {

const char* kKernels = R"(
__global__ void write_past(int* p, int n, int extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + extra) p[i] = i * 3 + 1;
}
__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
__global__ void slow_fill(int* p, int n, int seed, int spin) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    for (volatile int k = 0; k < spin; k = k + 1) {}
  if (i < n) p[i] = i * 7 + seed;
}
)";

std::string fault_text(const std::function<void()>& launch) {
  try {
    launch();
    cpu().synchronize_stream(nullptr);
  } catch (const KernelFault& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a KernelFault";
  return {};
}

void expect_add_one_works(CpuModuleHandle& m, int n) {
  std::vector<int> host = random_ints<int>(static_cast<std::size_t>(n), -1000, 1000);
  CpuBuffer<int> p(host);
  m.run("add_one", Dim3((n + 127) / 128), Dim3(128), p.get(), n);
  std::vector<int> out = p.to_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], host[i] + 1) << i;
}

TEST(CpuMemoryGuard, WriteFarPastASmallAllocationFaultsInItsGuardPage) {
  CpuModuleHandle m(kKernels);
  // Neighbours of several sizes, with random contents.
  std::vector<std::vector<int>> contents;
  std::vector<std::unique_ptr<CpuBuffer<int>>> neighbours;
  for (std::size_t n : {7u, 100u, 333u, 1025u, 4099u}) {
    contents.push_back(random_ints<int>(n, -100000, 100000));
    neighbours.push_back(std::make_unique<CpuBuffer<int>>(contents.back()));
  }
  CpuBuffer<int> victim(100);  // 400 bytes; the kernel writes 4400
  const std::string what = fault_text(
      [&] { m.launch_on("write_past", Dim3(9), Dim3(128), 0, nullptr, victim.get(), 100, 1000); });
  EXPECT_TRUE(contains(what, "past the end of the 400-byte device allocation")) << what;
  EXPECT_TRUE(contains(what, "guard page")) << what;
  EXPECT_TRUE(contains(what, "write_past")) << what;
  for (std::size_t k = 0; k < neighbours.size(); ++k)
    ASSERT_EQ(neighbours[k]->to_host(), contents[k]) << "neighbour " << k;
  // Later allocations and launches are intact.
  expect_add_one_works(m, 1000);
}

TEST(CpuMemoryGuard, WriteJustPastTheEndIsCaughtByTheCanaryAfterTheLaunch) {
  CpuModuleHandle m(kKernels);
  std::vector<int> host = random_ints<int>(100, -1000, 1000);
  CpuBuffer<int> p(host);  // 400 bytes, rounded to 512: indices 100..127 are canary
  const std::string what = fault_text(
      [&] { m.launch_on("write_past", Dim3(1), Dim3(128), 0, nullptr, p.get(), 100, 5); });
  EXPECT_TRUE(contains(what, "wrote past the end of the 400-byte device allocation")) << what;
  EXPECT_TRUE(contains(what, "byte 0 after its end")) << what;
  // The canary is restored: the buffer is usable, and its data is the kernel's.
  std::vector<int> out = p.to_host();
  for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], i * 3 + 1) << i;
  m.run("add_one", Dim3(1), Dim3(128), p.get(), 100);
  out = p.to_host();
  for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], i * 3 + 2) << i;
}

// A synchronous copy after the faulting launch has finished (the stream is
// idle by then) still reports the fault, as a GPU's sticky error would: the
// copy must not run as if nothing had happened.
TEST(CpuMemoryGuard, ASynchronousCopyAfterAFinishedFaultingLaunchReportsTheFault) {
  CpuModuleHandle m(kKernels);
  CpuBuffer<int> p(random_ints<int>(100, -1000, 1000));
  m.launch_on("write_past", Dim3(1), Dim3(128), 0, nullptr, p.get(), 100, 5);
  usleep(200 * 1000);  // long enough for the launch to have finished and left the stream idle
  std::vector<int> out(100);
  try {
    cpu().copy(out.data(), p.get(), out.size() * sizeof(int), nullptr, false);
    ADD_FAILURE() << "the copy ran as if the launch had not faulted";
  } catch (const KernelFault& e) {
    EXPECT_TRUE(contains(e.what(), "wrote past the end of the 400-byte device allocation"))
        << e.what();
  }
  // Reported once: the next copy runs.
  cpu().copy(out.data(), p.get(), out.size() * sizeof(int), nullptr, false);
}

TEST(CpuMemoryGuard, BeyondTheGuardBudgetAllocationsHaveARedZone) {
  CpuModuleHandle m(kKernels);
  auto& memory = detail::cpu::DeviceMemory::instance();
  std::vector<detail::DevicePtr> held;
  while (memory.guarded_and_red_zoned().second == 0 && held.size() < 40000)
    held.push_back(cpu().allocate(0, 64));
  ASSERT_GT(memory.guarded_and_red_zoned().second, 0u) << "the guard budget was never reached";
  auto* last = reinterpret_cast<int*>(held.back());  // 16 ints, then the red zone
  const std::string what =
      fault_text([&] { m.launch_on("write_past", Dim3(1), Dim3(64), 0, nullptr, last, 16, 40); });
  EXPECT_TRUE(contains(what, "wrote past the end of the 64-byte device allocation")) << what;
  for (auto p : held) cpu().deallocate(0, p);
  EXPECT_EQ(memory.guarded_and_red_zoned().second, 0u);
}

TEST(CpuMemoryGuard, CopiesPastAnAllocationOrToNoMemoryAreErrors) {
  std::vector<int> host = random_ints<int>(100, -1000, 1000);
  CpuBuffer<int> p(host);
  std::vector<int> out(200);
  try {
    cpu().copy(out.data(), p.get() + 50, 100 * sizeof(int), nullptr, false);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "400 bytes")) << what;
    EXPECT_TRUE(contains(what, "run 200 bytes past the end of the 400-byte device allocation"))
        << what;
  }
  EXPECT_THROW(cpu().fill(reinterpret_cast<detail::DevicePtr>(p.get()), 1, 4, 101, nullptr, false),
               ArgumentError);
  // An address that is no memory at all: a page mapped and given back.
  const long page = sysconf(_SC_PAGESIZE);
  void* gone = mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  munmap(gone, static_cast<std::size_t>(page));
  try {
    cpu().copy(gone, host.data(), 64, nullptr, false);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "64 bytes")) << what;
    EXPECT_TRUE(contains(what, "not memory this process can write")) << what;
  }
  EXPECT_THROW(cpu().copy(out.data(), gone, 64, nullptr, false), ArgumentError);
  EXPECT_THROW(cpu().fill(reinterpret_cast<detail::DevicePtr>(gone), 0, 1, 8, nullptr, false),
               ArgumentError);
  // The process goes on, with its memory intact.
  EXPECT_EQ(p.to_host(), host);
}

TEST(CpuMemoryGuard, AsyncCopyToPageableMemoryHasCompletedWhenItReturns) {
  CpuModuleHandle m(kKernels);
  const int n = 1001;
  CpuBuffer<int> p(random_ints<int>(n, -5, 5));
  detail::NativeStream stream = cpu().create_stream(0, false);
  const int seed = random_ints<int>(1, 1, 1000)[0];
  m.launch_on("slow_fill", Dim3((n + 127) / 128), Dim3(128), 0, stream, p.get(), n, seed, 20000000);
  std::vector<int> pageable(n, -1);
  cpu().copy(pageable.data(), p.get(), n * sizeof(int), stream, true);
  for (int i = 0; i < n; ++i) ASSERT_EQ(pageable[i], i * 7 + seed) << i;
  // Page-locked memory stays asynchronous: the copy is queued behind the kernel.
  void* pinned = cpu().allocate_pinned(n * sizeof(int));
  m.launch_on("slow_fill", Dim3((n + 127) / 128), Dim3(128), 0, stream, p.get(), n, seed + 1,
              20000000);
  cpu().copy(pinned, p.get(), n * sizeof(int), stream, true);
  EXPECT_FALSE(cpu().query_stream(stream));
  cpu().synchronize_stream(stream);
  for (int i = 0; i < n; ++i) ASSERT_EQ(static_cast<int*>(pinned)[i], i * 7 + seed + 1) << i;
  cpu().deallocate_pinned(pinned);
  cpu().destroy_stream(stream);
}

TEST(CpuMemoryGuard, FreeMemoryFollowsAllocationsAndTheLimitIsEnforced) {
  const MemoryInfo before = cpu().memory_info(0);
  EXPECT_EQ(before.total, detail::cpu::DeviceMemory::instance().limit());
  EXPECT_LE(before.free, before.total);
  const std::size_t bytes = std::size_t{64} << 20;
  const detail::DevicePtr p = cpu().allocate(0, bytes);
  const MemoryInfo during = cpu().memory_info(0);
  EXPECT_LE(during.free, before.free - bytes);
  EXPECT_GE(during.free, before.free - bytes - 2 * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
  cpu().deallocate(0, p);
  EXPECT_EQ(cpu().memory_info(0).free, before.free);
  const std::size_t too_much = before.free + (std::size_t{1} << 20);
  try {
    cpu().allocate(0, too_much);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested(), too_much);
    EXPECT_EQ(e.free_bytes(), before.free);
    EXPECT_TRUE(contains(e.what(), "CUDAKIT_CPU_MEMORY")) << e.what();
  }
}

TEST(CpuMemoryGuard, AFailedLaunchLeavesOutHostArraysUntouched) {
  Module mod = compile(R"(
__global__ void fill_then_trap(float* out, int n, int bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 7.0f;
  if (i == bad) __trap();
}
)",
                       {}, Device::get(BackendKind::cpu, 0));
  const int n = 1001;
  std::vector<float> host = random_floats(n);
  const std::vector<float> original = host;
  Kernel k = mod.kernel("fill_then_trap");
  EXPECT_THROW(k.launch(grid_for(n, 128), Out(host), n, 517), KernelFault);
  EXPECT_EQ(host, original);
  k.launch(grid_for(n, 128), Out(host), n, -1);  // no fault: the results arrive
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], 7.0f) << i;
}

}  // namespace
}  // namespace cudakit::test
