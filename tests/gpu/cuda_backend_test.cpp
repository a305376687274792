// The CUDA backend on a real GPU: devices, memory, streams and events,
// modules and launches, and the errors users meet (out of memory, wrong
// arch, oversized blocks). Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "backend/backend.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

const char* const kKernels = R"(
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}
extern "C" __global__ void use_shared(float* out) {
  extern __shared__ float scratch[];
  scratch[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = scratch[blockDim.x - 1 - threadIdx.x];
}
extern "C" __global__ void copy_value(const int* from, int* to) { *to = *from; }
extern "C" __global__ void store_value(int* to, int value) { *to = value; }
extern "C" __device__ int counter;
__device__ int counter = 0;
extern "C" __global__ void bump_counter() { atomicAdd(&counter, 1); }
)";

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> values(n);
  for (auto& v : values) v = dist(rng);
  return values;
}

void* as_ptr(detail::DevicePtr p) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
}

class CudaBackendGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!backend_available(BackendKind::cuda))
      GTEST_SKIP() << "no CUDA device: the driver is missing or reports no GPU";
    b = &detail::backend(BackendKind::cuda);
    b->make_current(0);
  }

  CompiledCode compile(const std::string& arch = {}) {
    detail::CompileRequest request;
    request.source = kKernels;
    request.source_name = "backend_test.cu";
    request.options.arch = arch.empty() ? b->default_arch(0) : arch;
    return b->compile(request);
  }

  // RAII for device memory so failing assertions do not leak.
  struct DeviceMemory {
    detail::Backend* backend;
    detail::DevicePtr ptr;
    ~DeviceMemory() { backend->deallocate(0, ptr); }
  };
  DeviceMemory alloc(std::size_t bytes) { return DeviceMemory{b, b->allocate(0, bytes)}; }

  detail::Backend* b = nullptr;
};

TEST_F(CudaBackendGpu, SeesAtLeastOneDevice) { EXPECT_GE(b->device_count(), 1); }

TEST_F(CudaBackendGpu, PropertiesDescribeTheDevice) {
  DeviceProperties p = b->properties(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.compute_major, 7);
  EXPECT_GT(p.total_memory, std::size_t(1) << 30);
  EXPECT_GT(p.multiprocessor_count, 0);
  EXPECT_EQ(p.max_threads_per_block, 1024);
  EXPECT_EQ(p.max_block_dim, Dim3(1024, 1024, 64));
  EXPECT_EQ(p.max_grid_dim.x, 2147483647u);
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(p.shared_memory_per_block, 48u * 1024u);
  EXPECT_GE(p.shared_memory_per_block_optin, p.shared_memory_per_block);
  EXPECT_TRUE(p.unified_addressing);
  EXPECT_EQ(std::count(p.pci_bus_id.begin(), p.pci_bus_id.end(), ':'), 2)
      << p.pci_bus_id;  // "0000:3b:00.0"
  if (p.name.find("H200") != std::string::npos) {
    EXPECT_EQ(p.compute_major, 9);
    EXPECT_EQ(p.compute_minor, 0);
    EXPECT_EQ(p.multiprocessor_count, 132);
    EXPECT_GT(p.total_memory, std::size_t(140) * 1000 * 1000 * 1000);
    EXPECT_EQ(p.shared_memory_per_block_optin, 227u * 1024u);
  }
}

TEST_F(CudaBackendGpu, AttributesByEnumMatchProperties) {
  DeviceProperties p = b->properties(0);
  EXPECT_EQ(b->attribute(0, DeviceAttribute::multiprocessor_count), p.multiprocessor_count);
  EXPECT_EQ(b->attribute(0, DeviceAttribute::compute_capability_major), p.compute_major);
  EXPECT_EQ(b->attribute(0, DeviceAttribute::warp_size), 32);
  EXPECT_EQ(b->attribute(0, DeviceAttribute::unified_addressing), 1);
}

TEST_F(CudaBackendGpu, BadOrdinalIsAnArgumentError) {
  EXPECT_THROW(b->properties(b->device_count()), ArgumentError);
  EXPECT_THROW(b->attribute(-1, DeviceAttribute::warp_size), ArgumentError);
}

