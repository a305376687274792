// The vendor library loaders: where they look, what a missing library says,
// and what a present NVRTC reports. Plans are built from the environment and
// loaded explicitly, so no test poisons the process-wide loaders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "backend/cuda/cuda_backend.hpp"
#include "cudakit/error.hpp"
#include "platform/cublas_library.hpp"
#include "platform/cuda_driver.hpp"
#include "platform/nccl_library.hpp"
#include "platform/nvrtc_library.hpp"
#include "unit/cuda_test_util.hpp"

namespace cudakit {
namespace {

using test::contains;
using test::ScopedEnv;
using test::ScratchDir;

bool lists(const std::vector<std::string>& searched, const std::string& prefix) {
  return std::any_of(searched.begin(), searched.end(),
                     [&](const std::string& entry) { return entry.rfind(prefix, 0) == 0; });
}

TEST(PlatformLoader, LibcudaInEmptyDirectoryThrowsDriverNotFoundListingThePathsTried) {
  ScratchDir empty;
  ScopedEnv env("CUDAKIT_LIBCUDA", empty.str());
  const detail::SearchPlan plan = detail::cuda_driver_search_plan();
  ASSERT_TRUE(plan.explicit_location);
  try {
    detail::load_cuda_driver(plan);
    FAIL() << "expected DriverNotFound";
  } catch (const DriverNotFound& e) {
    EXPECT_TRUE(lists(e.searched(), empty.str() + "/libcuda.so.1")) << e.what();
    EXPECT_TRUE(contains(e.what(), empty.str() + "/libcuda.so.1")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "nvidia-smi")) << e.hint();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_LIBCUDA")) << e.hint();
  }
}

TEST(PlatformLoader, ExplicitLibcudaLocationIsTheOnlyPlaceSearched) {
  ScratchDir empty;
  ScopedEnv env("CUDAKIT_LIBCUDA", empty.str());
  const detail::SearchPlan plan = detail::cuda_driver_search_plan();
  for (const auto& candidate : plan.candidates)
    EXPECT_EQ(candidate.rfind(empty.str() + "/", 0), 0u) << candidate;
}

TEST(PlatformLoader, DefaultLibcudaSearchTriesTheLoaderPathThenDriverDirectories) {
  ScopedEnv env("CUDAKIT_LIBCUDA", std::nullopt);
  const detail::SearchPlan plan = detail::cuda_driver_search_plan();
  EXPECT_FALSE(plan.explicit_location);
  ASSERT_FALSE(plan.candidates.empty());
  EXPECT_EQ(plan.candidates.front(), "libcuda.so.1");
  const std::vector<std::string> expected = {
      "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1",
      "/usr/lib64/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"};
  auto position = plan.candidates.begin();
  for (const auto& path : expected) {
    position = std::find(position, plan.candidates.end(), path);
    EXPECT_NE(position, plan.candidates.end()) << path << " missing or out of order";
  }
}

TEST(PlatformLoader, NvrtcInEmptyDirectoryIsAnErrorNotAFallback) {
  ScratchDir empty;
  ScopedEnv env("CUDAKIT_NVRTC", empty.str());
  const detail::SearchPlan plan = detail::nvrtc_search_plan();
  ASSERT_TRUE(plan.explicit_location);
  for (const auto& candidate : plan.candidates)
    EXPECT_EQ(candidate.rfind(empty.str() + "/", 0), 0u) << candidate;
  try {
    detail::load_nvrtc(plan);
    FAIL() << "expected NvrtcNotFound";
  } catch (const NvrtcNotFound& e) {
    EXPECT_TRUE(lists(e.searched(), empty.str() + "/libnvrtc.so.13")) << e.what();
    EXPECT_TRUE(lists(e.searched(), empty.str() + "/libnvrtc.so.12")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "cuda-nvrtc-13-0")) << e.hint();
    EXPECT_TRUE(contains(e.hint(), "nvidia-cuda-nvrtc")) << e.hint();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_NVRTC")) << e.hint();
  }
}

TEST(PlatformLoader, NvrtcAsAMissingFileIsAnError) {
  ScratchDir dir;
  const std::string file = dir.str() + "/libnvrtc.so.13";
  ScopedEnv env("CUDAKIT_NVRTC", file);
  const detail::SearchPlan plan = detail::nvrtc_search_plan();
  EXPECT_THROW(detail::load_nvrtc(plan), NvrtcNotFound);
}

TEST(PlatformLoader, NvrtcSearchStartsWithCudaPathThenCudaHome) {
  ScopedEnv nvrtc_env("CUDAKIT_NVRTC", std::nullopt);
  ScopedEnv path_env("CUDA_PATH", "/opt/cuda-path");
  ScopedEnv home_env("CUDA_HOME", "/opt/cuda-home");
  const detail::SearchPlan plan = detail::nvrtc_search_plan();
  EXPECT_FALSE(plan.explicit_location);
  ASSERT_GE(plan.candidates.size(), 2u);
  EXPECT_EQ(plan.candidates[0], "/opt/cuda-path/lib64/libnvrtc.so.13");
  auto home = std::find(plan.candidates.begin(), plan.candidates.end(),
                        "/opt/cuda-home/lib64/libnvrtc.so.13");
  auto standard = std::find(plan.candidates.begin(), plan.candidates.end(),
                            "/usr/local/cuda/lib64/libnvrtc.so.13");
  auto loader = std::find(plan.candidates.begin(), plan.candidates.end(), "libnvrtc.so.13");
  EXPECT_LT(home, standard);
  EXPECT_LT(standard, loader);
  EXPECT_NE(loader, plan.candidates.end());
}

