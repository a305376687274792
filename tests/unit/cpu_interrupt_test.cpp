// A host thread waiting for an endless CPU-backend kernel can be interrupted
// (the installed WaitInterruptCheck throws): the wait ends with the check's
// exception, the kernel is stopped and its launch fails with a KernelFault,
// and the backend goes on. A wait that cannot throw (freeing memory) ends
// too. A process forked after the backend started gets a clear error at
// its first call, not a hang, and exits cleanly.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cpu_test_util.hpp"
#include "cudakit/error.hpp"
#include "cudakit/wait_interrupt.hpp"

namespace cudakit::test {
namespace {

const char* kKernels = R"(
__global__ void spin(int* p) {
  while (1) {}
}
__global__ void spin_at_barrier(int* p) {
  for (;;) {
    p[threadIdx.x] += 1;
    __syncthreads();
  }
}
__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
)";

struct Interrupted {};
std::atomic<int> pending_interrupts{0};

void interrupting_check() {
  if (pending_interrupts.load() > 0) {
    pending_interrupts.fetch_sub(1);
    throw Interrupted{};
  }
}

// Installs the check for one test.
struct CheckInstalled {
  CheckInstalled() {
    pending_interrupts = 0;
    set_wait_interrupt_check(&interrupting_check);
  }
  ~CheckInstalled() { set_wait_interrupt_check(nullptr); }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string cancelled_launch_text() {
  try {
    cpu().synchronize_stream(nullptr);
  } catch (const KernelFault& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected the interrupted launch to fail";
  return {};
}

void expect_add_one_works(CpuModuleHandle& m) {
  const int n = 777;
  std::vector<int> host = random_ints<int>(n, -1000, 1000);
  CpuBuffer<int> p(host);
  m.run("add_one", Dim3((n + 127) / 128), Dim3(128), p.get(), n);
  std::vector<int> out = p.to_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], host[i] + 1) << i;
}

void expect_interrupt_stops(CpuModuleHandle& m, const char* kernel, Dim3 grid, Dim3 block) {
  CheckInstalled installed;
  CpuBuffer<int> scratch(1024);
  m.launch_on(kernel, grid, block, 0, nullptr, scratch.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the kernel is running
  pending_interrupts = 1;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(cpu().synchronize(0), Interrupted);
  EXPECT_LT(seconds_since(start), 3.0);
  const std::string what = cancelled_launch_text();
  EXPECT_TRUE(contains(what, "cancelled")) << what;
  EXPECT_TRUE(contains(what, kernel)) << what;
  expect_add_one_works(m);
}

TEST(CpuInterrupt, AnEndlessLoopIsStoppedWhenTheWaitIsInterrupted) {
  CpuModuleHandle m(kKernels);
  // More blocks than threads: some are running, the rest never start.
  expect_interrupt_stops(m, "spin", Dim3(37), Dim3(64));
}

TEST(CpuInterrupt, AnEndlessLoopOfBarriersIsStoppedToo) {
  CpuModuleHandle m(kKernels);
  expect_interrupt_stops(m, "spin_at_barrier", Dim3(5), Dim3(96));
}

TEST(CpuInterrupt, AWaitThatCannotThrowCancelsAndEnds) {
  CpuModuleHandle m(kKernels);
  CheckInstalled installed;
  CpuBuffer<int> scratch(1024);
  const detail::DevicePtr other = cpu().allocate(0, 4096);
  m.launch_on("spin", Dim3(3), Dim3(32), 0, nullptr, scratch.get());
  pending_interrupts = 1;
  const auto start = std::chrono::steady_clock::now();
  cpu().deallocate(0, other);  // waits for queued work, as cuMemFree does
  EXPECT_LT(seconds_since(start), 3.0);
  const std::string what = cancelled_launch_text();
  EXPECT_TRUE(contains(what, "cancelled")) << what;
}

TEST(CpuFork, AChildForkedAfterTheBackendStartedGetsAClearErrorAndExits) {
  CpuModuleHandle m(kKernels);
  std::vector<int> host = random_ints<int>(300, -1000, 1000);
  auto* parents = new CpuBuffer<int>(host);  // freed by the child at its exit, and here
  m.run("add_one", Dim3(3), Dim3(128), parents->get(), 300);
  const pid_t child = fork();
  if (child == 0) {
    int status = 10;
    try {
      cpu().synchronize(0);
      status = 11;  // no error
    } catch (const CudaError& e) {
      const std::string what = e.what();
      status = contains(what, "forked child cannot use it") && contains(what, "'spawn'") ? 0 : 12;
    } catch (...) {
      status = 13;
    }
    try {
      cpu().allocate(0, 64);
      status = status ? status : 14;
    } catch (const CudaError&) {
    }
    delete parents;     // a free in the child: nothing to wait for, no hang
    std::exit(status);  // static destructors run: the backend must not join its threads
  }
  ASSERT_GT(child, 0);
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (seconds_since(start) > 30) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      FAIL() << "the forked child hung";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent is unaffected.
  std::vector<int> out = parents->to_host();
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], host[i] + 1) << i;
  delete parents;
  expect_add_one_works(m);
}

}  // namespace
}  // namespace cudakit::test