TEST_F(CudaBackendGpu, DefaultArchIsTheDevicesComputeCapability) {
  DeviceProperties p = b->properties(0);
  EXPECT_EQ(b->default_arch(0),
            "sm_" + std::to_string(p.compute_major) + std::to_string(p.compute_minor));
}

TEST_F(CudaBackendGpu, DriverVersionIsCuda12OrNewer) { EXPECT_GE(b->driver_version(), 12000); }

TEST_F(CudaBackendGpu, CurrentDeviceFollowsMakeCurrentOnEveryThread) {
  EXPECT_EQ(b->current_device(), 0);
  std::thread worker([&] {
    b->make_current(0);
    EXPECT_EQ(b->current_device(), 0);
    auto ptr = b->allocate(0, 4096);
    EXPECT_NE(ptr, 0u);
    b->deallocate(0, ptr);
  });
  worker.join();
}

TEST_F(CudaBackendGpu, MemoryInfoIsConsistent) {
  MemoryInfo info = b->memory_info(0);
  EXPECT_GT(info.total, 0u);
  EXPECT_LE(info.free, info.total);
  EXPECT_LE(info.total, b->properties(0).total_memory);
}

TEST_F(CudaBackendGpu, PrintfFifoLimitCanBeRaised) {
  const std::size_t wanted = std::size_t(8) << 20;
  b->set_limit(0, ContextLimit::printf_fifo_size, wanted);
  EXPECT_GE(b->limit(0, ContextLimit::printf_fifo_size), wanted);
  EXPECT_GT(b->limit(0, ContextLimit::stack_size), 0u);
}

TEST_F(CudaBackendGpu, HostDeviceHostRoundTripPreservesData) {
  const std::size_t n = 1000003;
  auto host = random_floats(n, 1);
  auto first = alloc(n * sizeof(float));
  auto second = alloc(n * sizeof(float));
  b->copy(as_ptr(first.ptr), host.data(), n * sizeof(float), nullptr, false);
  b->copy(as_ptr(second.ptr), as_ptr(first.ptr), n * sizeof(float), nullptr, false);
  std::vector<float> back(n, 0.0f);
  b->copy(back.data(), as_ptr(second.ptr), n * sizeof(float), nullptr, false);
  EXPECT_EQ(back, host);
}

TEST_F(CudaBackendGpu, AsyncCopiesThroughPinnedMemoryOnAStream) {
  const std::size_t n = 300007;
  auto values = random_floats(n, 2);
  auto* pinned = static_cast<float*>(b->allocate_pinned(n * sizeof(float)));
  ASSERT_NE(pinned, nullptr);
  std::memcpy(pinned, values.data(), n * sizeof(float));
  auto device = alloc(n * sizeof(float));
  void* stream = b->create_stream(0, true);
  b->copy(as_ptr(device.ptr), pinned, n * sizeof(float), stream, true);
  // Overwrite the source only once the first copy is complete.
  b->synchronize_stream(stream);
  std::memset(pinned, 0, n * sizeof(float));
  b->copy(pinned, as_ptr(device.ptr), n * sizeof(float), stream, true);
  b->synchronize_stream(stream);
  EXPECT_TRUE(b->query_stream(stream));
  EXPECT_EQ(std::memcmp(pinned, values.data(), n * sizeof(float)), 0);
  b->destroy_stream(stream);
  b->deallocate_pinned(pinned);
}

TEST_F(CudaBackendGpu, FillSetsEachElementSize) {
  const std::size_t count = 100003;
  auto device = alloc(count * 4);
  b->fill(device.ptr, 0xA5u, 1, count * 4, nullptr, false);
  std::vector<std::uint8_t> bytes(count * 4);
  b->copy(bytes.data(), as_ptr(device.ptr), bytes.size(), nullptr, false);
  EXPECT_TRUE(std::all_of(bytes.begin(), bytes.end(), [](auto v) { return v == 0xA5; }));

  b->fill(device.ptr, 0xBEEFu, 2, count * 2, nullptr, false);
  std::vector<std::uint16_t> halves(count * 2);
  b->copy(halves.data(), as_ptr(device.ptr), count * 4, nullptr, false);
  EXPECT_TRUE(std::all_of(halves.begin(), halves.end(), [](auto v) { return v == 0xBEEF; }));

  // A 32-bit fill of the middle leaves the ends alone.
  b->fill(device.ptr + 4, 0xDEADBEEFu, 4, count - 2, nullptr, false);
  std::vector<std::uint32_t> words(count);
  b->copy(words.data(), as_ptr(device.ptr), count * 4, nullptr, false);
  EXPECT_EQ(words.front(), 0xBEEFBEEFu);
  EXPECT_EQ(words.back(), 0xBEEFBEEFu);
  EXPECT_TRUE(
      std::all_of(words.begin() + 1, words.end() - 1, [](auto v) { return v == 0xDEADBEEFu; }));
}

