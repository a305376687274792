# Hostile and careless input: each defect found by trying to break the API has
# a test here, on every backend (cudakit_add_backend_test).
cudakit_add_backend_test(array_hostile_input_test SOURCES backends/array_hostile_input_test.cpp)
