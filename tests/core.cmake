# Core API. The unit tests run over a fake backend (tests/unit/core_fake_backend.cpp
# supplies detail::backend()), so they need neither real backend; the backend
# tests run the same checks on every backend (cudakit_add_backend_test).
cudakit_add_test(core_unit_tests
  SOURCES
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_fake_backend.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_kernel_signature_scanner_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_c_types_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/support_include_lines_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_source_text_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_launch_check_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_memory_pool_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_module_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_device_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_compile_test.cpp
  LABELS unit)

cudakit_add_backend_test(core_backend_tests
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/core_backend_test.cpp)
# Registered host memory and cache preferences of contexts and kernels.
cudakit_add_backend_test(host_memory_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/host_memory_test.cpp)
# Managed memory, its attachment to a stream, and address ranges.
cudakit_add_backend_test(managed_memory_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/managed_memory_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/backends/ipc_memory_test.cpp)
# Cooperative launches and the grid barrier (this_grid().sync()).
cudakit_add_backend_test(cooperative_launch_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/cooperative_launch_test.cpp)

cudakit_add_test(core_nvrtc_tests
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/core_nvrtc_test.cpp
  LABELS unit)
# The stand-ins for the standard headers under NVRTC, and the same kernels on
# the CPU backend.
cudakit_add_test(nvrtc_standard_headers_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/nvrtc_standard_headers_test.cpp
  LABELS unit)

# KernelArgs, the run-time built launch, on the CPU backend and on a GPU.
cudakit_add_backend_test(kernel_args_test SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/kernel_args_test.cpp)
# The backend's matrix-product seam (cuBLAS behind the backend interface).
cudakit_add_test(backend_gemm_seam_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/backend_gemm_seam_test.cpp LABELS unit)