TEST_F(CudaBackendGpu, FillWithBadElementSizeIsAnArgumentError) {
  auto device = alloc(64);
  EXPECT_THROW(b->fill(device.ptr, 0, 8, 8, nullptr, false), ArgumentError);
}

TEST_F(CudaBackendGpu, TenTerabyteAllocationIsOutOfMemory) {
  const std::size_t ten_tb = std::size_t(10) << 40;
  try {
    auto ptr = b->allocate(0, ten_tb);
    b->deallocate(0, ptr);
    FAIL() << "a 10 TB allocation succeeded";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested(), ten_tb);
    EXPECT_GT(e.total_bytes(), 0u);
    EXPECT_LE(e.free_bytes(), e.total_bytes());
    EXPECT_EQ(e.code_name(), "CUDA_ERROR_OUT_OF_MEMORY");
  }
  // The context is still fine afterwards.
  auto ok = alloc(1024);
  EXPECT_NE(ok.ptr, 0u);
}

TEST_F(CudaBackendGpu, ZeroByteAllocationIsANullPointer) { EXPECT_EQ(b->allocate(0, 0), 0u); }

TEST_F(CudaBackendGpu, VecAddLaunchedThroughTheBackendMatchesTheCpu) {
  CompiledCode code = compile();
  void* module = b->load_module(0, code);
  void* kernel = b->get_kernel(module, "vec_add");
  const int n = 100003;
  auto ha = random_floats(n, 3), hb = random_floats(n, 4);
  auto da = alloc(n * sizeof(float)), db = alloc(n * sizeof(float)), dc = alloc(n * sizeof(float));
  b->copy(as_ptr(da.ptr), ha.data(), n * sizeof(float), nullptr, false);
  b->copy(as_ptr(db.ptr), hb.data(), n * sizeof(float), nullptr, false);
  void* args[] = {&da.ptr, &db.ptr, &dc.ptr, const_cast<int*>(&n)};
  b->launch(kernel, "vec_add", Dim3((n + 255) / 256), Dim3(256), 0, nullptr, args);
  std::vector<float> hc(n);
  b->copy(hc.data(), as_ptr(dc.ptr), n * sizeof(float), nullptr, false);
  for (int i = 0; i < n; ++i) ASSERT_EQ(hc[i], ha[i] + hb[i]) << "at " << i;
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, PtxModuleIsJitCompiledAndRuns) {
  CompiledCode code = compile("compute_" + b->default_arch(0).substr(3));
  ASSERT_EQ(code.format, CodeFormat::ptx);
  void* module = b->load_module(0, code);
  void* kernel = b->get_kernel(module, "store_value");
  auto out = alloc(sizeof(int));
  int value = 0x1234567;
  void* args[] = {&out.ptr, &value};
  b->launch(kernel, "store_value", Dim3(1), Dim3(1), 0, nullptr, args);
  int back = 0;
  b->copy(&back, as_ptr(out.ptr), sizeof back, nullptr, false);
  EXPECT_EQ(back, value);
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, KernelSymbolsListEveryKernel) {
  void* module = b->load_module(0, compile());
  auto symbols = b->kernel_symbols(module);
  for (const char* name : {"vec_add", "spin", "use_shared", "copy_value", "store_value"})
    EXPECT_NE(std::find(symbols.begin(), symbols.end(), name), symbols.end()) << name;
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, MissingKernelIsAnArgumentErrorNamingTheOthers) {
  void* module = b->load_module(0, compile());
  try {
    b->get_kernel(module, "vec_sub");
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("vec_add"), std::string::npos) << e.what();
  }
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, ParamLayoutFromPtxAndFromTheDriverAgree) {
  CompiledCode code = compile();
  void* with_ptx = b->load_module(0, code);
  ParamLayout from_ptx = b->param_layout(with_ptx, "vec_add");
  code.ptx.clear();  // as a cubin loaded from a file
  void* without_ptx = b->load_module(0, code);
  ParamLayout from_driver = b->param_layout(without_ptx, "vec_add");
  ASSERT_EQ(from_ptx.params.size(), 4u);
  ASSERT_EQ(from_driver.params.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(from_ptx.params[i].size, from_driver.params[i].size) << i;
    EXPECT_EQ(from_ptx.params[i].offset, from_driver.params[i].offset) << i;
  }
  EXPECT_EQ(from_driver.params[0].kind, ParamKind::pointer_or_u64);
  EXPECT_EQ(from_driver.params[3].size, 4u);
  b->unload_module(with_ptx);
  b->unload_module(without_ptx);
}

