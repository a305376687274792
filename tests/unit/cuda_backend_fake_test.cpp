// The CUDA backend over a scripted stand-in for libcuda (cuda_fake_driver):
// the backend's own logic, runnable with no GPU. What the real driver does is
// covered by the gpu-labelled tests.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "cudakit/error.hpp"
#include "unit/cuda_fake_driver.hpp"
#include "unit/cuda_fake_selected.hpp"
#include "unit/cuda_test_util.hpp"

namespace cudakit {
namespace {

using test::contains;

FakeCudaControl& fake() { return test::fake_control(); }

void reset_fake() {
  void* handle = ::dlopen(CUDAKIT_TEST_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
  reinterpret_cast<void (*)()>(::dlsym(handle, "fake_cuda_reset"))();
}

CompiledCode fake_cubin() {
  CompiledCode code;
  code.format = CodeFormat::cubin;
  code.arch = "sm_90";
  code.image = {0x7f, 'E', 'L', 'F', 0, 0, 0, 0};
  return code;
}

class CudaBackendFake : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test::fake_libcuda_selected);
    reset_fake();
  }
  void** no_args() { return nullptr; }
  detail::CudaBackend backend;
};

TEST_F(CudaBackendFake, NoDeviceFromCuInitMeansZeroDevicesNotAnError) {
  fake().init_result = CUDA_ERROR_NO_DEVICE;
  EXPECT_EQ(backend.device_count(), 0);
  EXPECT_THROW(backend.make_current(0), ArgumentError);
}

TEST_F(CudaBackendFake, FailedCuInitIsACudaErrorEveryTime) {
  fake().init_result = CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      backend.device_count();
      FAIL() << "expected CudaError";
    } catch (const CudaError& e) {
      EXPECT_EQ(e.code_name(), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
      EXPECT_TRUE(contains(e.hint(), "reinstall")) << e.hint();
      EXPECT_TRUE(contains(e.context(), "cuInit")) << e.context();
    }
  }
}

TEST_F(CudaBackendFake, PrimaryContextIsRetainedOnceAndSetOnlyWhenNotCurrent) {
  for (int i = 0; i < 100; ++i) backend.make_current(0);
  EXPECT_EQ(fake().retain_calls.load(), 1);
  EXPECT_EQ(fake().set_current_calls.load(), 1);
  EXPECT_EQ(backend.current_device(), 0);
  backend.make_current(1);
  EXPECT_EQ(backend.current_device(), 1);
  backend.make_current(0);
  EXPECT_EQ(fake().retain_calls.load(), 2);
  EXPECT_EQ(fake().set_current_calls.load(), 3);
}

TEST_F(CudaBackendFake, EachThreadMakesItsOwnContextCurrent) {
  backend.make_current(1);
  std::thread worker([&] {
    EXPECT_EQ(backend.current_device(), 0) << "no context is current on a new thread";
    backend.make_current(1);
    EXPECT_EQ(backend.current_device(), 1);
  });
  worker.join();
  EXPECT_EQ(fake().retain_calls.load(), 1);
}

TEST_F(CudaBackendFake, BadOrdinalIsAnArgumentErrorSayingHowManyExist) {
  try {
    backend.properties(5);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.what(), "2 device(s)")) << e.what();
  }
  EXPECT_THROW(backend.allocate(-1, 16), ArgumentError);
}

TEST_F(CudaBackendFake, PeerAccessIsAskedOfTheDriverForTwoDevices) {
  EXPECT_TRUE(backend.can_access_peer(0, 1));
  EXPECT_TRUE(backend.can_access_peer(1, 0));
  EXPECT_FALSE(backend.can_access_peer(1, 1));  // not asked: a device and itself
  EXPECT_THROW(backend.can_access_peer(0, 2), ArgumentError);
}

TEST_F(CudaBackendFake, PropertiesComeFromAttributes) {
  DeviceProperties p = backend.properties(1);
  EXPECT_EQ(p.name, "Fake GPU 1");
  EXPECT_EQ(p.compute_major, 9);
  EXPECT_EQ(p.multiprocessor_count, 132);
  EXPECT_EQ(p.max_block_dim, Dim3(1024, 1024, 64));
  EXPECT_EQ(p.shared_memory_per_block_optin, 227u * 1024u);
  EXPECT_EQ(p.total_memory, fake().total_bytes);
  EXPECT_EQ(p.pci_bus_id, "0000:01:00.0");
  EXPECT_TRUE(p.unified_addressing);
  EXPECT_EQ(backend.default_arch(1), "sm_90");
  EXPECT_EQ(backend.attribute(0, DeviceAttribute::warp_size), 32);
}

