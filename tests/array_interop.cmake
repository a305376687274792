# Interop hooks of arrays: DLPack and __cuda_array_interface__ export and
# import, and arrays passed to kernels as ArrayView structs. The same sources
# run on the GPU in the gpu-labelled build (skipped where there is none).
cudakit_add_test(array_interop_test
  SOURCES unit/array_interop_test.cpp unit/array_view_arg_test.cpp LABELS unit)
cudakit_add_test(array_interop_gpu_test
  SOURCES unit/array_interop_test.cpp unit/array_view_arg_test.cpp LABELS gpu)
target_compile_definitions(array_interop_gpu_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cuda)
