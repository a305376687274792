# Compile cache: key, entry format, the two levels, environment, several processes.
cudakit_add_test(cache_key_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_key_test.cpp LABELS unit)
cudakit_add_test(cache_format_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_format_test.cpp LABELS unit)
cudakit_add_test(cache_store_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_store_test.cpp LABELS unit)
cudakit_add_test(cache_settings_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_settings_test.cpp LABELS unit)
cudakit_add_test(cache_concurrency_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cache_concurrency_test.cpp LABELS unit)
# The cache through cudakit::compile across processes, on every backend.
cudakit_add_backend_test(cache_compile_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backends/cache_compile_test.cpp)
