# The kernel generators and scans on any layout: strided ReductionKernel
# arguments, axis scans written in the operand's C order. The generated
# sources compile for a GPU with NVRTC here (unit); the GPU runs are labelled gpu.
cudakit_add_test(array_layout_nvrtc_test SOURCES unit/array_layout_nvrtc_test.cpp LABELS unit)
cudakit_add_test(array_layout_gpu_test SOURCES unit/array_layout_gpu_test.cpp LABELS gpu)
# The generators and scans with operands on several streams, on the CPU
# backend (unit) and on a GPU (gpu, skipped without one).
cudakit_add_test(array_generator_streams_test SOURCES unit/array_generator_streams_test.cpp
                 LABELS unit)
target_compile_definitions(array_generator_streams_test PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cpu)
cudakit_add_test(array_generator_streams_gpu_test SOURCES unit/array_generator_streams_test.cpp
                 LABELS gpu)
target_compile_definitions(array_generator_streams_gpu_test
                           PRIVATE CUDAKIT_ARRAY_TEST_BACKEND=cuda)
