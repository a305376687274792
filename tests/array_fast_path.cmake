# The cached fast path of array expression evaluation, on every backend.
cudakit_add_backend_test(array_fast_path_test SOURCES backends/array_fast_path_test.cpp)