TEST_F(CudaBackendGpu, KernelAttributesAndOccupancy) {
  void* module = b->load_module(0, compile());
  void* kernel = b->get_kernel(module, "vec_add");
  KernelAttributes attributes = b->kernel_attributes(kernel);
  EXPECT_GT(attributes.registers, 0);
  EXPECT_EQ(attributes.max_threads_per_block, 1024);
  EXPECT_EQ(attributes.binary_version,
            b->properties(0).compute_major * 10 + b->properties(0).compute_minor);
  EXPECT_GT(b->max_active_blocks_per_multiprocessor(kernel, 256, 0), 0);
  auto [min_grid, block] = b->suggest_block_size(kernel, 0);
  EXPECT_GT(min_grid, 0);
  EXPECT_GT(block, 0);
  EXPECT_LE(block, 1024);
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, GlobalVariableIsReadableAndWritable) {
  void* module = b->load_module(0, compile());
  auto [address, size] = b->get_global(module, "counter");
  EXPECT_EQ(size, sizeof(int));
  int start = 41;
  b->copy(as_ptr(address), &start, sizeof start, nullptr, false);
  void* kernel = b->get_kernel(module, "bump_counter");
  b->launch(kernel, "bump_counter", Dim3(3), Dim3(100), 0, nullptr, nullptr);
  int back = 0;
  b->copy(&back, as_ptr(address), sizeof back, nullptr, false);
  EXPECT_EQ(back, 41 + 300);
  EXPECT_THROW(b->get_global(module, "no_such_variable"), ArgumentError);
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, RaisedDynamicSharedMemoryLimitAllowsLargeLaunches) {
  void* module = b->load_module(0, compile());
  void* kernel = b->get_kernel(module, "use_shared");
  const unsigned bytes = 100 * 1024;
  b->set_max_dynamic_shared_memory(kernel, bytes);
  EXPECT_GE(b->kernel_attributes(kernel).max_dynamic_shared_bytes, bytes);
  auto out = alloc(256 * sizeof(float));
  void* args[] = {&out.ptr};
  b->launch(kernel, "use_shared", Dim3(1), Dim3(256), bytes, nullptr, args);
  std::vector<float> back(256);
  b->copy(back.data(), as_ptr(out.ptr), back.size() * sizeof(float), nullptr, false);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(back[i], float(255 - i));
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, OneMegabyteOfDynamicSharedMemoryIsALaunchConfigError) {
  void* module = b->load_module(0, compile());
  void* kernel = b->get_kernel(module, "use_shared");
  auto out = alloc(256 * sizeof(float));
  void* args[] = {&out.ptr};
  try {
    b->launch(kernel, "use_shared", Dim3(1), Dim3(256), 1u << 20, nullptr, args);
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.requested(), 1 << 20);
    EXPECT_NE(std::string(e.what()).find("use_shared"), std::string::npos) << e.what();
  }
  EXPECT_THROW(b->set_max_dynamic_shared_memory(kernel, 1u << 20), LaunchConfigError);
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, BlockOf2048ThreadsIsALaunchConfigError) {
  void* module = b->load_module(0, compile());
  void* kernel = b->get_kernel(module, "store_value");
  auto out = alloc(sizeof(int));
  int value = 1;
  void* args[] = {&out.ptr, &value};
  try {
    b->launch(kernel, "store_value", Dim3(1), Dim3(2048), 0, nullptr, args);
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.limit(), "max threads per block");
    EXPECT_EQ(e.requested(), 2048);
    EXPECT_EQ(e.device_value(), 1024);
  }
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, CubinForAnotherArchIsNoKernelImage) {
  const int major = b->properties(0).compute_major;
  const std::string other = major == 9 ? "sm_80" : "sm_90";
  CompiledCode code = compile(other);
  try {
    // The driver may check the arch at load or, loading lazily, at lookup.
    void* module = b->load_module(0, code);
    b->get_kernel(module, "vec_add");
    b->unload_module(module);
    FAIL() << "a cubin for " << other << " loaded on " << b->default_arch(0);
  } catch (const NoKernelImage& e) {
    EXPECT_NE(std::string(e.what()).find(other), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(b->default_arch(0)), std::string::npos) << e.what();
  }
}

