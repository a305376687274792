# Device arrays: dtypes, views, fused elementwise expressions, ElementwiseKernel.
cudakit_add_test(array_dtype_test SOURCES unit/array_dtype_test.cpp LABELS unit)