TEST_F(CudaBackendFake, AllocationBeyondFreeMemoryIsOutOfMemoryWithTheFigures) {
  const std::size_t ten_tb = std::size_t(10) << 40;
  try {
    backend.allocate(0, ten_tb);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested(), ten_tb);
    EXPECT_EQ(e.free_bytes(), fake().free_bytes);
    EXPECT_EQ(e.total_bytes(), fake().total_bytes);
    EXPECT_EQ(e.code_name(), "CUDA_ERROR_OUT_OF_MEMORY");
    EXPECT_TRUE(contains(e.context(), "device 0")) << e.context();
  }
}

TEST_F(CudaBackendFake, ZeroBytesAllocateNothing) {
  EXPECT_EQ(backend.allocate(0, 0), 0u);
  backend.deallocate(0, 0);
}

TEST_F(CudaBackendFake, CopyAndFillGoThroughTheDriver) {
  const std::size_t n = 1001;
  auto ptr = backend.allocate(0, n * 4);
  std::vector<std::uint32_t> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
  backend.copy(reinterpret_cast<void*>(ptr), host.data(), n * 4, nullptr, false);
  std::vector<std::uint32_t> back(n);
  backend.copy(back.data(), reinterpret_cast<void*>(ptr), n * 4, nullptr, false);
  EXPECT_EQ(back, host);
  backend.fill(ptr, 0xABCDu, 2, n * 2, nullptr, false);
  backend.copy(back.data(), reinterpret_cast<void*>(ptr), n * 4, nullptr, false);
  EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](auto v) { return v == 0xABCDABCDu; }));
  EXPECT_THROW(backend.fill(ptr, 0, 3, 1, nullptr, false), ArgumentError);
  backend.deallocate(0, ptr);
}

TEST_F(CudaBackendFake, CopyOnAThreadWithoutContextUsesDeviceZero) {
  std::thread worker([&] {
    int in = 5, out = 0;
    backend.copy(&out, &in, sizeof in, nullptr, false);
    EXPECT_EQ(out, 5);
    EXPECT_EQ(backend.current_device(), 0);
  });
  worker.join();
}

