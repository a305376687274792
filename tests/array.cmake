# Device arrays: dtypes, views, fused elementwise expressions, ElementwiseKernel.
# The backends/ sources run on every backend (cudakit_add_backend_test).
cudakit_add_test(array_dtype_test SOURCES unit/array_dtype_test.cpp LABELS unit)
cudakit_add_backend_test(array_test SOURCES backends/array_view_test.cpp backends/array_expr_test.cpp
                                            backends/array_elementwise_kernel_test.cpp)
# The generated kernels compile with NVRTC (skipped where NVRTC is missing; needs no GPU).
cudakit_add_test(array_nvrtc_test SOURCES unit/array_nvrtc_test.cpp LABELS unit)
