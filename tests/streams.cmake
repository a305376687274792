# Arrays on several streams and the memory pool across streams. The shared
# sources build twice: on the CPU backend (unit) and on the GPU (gpu, skipped
# without one).
set(_cudakit_streams_sources unit/array_streams_test.cpp unit/memory_pool_streams_test.cpp)
cudakit_add_test(array_streams_test SOURCES ${_cudakit_streams_sources} LABELS unit)
target_compile_definitions(array_streams_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cpu)
cudakit_add_test(array_streams_gpu_test
  SOURCES ${_cudakit_streams_sources} gpu/array_streams_gpu_test.cpp LABELS gpu)
target_compile_definitions(array_streams_gpu_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cuda)