TEST_F(CudaBackendFake, FaultSurfacingAtStreamSyncNamesTheKernelOnThatStream) {
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* vec_add = backend.get_kernel(module, "vec_add");
  void* faulty = backend.get_kernel(module, "faulty");
  void* stream = backend.create_stream(0, true);
  void* other = backend.create_stream(0, true);
  backend.launch(vec_add, "vec_add", Dim3(4), Dim3(256), 0, other, no_args());
  backend.launch(faulty, "faulty<float>", Dim3(4), Dim3(256), 0, stream, no_args());
  try {
    backend.synchronize_stream(stream);
    FAIL() << "expected KernelFault";
  } catch (const KernelFault& e) {
    EXPECT_EQ(e.kernels(), (std::vector<std::string>{"faulty<float>"}));
    EXPECT_EQ(e.code_name(), "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_TRUE(contains(e.what(), "faulty<float>")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_CPU_DEBUG=1")) << e.hint();
  }
  // Where no stream is known, the latest launches anywhere are named.
  try {
    backend.synchronize(0);
    FAIL() << "expected KernelFault";
  } catch (const KernelFault& e) {
    EXPECT_EQ(e.kernels().front(), "faulty<float>");
    EXPECT_NE(std::find(e.kernels().begin(), e.kernels().end(), "vec_add"), e.kernels().end());
  }
  // And a copy reports it too.
  int value = 0;
  EXPECT_THROW(backend.copy(&value, &value, sizeof value, stream, false), KernelFault);
  backend.destroy_stream(stream);
  backend.destroy_stream(other);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, OversizedBlockIsALaunchConfigErrorNamingTheLimit) {
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  try {
    backend.launch(kernel, "vec_add", Dim3(1), Dim3(2048), 0, nullptr, no_args());
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.limit(), "max threads per block");
    EXPECT_EQ(e.requested(), 2048);
    EXPECT_EQ(e.device_value(), 1024);
    EXPECT_TRUE(contains(e.context(), "vec_add")) << e.context();
    EXPECT_TRUE(contains(e.context(), "2048x1x1")) << e.context();
  }
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, TooMuchDynamicSharedMemoryIsALaunchConfigError) {
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  try {
    backend.launch(kernel, "vec_add", Dim3(1), Dim3(128), 1u << 20, nullptr, no_args());
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.limit(), "dynamic shared memory per block");
    EXPECT_EQ(e.requested(), 1 << 20);
    EXPECT_EQ(e.device_value(), 48 * 1024);
  }
  backend.set_max_dynamic_shared_memory(kernel, 100 * 1024);
  EXPECT_NO_THROW(
      backend.launch(kernel, "vec_add", Dim3(1), Dim3(128), 100 * 1024, nullptr, no_args()));
  try {
    backend.set_max_dynamic_shared_memory(kernel, 1u << 20);
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.device_value(), 227 * 1024);
  }
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, EmptyGridIsALaunchConfigError) {
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  EXPECT_THROW(backend.launch(kernel, "vec_add", Dim3(0), Dim3(128), 0, nullptr, no_args()),
               LaunchConfigError);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, LaunchDoesNotTouchTheContext) {
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  const int before = fake().set_current_calls.load();
  for (int i = 0; i < 1000; ++i)
    backend.launch(kernel, "vec_add", Dim3(8), Dim3(256), 0, nullptr, no_args());
  EXPECT_EQ(fake().set_current_calls.load(), before);
  EXPECT_EQ(fake().launches.load(), 1000);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, CooperativeLaunchUsesCuLaunchCooperativeKernel) {
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  // 2048 / 256 resident blocks per multiprocessor, 132 multiprocessors.
  EXPECT_EQ(backend.max_cooperative_grid_blocks(0, kernel, 256, 0), 8 * 132);
  backend.launch_cooperative(kernel, "vec_add", Dim3(8 * 132), Dim3(256), 0, nullptr, no_args());
  EXPECT_EQ(fake().cooperative_launches.load(), 1);
  try {
    backend.launch_cooperative(kernel, "vec_add", Dim3(8 * 132 + 1), Dim3(256), 0, nullptr,
                               no_args());
    FAIL() << "the driver's refusal was not reported";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.device_value(), 8 * 132);
    EXPECT_EQ(e.requested(), 8 * 132 + 1);
  }
  EXPECT_EQ(fake().cooperative_launches.load(), 1);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, LaunchOnAThreadWithoutContextAdoptsTheOnlyRetainedOne) {
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  std::thread worker([&] {
    EXPECT_NO_THROW(backend.launch(kernel, "vec_add", Dim3(1), Dim3(32), 0, nullptr, no_args()));
    EXPECT_EQ(backend.current_device(), 0);
  });
  worker.join();
  EXPECT_EQ(fake().launches.load(), 1);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, LaunchWithoutContextAmongSeveralDevicesSaysWhatToDo) {
  backend.make_current(1);
  backend.make_current(0);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  std::thread worker([&] {
    try {
      backend.launch(kernel, "vec_add", Dim3(1), Dim3(32), 0, nullptr, no_args());
      ADD_FAILURE() << "expected CudaError";
    } catch (const CudaError& e) {
      EXPECT_TRUE(contains(e.message(), "no CUDA context is current")) << e.what();
      EXPECT_TRUE(contains(e.hint(), "make_current")) << e.hint();
    }
  });
  worker.join();
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, WrongArchImageIsNoKernelImageNamingBothArchs) {
  fake().module_load_result = CUDA_ERROR_NO_BINARY_FOR_GPU;
  fake().compute_major = 8;
  CompiledCode code = fake_cubin();
  try {
    backend.load_module(0, code);
    FAIL() << "expected NoKernelImage";
  } catch (const NoKernelImage& e) {
    EXPECT_TRUE(contains(e.what(), "sm_90")) << e.what();
    EXPECT_TRUE(contains(e.what(), "sm_80")) << e.what();
  }
}

TEST_F(CudaBackendFake, PtxTooNewForTheDriverIsDriverTooOld) {
  fake().module_load_result = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  fake().driver_version = 12040;
  CompiledCode code;
  code.format = CodeFormat::ptx;
  code.arch = "compute_90";
  code.ptx = ".version 9.0\n.target sm_90\n.address_size 64\n";
  code.image.assign(code.ptx.begin(), code.ptx.end());
  code.image.push_back(0);
  try {
    backend.load_module(0, code);
    FAIL() << "expected DriverTooOld";
  } catch (const DriverTooOld& e) {
    EXPECT_EQ(e.driver_version(), 12040);
    EXPECT_EQ(e.required_version(), 13000);
    EXPECT_TRUE(contains(e.what(), "12.4")) << e.what();
    EXPECT_TRUE(contains(e.what(), "13.0")) << e.what();
  }
}

