# Arrays on several streams and the memory pool across streams, on every
# backend; the GPU-only cases (eight producer streams, ...) in their own program.
cudakit_add_backend_test(array_streams_test
  SOURCES backends/array_streams_test.cpp backends/memory_pool_streams_test.cpp)
cudakit_add_test(array_streams_gpu_test SOURCES gpu/array_streams_gpu_test.cpp LABELS gpu)
