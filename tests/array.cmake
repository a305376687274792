# Device arrays: dtypes, views, fused elementwise expressions, ElementwiseKernel.
# The same sources build twice: on the CPU backend (unit) and on the GPU (gpu,
# skipped without one).
cudakit_add_test(array_dtype_test SOURCES unit/array_dtype_test.cpp LABELS unit)
set(_cudakit_array_sources unit/array_view_test.cpp unit/array_expr_test.cpp
                           unit/array_elementwise_kernel_test.cpp)
cudakit_add_test(array_test SOURCES ${_cudakit_array_sources} LABELS unit)
target_compile_definitions(array_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cpu)
cudakit_add_test(array_gpu_test SOURCES ${_cudakit_array_sources} LABELS gpu)
target_compile_definitions(array_gpu_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cuda)
# The generated kernels compile with NVRTC (skipped where NVRTC is missing; needs no GPU).
cudakit_add_test(array_nvrtc_test SOURCES unit/array_nvrtc_test.cpp LABELS unit)