TEST_F(CudaBackendFake, MissingKernelListsTheModulesKernels) {
  void* module = backend.load_module(0, fake_cubin());
  try {
    backend.get_kernel(module, "vec_sub");
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.what(), "vec_add, faulty, busy")) << e.what();
  }
  EXPECT_EQ(backend.kernel_symbols(module),
            (std::vector<std::string>{"vec_add", "faulty", "busy"}));
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, LayoutWithoutPtxComesFromParamInfo) {
  void* module = backend.load_module(0, fake_cubin());
  ParamLayout layout = backend.param_layout(module, "vec_add");
  ASSERT_EQ(layout.params.size(), 4u);
  EXPECT_EQ(layout.params[0].kind, ParamKind::pointer_or_u64);
  EXPECT_EQ(layout.params[3].size, 4u);
  EXPECT_EQ(layout.params[3].offset, 24u);
  EXPECT_EQ(layout.params[3].align, 4u);
  EXPECT_EQ(layout.params[3].kind, ParamKind::aggregate);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, LayoutWithPtxComesFromTheEntry) {
  CompiledCode code = fake_cubin();
  code.ptx = ".visible .entry vec_add(\n.param .u64 a,\n.param .f64 x,\n.param .u32 n\n)\n{ret;}\n";
  fake().has_param_info = false;  // the PTX must be enough
  void* module = backend.load_module(0, code);
  ParamLayout layout = backend.param_layout(module, "vec_add");
  ASSERT_EQ(layout.params.size(), 3u);
  EXPECT_EQ(layout.params[1].scalar, ScalarType::f64);
  EXPECT_EQ(layout.params[2].offset, 16u);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, GlobalsAreFoundOrNamedAsMissing) {
  void* module = backend.load_module(0, fake_cubin());
  auto [ptr, size] = backend.get_global(module, "counter");
  EXPECT_NE(ptr, 0u);
  EXPECT_EQ(size, sizeof(int));
  EXPECT_THROW(backend.get_global(module, "missing"), ArgumentError);
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, KernelAttributesAndOccupancyAreRead) {
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  KernelAttributes attributes = backend.kernel_attributes(kernel);
  EXPECT_EQ(attributes.registers, 16);
  EXPECT_EQ(attributes.max_threads_per_block, 1024);
  EXPECT_EQ(attributes.binary_version, 90);
  EXPECT_EQ(backend.max_active_blocks_per_multiprocessor(kernel, 256, 0), 8);
  EXPECT_EQ(backend.suggest_block_size(kernel, 0), std::make_pair(264, 1024));
  backend.unload_module(module);
}

TEST_F(CudaBackendFake, EventsWithoutTimingCannotBeTimed) {
  void* start = backend.create_event(0, false);
  void* stop = backend.create_event(0, false);
  backend.record_event(start, nullptr);
  backend.record_event(stop, nullptr);
  EXPECT_THROW(backend.elapsed_ms(start, stop), ArgumentError);
  void* timed_start = backend.create_event(0, true);
  void* timed_stop = backend.create_event(0, true);
  backend.record_event(timed_start, nullptr);
  backend.record_event(timed_stop, nullptr);
  EXPECT_FLOAT_EQ(backend.elapsed_ms(timed_start, timed_stop), 1.5f);
  for (void* event : {start, stop, timed_start, timed_stop}) backend.destroy_event(event);
}

TEST_F(CudaBackendFake, ModuleFromTheCpuBackendIsNotSupported) {
  CompiledCode code = fake_cubin();
  code.format = CodeFormat::host_object;
  EXPECT_THROW(backend.load_module(0, code), NotSupported);
}

TEST_F(CudaBackendFake, HostMemoryIsRegisteredAndUnregisteredThroughTheDriver) {
  std::vector<double> host(1000);
  backend.register_host(host.data(), host.size() * sizeof(double), 0);
  EXPECT_EQ(fake().live_host_registrations, 1);
  EXPECT_EQ(backend.host_device_pointer(host.data()),
            reinterpret_cast<detail::DevicePtr>(host.data()));
  try {
    backend.register_host(host.data(), 8, 0);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.what(), "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED")) << e.what();
  }
  backend.unregister_host(host.data());
  EXPECT_EQ(fake().live_host_registrations, 0);
  try {
    backend.unregister_host(host.data());
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_TRUE(contains(e.what(), "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED")) << e.what();
  }
}

TEST_F(CudaBackendFake, CachePreferencesReachTheDriver) {
  backend.set_cache_preference(0, CachePreference::prefer_shared);
  EXPECT_EQ(fake().context_cache_config, CU_FUNC_CACHE_PREFER_SHARED);
  EXPECT_EQ(backend.cache_preference(0), CachePreference::prefer_shared);
  backend.set_shared_memory_bank_size(0, SharedMemoryBankSize::eight_bytes);
  EXPECT_EQ(fake().context_shared_config, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE);
  EXPECT_EQ(backend.shared_memory_bank_size(0), SharedMemoryBankSize::eight_bytes);
  void* module = backend.load_module(0, fake_cubin());
  void* kernel = backend.get_kernel(module, "vec_add");
  backend.set_kernel_cache_preference(kernel, CachePreference::prefer_l1);
  EXPECT_EQ(fake().last_function_cache_config, CU_FUNC_CACHE_PREFER_L1);
  backend.set_kernel_shared_memory_carveout(kernel, 75);
  EXPECT_EQ(fake().last_function_carveout, 75);
  backend.unload_module(module);
}

}  // namespace
}  // namespace cudakit
