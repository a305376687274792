# Compile cache: key, entry format, the two levels, environment, several processes.
cudakit_add_test(cache_key_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_key_test.cpp LABELS unit)
cudakit_add_test(cache_format_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_format_test.cpp LABELS unit)
cudakit_add_test(cache_store_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_store_test.cpp LABELS unit)
cudakit_add_test(cache_settings_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_settings_test.cpp LABELS unit)
cudakit_add_test(cache_concurrency_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_concurrency_test.cpp LABELS unit)
# The cache through cudakit::compile across processes, once per backend.
cudakit_add_test(cache_compile_gpu_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/gpu/cache_compile_test.cpp LABELS gpu)
target_compile_definitions(cache_compile_gpu_test PRIVATE CUDAKIT_CACHE_TEST_BACKEND="cuda"
                                                    CUDAKIT_CACHE_TEST_SUITE=CacheCompileCuda)
cudakit_add_test(cache_compile_cpu_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/gpu/cache_compile_test.cpp LABELS unit)
target_compile_definitions(cache_compile_cpu_test PRIVATE CUDAKIT_CACHE_TEST_BACKEND="cpu"
                                                    CUDAKIT_CACHE_TEST_SUITE=CacheCompileCpu)
