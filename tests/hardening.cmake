# Hostile and careless input: each defect found by trying to break the API has
# a test here. The array tests build twice: on the CPU backend (unit) and on
# the GPU (gpu, skipped without one).
cudakit_add_test(array_hostile_input_test SOURCES unit/array_hostile_input_test.cpp LABELS unit)
target_compile_definitions(array_hostile_input_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cpu)
cudakit_add_test(array_hostile_input_gpu_test SOURCES unit/array_hostile_input_test.cpp LABELS gpu)
target_compile_definitions(array_hostile_input_gpu_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cuda)
