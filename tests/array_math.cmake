# Complex math, integer powers and norm orders of device arrays. Each source
# builds twice: on the CPU backend (unit) and on the GPU (gpu, skipped
# without one), since the device math library can differ from the host's.
foreach(_cudakit_math_test array_complex_math_test array_norm_test)
  cudakit_add_test(${_cudakit_math_test} SOURCES unit/${_cudakit_math_test}.cpp LABELS unit)
  target_compile_definitions(${_cudakit_math_test} PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cpu)
  string(REPLACE "_test" "_gpu_test" _cudakit_math_gpu_test ${_cudakit_math_test})
  cudakit_add_test(${_cudakit_math_gpu_test} SOURCES unit/${_cudakit_math_test}.cpp LABELS gpu)
  target_compile_definitions(${_cudakit_math_gpu_test} PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cuda)
endforeach()
