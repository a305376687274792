# CUDA arrays and box copies (cuMemcpy3D) on every backend.
cudakit_add_backend_test(cuda_array_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda_array_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda_array_errors_test.cpp)