TEST_F(CudaBackendGpu, EventsTimeWorkOnAStream) {
  void* module = b->load_module(0, compile());
  void* kernel = b->get_kernel(module, "spin");
  void* stream = b->create_stream(0, true);
  void* start = b->create_event(0, true);
  void* stop = b->create_event(0, true);
  long long cycles = 20'000'000;  // ~10 ms at H200 clocks
  void* args[] = {&cycles};
  b->record_event(start, stream);
  b->launch(kernel, "spin", Dim3(1), Dim3(1), 0, stream, args);
  b->record_event(stop, stream);
  EXPECT_FALSE(b->query_event(stop)) << "the spin kernel should still be running";
  b->synchronize_event(stop);
  EXPECT_TRUE(b->query_event(stop));
  const float ms = b->elapsed_ms(start, stop);
  EXPECT_GT(ms, 1.0f);
  EXPECT_LT(ms, 1000.0f);
  b->destroy_event(start);
  b->destroy_event(stop);
  b->destroy_stream(stream);
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, EventWithoutTimingCannotBeTimed) {
  void* start = b->create_event(0, false);
  void* stop = b->create_event(0, false);
  b->record_event(start, nullptr);
  b->record_event(stop, nullptr);
  b->synchronize_event(stop);
  EXPECT_THROW(b->elapsed_ms(start, stop), ArgumentError);
  b->destroy_event(start);
  b->destroy_event(stop);
}

TEST_F(CudaBackendGpu, StreamWaitsForAnEventOnAnotherStream) {
  void* module = b->load_module(0, compile());
  void* spin = b->get_kernel(module, "spin");
  void* store = b->get_kernel(module, "store_value");
  void* copy_value = b->get_kernel(module, "copy_value");
  void* producer = b->create_stream(0, true);
  void* consumer = b->create_stream(0, true);
  void* ready = b->create_event(0, false);
  auto source = alloc(sizeof(int)), target = alloc(sizeof(int));
  b->fill(source.ptr, 0, 4, 1, nullptr, false);
  b->fill(target.ptr, 0, 4, 1, nullptr, false);

  long long cycles = 20'000'000;
  int value = 77;
  void* spin_args[] = {&cycles};
  void* store_args[] = {&source.ptr, &value};
  void* copy_args[] = {&source.ptr, &target.ptr};
  b->launch(spin, "spin", Dim3(1), Dim3(1), 0, producer, spin_args);
  b->launch(store, "store_value", Dim3(1), Dim3(1), 0, producer, store_args);
  b->record_event(ready, producer);
  b->stream_wait_event(consumer, ready);
  b->launch(copy_value, "copy_value", Dim3(1), Dim3(1), 0, consumer, copy_args);
  b->synchronize_stream(consumer);
  int back = 0;
  b->copy(&back, as_ptr(target.ptr), sizeof back, nullptr, false);
  EXPECT_EQ(back, 77);
  b->destroy_event(ready);
  b->destroy_stream(producer);
  b->destroy_stream(consumer);
  b->unload_module(module);
}

TEST_F(CudaBackendGpu, SynchronizeDeviceWaitsForAllStreams) {
  void* module = b->load_module(0, compile());
  void* kernel = b->get_kernel(module, "spin");
  void* stream = b->create_stream(0, true);
  long long cycles = 2'000'000;
  void* args[] = {&cycles};
  b->launch(kernel, "spin", Dim3(1), Dim3(1), 0, stream, args);
  b->synchronize(0);
  EXPECT_TRUE(b->query_stream(stream));
  b->destroy_stream(stream);
  b->unload_module(module);
}

}  // namespace
}  // namespace cudakit
