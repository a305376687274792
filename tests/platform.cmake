# Platform loaders and the CUDA backend. Unit tests need NVRTC but no GPU or
# driver; the gpu-labelled ones skip where no CUDA device is present.
set(CUDAKIT_PLATFORM_TEST_INCLUDES ${CUDAToolkit_INCLUDE_DIRS})

cudakit_add_test(platform_loader_test SOURCES unit/platform_loader_test.cpp LABELS unit)
cudakit_add_test(quasi_random_test SOURCES unit/quasi_random_test.cpp LABELS unit)
cudakit_add_test(cuda_compile_test SOURCES unit/cuda_compile_test.cpp LABELS unit)
cudakit_add_test(cuda_ptx_parser_test SOURCES unit/cuda_ptx_parser_test.cpp LABELS unit)
cudakit_add_test(cuda_error_test SOURCES unit/cuda_error_test.cpp LABELS unit)
cudakit_add_test(cuda_backend_test SOURCES gpu/cuda_backend_test.cpp gpu/ipc_memory_gpu_test.cpp
                 LABELS gpu)
# Faults destroy the CUDA context: this one runs alone in its own process.
cudakit_add_test(cuda_fault_test SOURCES gpu/cuda_fault_test.cpp LABELS gpu)

foreach(test_target platform_loader_test cuda_compile_test cuda_ptx_parser_test cuda_error_test
                    cuda_backend_test cuda_fault_test)
  target_include_directories(${test_target} PRIVATE ${CUDAKIT_PLATFORM_TEST_INCLUDES})
endforeach()
# A scripted stand-in for libcuda: the backend's logic without a GPU.
add_library(cuda_fake_driver SHARED unit/cuda_fake_driver.cpp)
target_include_directories(cuda_fake_driver PRIVATE ${PROJECT_SOURCE_DIR}/tests
                                                    ${CUDAKIT_PLATFORM_TEST_INCLUDES})
target_link_libraries(cuda_fake_driver PRIVATE cudakit_warnings)
cudakit_add_test(cuda_backend_fake_test SOURCES unit/cuda_backend_fake_test.cpp LABELS unit)
target_include_directories(cuda_backend_fake_test PRIVATE ${CUDAKIT_PLATFORM_TEST_INCLUDES})
target_compile_definitions(cuda_backend_fake_test PRIVATE
  CUDAKIT_TEST_FAKE_LIBCUDA="$<TARGET_FILE:cuda_fake_driver>")
add_dependencies(cuda_backend_fake_test cuda_fake_driver)

# The toolkit's stub libcuda: every driver symbol, no driver behind them.
target_compile_definitions(platform_loader_test PRIVATE
  CUDAKIT_TEST_CUDA_STUB="${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so")

# One search plan for library, doctor and bench: the test compiles doctor's
# probes and the compile benchmark in.
cudakit_add_test(library_search_test
  SOURCES unit/library_search_test.cpp ${PROJECT_SOURCE_DIR}/tools/probe/cuda_probe.cpp
          ${PROJECT_SOURCE_DIR}/bench/compile_bench.cpp
  LABELS unit)
target_include_directories(library_search_test PRIVATE ${CUDAKIT_PLATFORM_TEST_INCLUDES}
                                                       ${PROJECT_SOURCE_DIR}/tools
                                                       ${PROJECT_SOURCE_DIR}/bench)