TEST(PlatformLoader, NvrtcLoadsAndReportsItsVersionAndArchs) {
  const detail::Nvrtc& api = detail::nvrtc();
  EXPECT_GE(api.major, 11);
  EXPECT_FALSE(api.path.empty());
  ASSERT_FALSE(api.archs.empty());
  EXPECT_TRUE(std::is_sorted(api.archs.begin(), api.archs.end()));
  EXPECT_NE(std::find(api.archs.begin(), api.archs.end(), 90), api.archs.end())
      << "this NVRTC cannot target sm_90";
}

TEST(PlatformLoader, NvrtcFindsTheToolkitHeaders) {
  const detail::Nvrtc& api = detail::nvrtc();
  ASSERT_FALSE(api.include_dir.empty());
  EXPECT_TRUE(std::filesystem::exists(api.include_dir + "/cuda_fp16.h")) << api.include_dir;
}

TEST(PlatformLoader, ExplicitNvrtcFileLoadsThatFile) {
  const std::string path = detail::nvrtc().path;
  ScopedEnv env("CUDAKIT_NVRTC", path);
  const detail::Nvrtc api = detail::load_nvrtc(detail::nvrtc_search_plan());
  EXPECT_EQ(std::filesystem::canonical(api.path), std::filesystem::canonical(path));
  EXPECT_EQ(api.major, detail::nvrtc().major);
}

TEST(PlatformLoader, ExplicitNvrtcDirectoryLoadsFromIt) {
  const std::string dir = std::filesystem::path(detail::nvrtc().path).parent_path().string();
  ScopedEnv env("CUDAKIT_NVRTC", dir);
  const detail::Nvrtc api = detail::load_nvrtc(detail::nvrtc_search_plan());
  EXPECT_EQ(std::filesystem::canonical(std::filesystem::path(api.path).parent_path()),
            std::filesystem::canonical(dir));
}

