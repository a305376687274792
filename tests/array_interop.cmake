# Interop hooks of arrays: DLPack and __cuda_array_interface__ export and
# import, and arrays passed to kernels as ArrayView structs, on every backend.
cudakit_add_backend_test(array_interop_test
  SOURCES backends/array_interop_test.cpp backends/array_view_arg_test.cpp)
