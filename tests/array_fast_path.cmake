# The cached fast path of array expression evaluation, on the CPU backend
# (unit) and on the GPU (gpu, skipped without one).
cudakit_add_test(array_fast_path_test SOURCES unit/array_fast_path_test.cpp LABELS unit)
target_compile_definitions(array_fast_path_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cpu)
cudakit_add_test(array_fast_path_gpu_test SOURCES unit/array_fast_path_test.cpp LABELS gpu)
target_compile_definitions(array_fast_path_gpu_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cuda)
