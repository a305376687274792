# The kernel generators and scans on any layout: strided ReductionKernel
# arguments, axis scans written in the operand's C order. The generated
# sources compile for a GPU with NVRTC here (unit); the GPU runs are labelled gpu.
cudakit_add_test(array_layout_nvrtc_test SOURCES unit/array_layout_nvrtc_test.cpp LABELS unit)
cudakit_add_test(array_layout_gpu_test SOURCES gpu/array_layout_gpu_test.cpp LABELS gpu)
# The generators and scans with operands on several streams, on every backend.
cudakit_add_backend_test(array_generator_streams_test
  SOURCES backends/array_generator_streams_test.cpp)
