// One search plan for the vendor libraries: the library's loaders, `cudakit
// doctor` (tools/probe) and the compile benchmark's raw-NVRTC baseline all
// look in the same places, in the same order, and all honour CUDAKIT_LIBCUDA,
// CUDAKIT_NVRTC and CUDAKIT_CUBLAS the same way. Plans are loaded explicitly,
// so no test touches the process-wide loaders.
#include "platform/library_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "compile_bench.hpp"
#include "cudakit/error.hpp"
#include "platform/cublas_library.hpp"
#include "platform/cuda_driver.hpp"
#include "platform/nccl_library.hpp"
#include "platform/nvrtc_library.hpp"
#include "probe/cuda_probe.hpp"
#include "unit/cuda_test_util.hpp"

namespace cudakit {
namespace {

using test::ScopedEnv;
using test::ScratchDir;

std::vector<std::string> in_directory(const std::string& dir,
                                      const std::vector<std::string>& sonames) {
  std::vector<std::string> paths;
  for (const auto& soname : sonames) paths.push_back(dir + "/" + soname);
  return paths;
}

TEST(LibrarySearch, LibcudaVariableIsTheOnlyPlaceTheLibraryAndDoctorSearch) {
  ScratchDir empty;
  ScopedEnv libcuda(detail::kLibcudaLocationVariable, empty.str());
  const std::vector<std::string> expected =
      in_directory(empty.str(), detail::cuda_driver_sonames());

  detail::SearchPlan plan = detail::cuda_driver_search_plan();
  EXPECT_TRUE(plan.explicit_location);
  EXPECT_EQ(plan.candidates, expected);

  cli::DriverProbe probe = cli::probe_driver();
  EXPECT_FALSE(probe.loaded);
  EXPECT_TRUE(probe.explicit_location);
  EXPECT_EQ(probe.searched, expected);
  EXPECT_NE(probe.load_error.find(empty.str()), std::string::npos) << probe.load_error;

  try {
    detail::load_cuda_driver(plan);
    FAIL() << "a driver loaded from an empty directory";
  } catch (const DriverNotFound& e) {
    EXPECT_NE(std::string(e.what()).find(expected.front()), std::string::npos) << e.what();
  }
}

TEST(LibrarySearch, WithoutVariablesDoctorSearchesTheLibrarysPlanInItsOrder) {
  ScopedEnv libcuda(detail::kLibcudaLocationVariable, std::nullopt);
  ScopedEnv nvrtc(detail::kNvrtcLocationVariable, std::nullopt);
  detail::SearchPlan driver_plan = detail::cuda_driver_search_plan();
  detail::SearchPlan nvrtc_plan = detail::nvrtc_search_plan();
  EXPECT_FALSE(driver_plan.explicit_location);
  EXPECT_FALSE(nvrtc_plan.explicit_location);
  EXPECT_EQ(cli::probe_driver().searched, driver_plan.candidates);
  EXPECT_EQ(cli::probe_nvrtc().searched, nvrtc_plan.candidates);
  // The loader's own path comes last for NVRTC: a toolkit's copy wins.
  EXPECT_EQ(nvrtc_plan.candidates.back(), detail::nvrtc_sonames().back());
}

TEST(LibrarySearch, NvrtcVariableSelectsTheSameFileForLibraryDoctorAndBench) {
  // Find the NVRTC this machine has, then name it explicitly.
  std::string found;
  {
    ScopedEnv nvrtc(detail::kNvrtcLocationVariable, std::nullopt);
    cli::NvrtcProbe probe = cli::probe_nvrtc();
    if (!probe.loaded) GTEST_SKIP() << "no NVRTC here: " << probe.load_error;
    found = probe.path;
  }
  ScopedEnv nvrtc(detail::kNvrtcLocationVariable, found);
  detail::SearchPlan plan = detail::nvrtc_search_plan();
  EXPECT_TRUE(plan.explicit_location);
  ASSERT_EQ(plan.candidates, std::vector<std::string>{found});

  detail::Nvrtc library = detail::load_nvrtc(plan);
  cli::NvrtcProbe doctor = cli::probe_nvrtc();
  std::string why;
  std::string bench = raw_nvrtc_path(why);
  // The same file (a library already open may be reported by its first name).
  auto same_file = [&](const std::string& path) {
    std::error_code ec;
    return std::filesystem::equivalent(path, found, ec);
  };
  EXPECT_TRUE(same_file(library.path)) << library.path << " vs " << found;
  EXPECT_TRUE(doctor.loaded) << doctor.load_error;
  EXPECT_TRUE(same_file(doctor.path)) << doctor.path << " vs " << found;
  EXPECT_EQ(doctor.searched, plan.candidates);
  EXPECT_TRUE(same_file(bench)) << bench << " vs " << found << ": " << why;
}

TEST(LibrarySearch, NvrtcVariableNamingNothingFailsEverywhereWithoutFallingBack) {
  ScratchDir empty;
  ScopedEnv nvrtc(detail::kNvrtcLocationVariable, empty.str() + "/libnvrtc.so.13");
  detail::SearchPlan plan = detail::nvrtc_search_plan();
  ASSERT_EQ(plan.candidates, std::vector<std::string>{empty.str() + "/libnvrtc.so.13"});
  EXPECT_THROW(detail::load_nvrtc(plan), NvrtcNotFound);
  cli::NvrtcProbe doctor = cli::probe_nvrtc();
  EXPECT_FALSE(doctor.loaded);
  EXPECT_TRUE(doctor.explicit_location);
  EXPECT_EQ(doctor.searched, plan.candidates);
  std::string why;
  EXPECT_EQ(raw_nvrtc_path(why), "");
  EXPECT_NE(why.find(empty.str()), std::string::npos) << why;
}

TEST(LibrarySearch, CublasVariableIsTheOnlyPlaceSearched) {
  ScratchDir empty;
  ScopedEnv cublas(detail::kCublasLocationVariable, empty.str());
  detail::SearchPlan plan = detail::cublas_search_plan();
  EXPECT_TRUE(plan.explicit_location);
  EXPECT_EQ(plan.candidates, in_directory(empty.str(), detail::cublas_sonames()));
  EXPECT_THROW(detail::load_cublas(plan), CublasNotFound);
}

TEST(LibrarySearch, NcclVariableIsTheOnlyPlaceSearched) {
  ScratchDir empty;
  ScopedEnv nccl(detail::kNcclLocationVariable, empty.str());
  detail::SearchPlan plan = detail::nccl_search_plan();
  EXPECT_TRUE(plan.explicit_location);
  EXPECT_EQ(plan.candidates, in_directory(empty.str(), detail::nccl_sonames()));
  EXPECT_THROW(detail::load_nccl(plan), NcclNotFound);
}

TEST(LibrarySearch, NcclIsLookedForInTheToolkitThenOnTheLoaderPath) {
  ScopedEnv nccl(detail::kNcclLocationVariable, std::nullopt);
  ScopedEnv cuda_path("CUDA_PATH", "/opt/toolkit-for-test");
  detail::SearchPlan plan = detail::nccl_search_plan();
  EXPECT_FALSE(plan.explicit_location);
  ASSERT_GE(plan.candidates.size(), 4u);
  EXPECT_EQ(plan.candidates[0], "/opt/toolkit-for-test/lib64/libnccl.so.2");
  EXPECT_EQ(plan.candidates[1], "/opt/toolkit-for-test/lib64/libnccl.so");
  EXPECT_NE(
      std::find(plan.candidates.begin(), plan.candidates.end(), "/usr/local/cuda/lib/libnccl.so.2"),
      plan.candidates.end());
  EXPECT_EQ(plan.candidates[plan.candidates.size() - 2], "libnccl.so.2");
  EXPECT_EQ(plan.candidates.back(), "libnccl.so");
}

}  // namespace
}  // namespace cudakit
