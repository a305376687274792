# Complex math, integer powers and norm orders of device arrays, on every
# backend, since the device math library can differ from the host's.
cudakit_add_backend_test(array_complex_math_test SOURCES backends/array_complex_math_test.cpp)
cudakit_add_backend_test(array_norm_test SOURCES backends/array_norm_test.cpp)
