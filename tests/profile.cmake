# Profiling: ProfileSession on every backend (tables, GB/s of array
# expressions, traces), NVTX ranges seen through a fake injection library,
# and `cudakit profile -- CMD...` on a small program.
cudakit_add_backend_test(profile_session_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backends/profile_session_test.cpp)
