# Profiling: ProfileSession on every backend (tables, GB/s of array
# expressions, traces), NVTX ranges seen through a fake injection library,
# and `cudakit profile -- CMD...` on a small program.
cudakit_add_backend_test(profile_session_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backends/profile_session_test.cpp)

# NVTX ranges through a fake injection library (what a tool like Nsight
# Systems provides), where the build has NVTX.
if(CUDAKIT_NVTX)
  add_library(fake_nvtx_injection SHARED ${CMAKE_CURRENT_LIST_DIR}/unit/nvtx/fake_nvtx_injection.cpp)
  target_include_directories(fake_nvtx_injection SYSTEM PRIVATE ${CUDAKIT_NVTX3_INCLUDE_DIR})
  target_link_libraries(fake_nvtx_injection PRIVATE cudakit_warnings)
  cudakit_add_test(nvtx_ranges_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/nvtx/nvtx_ranges_test.cpp
                   LABELS unit)
  add_dependencies(nvtx_ranges_test fake_nvtx_injection)
  target_compile_definitions(nvtx_ranges_test PRIVATE
    FAKE_NVTX_INJECTION="$<TARGET_FILE:fake_nvtx_injection>")
endif()

# `cudakit profile -- CMD...` on a small program.
add_executable(profile_workload ${CMAKE_CURRENT_LIST_DIR}/profile/profile_workload.cpp)
target_link_libraries(profile_workload PRIVATE cudakit cudakit_warnings)
if(TARGET cudakit_cli)
  cudakit_add_test(profile_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/profile_cli_test.cpp
                   LABELS unit)
  add_dependencies(profile_cli_test cudakit_cli profile_workload)
  target_compile_definitions(profile_cli_test PRIVATE
    PROFILE_WORKLOAD="$<TARGET_FILE:profile_workload>")
endif()

# On a GPU with Nsight Systems: nsys sees the workload's NVTX ranges.
add_test(NAME profile.nsys_nvtx_ranges
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/profile/nsys_ranges.sh $<TARGET_FILE:profile_workload>)
set_tests_properties(profile.nsys_nvtx_ranges PROPERTIES LABELS gpu TIMEOUT 300
                     SKIP_REGULAR_EXPRESSION "SKIPPED")