TEST(PlatformLoader, NvrtcErrorNamesAreSymbolic) {
  EXPECT_EQ(detail::nvrtc_error_name(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
  EXPECT_EQ(detail::nvrtc_error_name(NVRTC_ERROR_INVALID_OPTION), "NVRTC_ERROR_INVALID_OPTION");
  EXPECT_STREQ(detail::nvrtc().nvrtcGetErrorString(NVRTC_ERROR_COMPILATION),
               "NVRTC_ERROR_COMPILATION");
}

TEST(PlatformLoader, CublasInEmptyDirectoryThrowsCublasNotFound) {
  ScratchDir empty;
  ScopedEnv env("CUDAKIT_CUBLAS", empty.str());
  try {
    detail::load_cublas(detail::cublas_search_plan());
    FAIL() << "expected CublasNotFound";
  } catch (const CublasNotFound& e) {
    EXPECT_TRUE(lists(e.searched(), empty.str() + "/libcublas.so.13")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_CUBLAS")) << e.hint();
  }
}

TEST(PlatformLoader, CublasLoadsEveryFunctionTheArraysUse) {
  ScopedEnv env("CUDAKIT_CUBLAS", std::nullopt);
  detail::Cublas api;
  try {
    api = detail::load_cublas(detail::cublas_search_plan());
  } catch (const CublasNotFound& e) {
    GTEST_SKIP() << "cuBLAS is not installed here: " << e.what();
  }
  EXPECT_NE(api.cublasCreate_v2, nullptr);
  EXPECT_NE(api.cublasDestroy_v2, nullptr);
  EXPECT_NE(api.cublasSetStream_v2, nullptr);
  EXPECT_NE(api.cublasSetMathMode, nullptr);
  EXPECT_NE(api.cublasGemmEx, nullptr);
  EXPECT_NE(api.cublasGemmStridedBatchedEx, nullptr);
  EXPECT_NE(api.cublasGetVersion_v2, nullptr);
  EXPECT_FALSE(api.path.empty());
}

TEST(PlatformLoader, NcclInEmptyDirectoryThrowsNcclNotFound) {
  ScratchDir empty;
  ScopedEnv env("CUDAKIT_NCCL", empty.str());
  try {
    detail::load_nccl(detail::nccl_search_plan());
    FAIL() << "expected NcclNotFound";
  } catch (const NcclNotFound& e) {
    EXPECT_TRUE(lists(e.searched(), empty.str() + "/libnccl.so.2")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_NCCL")) << e.hint();
    EXPECT_TRUE(contains(e.hint(), "libnccl2")) << e.hint();
  }
}

TEST(PlatformLoader, NcclAtAMissingFileNamesThatFile) {
  ScopedEnv env("CUDAKIT_NCCL", "/nonexistent/libnccl.so.2");
  try {
    detail::load_nccl(detail::nccl_search_plan());
    FAIL() << "expected NcclNotFound";
  } catch (const NcclNotFound& e) {
    EXPECT_TRUE(contains(e.what(), "/nonexistent/libnccl.so.2")) << e.what();
    EXPECT_TRUE(contains(e.hint(), "CUDAKIT_NCCL is set")) << e.hint();
  }
}

// Loading NCCL and asking its version needs no GPU.
TEST(PlatformLoader, NcclLoadsEveryFunctionCommunicatorsUse) {
  ScopedEnv env("CUDAKIT_NCCL", std::nullopt);
  detail::Nccl api;
  try {
    api = detail::load_nccl(detail::nccl_search_plan());
  } catch (const NcclNotFound& e) {
    GTEST_SKIP() << "NCCL is not installed here: " << e.what();
  }
  EXPECT_NE(api.ncclCommInitRank, nullptr);
  EXPECT_NE(api.ncclAllReduce, nullptr);
  EXPECT_NE(api.ncclSend, nullptr);
  EXPECT_NE(api.ncclGroupEnd, nullptr);
  EXPECT_GE(api.version, 21900) << api.path;
  EXPECT_FALSE(api.path.empty());
  EXPECT_TRUE(contains(api.ncclGetErrorString(ncclInvalidArgument), "invalid argument"));
  EXPECT_EQ(detail::nccl_result_name(ncclRemoteError), "ncclRemoteError");
}

TEST(PlatformLoader, CuResultsAreNamedWithoutADriver) {
  EXPECT_EQ(detail::cu_error_name(CUDA_ERROR_ILLEGAL_ADDRESS), "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(detail::cu_error_name(CUDA_ERROR_OUT_OF_MEMORY), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(detail::cu_error_name(CUDA_ERROR_NO_BINARY_FOR_GPU), "CUDA_ERROR_NO_BINARY_FOR_GPU");
  EXPECT_FALSE(detail::cu_error_string(CUDA_ERROR_ILLEGAL_ADDRESS).empty());
  EXPECT_TRUE(contains(detail::cu_error_name(static_cast<CUresult>(123456)), "123456"));
}

// In a child process, so the process-wide driver loader stays untouched here.
TEST(PlatformLoaderDeathTest, CudaBackendWithoutDriverThrowsDriverNotFoundOnFirstDeviceCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ScratchDir empty;
        ::setenv("CUDAKIT_LIBCUDA", empty.str().c_str(), 1);
        auto backend = detail::make_cuda_backend();  // creating it needs no driver
        try {
          backend->device_count();
        } catch (const DriverNotFound& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(0);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "libcuda.so.1");
}

TEST(PlatformLoader, EveryDriverSymbolResolvesUnderTheNameCudaHMapsItTo) {
  if (!std::filesystem::exists(CUDAKIT_TEST_CUDA_STUB))
    GTEST_SKIP() << "the toolkit's stub libcuda is not installed";
  detail::SearchPlan plan;
  plan.candidates = {CUDAKIT_TEST_CUDA_STUB};
  const detail::CudaDriver driver = detail::load_cuda_driver(plan);  // throws if any is missing
  EXPECT_NE(driver.cuMemAlloc, nullptr);
  EXPECT_NE(driver.cuEventElapsedTime, nullptr);
  EXPECT_NE(driver.cuModuleEnumerateFunctions, nullptr);
  EXPECT_NE(driver.cuFuncGetParamInfo, nullptr);
  EXPECT_NE(driver.cuFuncGetName, nullptr);
}

TEST(PlatformLoaderDeathTest, StubLibcudaIsReportedAsTheStubNotAsADriver) {
  if (!std::filesystem::exists(CUDAKIT_TEST_CUDA_STUB))
    GTEST_SKIP() << "the toolkit's stub libcuda is not installed";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("CUDAKIT_LIBCUDA", CUDAKIT_TEST_CUDA_STUB, 1);
        auto backend = detail::make_cuda_backend();
        try {
          backend->device_count();
        } catch (const CudaError& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(e.code_name() == "CUDA_ERROR_STUB_LIBRARY" ? 0 : 2);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "stub");
}

TEST(PlatformLoader, LocationThatIsAFileIsTriedAsItIs) {
  detail::SearchPlan plan;
  detail::append_location(plan, "/some/where/libfoo.so.7", {"libfoo.so.1", "libfoo.so"});
  ASSERT_EQ(plan.candidates.size(), 1u);
  EXPECT_EQ(plan.candidates[0], "/some/where/libfoo.so.7");
}

TEST(PlatformLoader, LocationThatIsADirectoryContributesEverySoname) {
  ScratchDir dir;
  detail::SearchPlan plan;
  detail::append_location(plan, dir.str() + "/", {"libfoo.so.1", "libfoo.so"});
  ASSERT_EQ(plan.candidates.size(), 2u);
  EXPECT_EQ(plan.candidates[0], dir.str() + "/libfoo.so.1");
  EXPECT_EQ(plan.candidates[1], dir.str() + "/libfoo.so");
}

}  // namespace
}  // namespace cudakit
