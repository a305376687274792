# Module::load_file's format sniffing. nvcc (when found) makes a cubin, a
# fatbin and PTX of tests/data/module_sample.cu under misleading names at
# build time; NVRTC and the CPU backend's compiler supply the rest at run time.
cudakit_add_test(module_format_test SOURCES unit/module_format_test.cpp LABELS unit)
cudakit_add_test(module_format_gpu_test SOURCES gpu/module_format_gpu_test.cpp LABELS gpu)

find_program(CUDAKIT_TEST_NVCC nvcc HINTS ${CUDAToolkit_BIN_DIR})
if(CUDAKIT_TEST_NVCC)
  set(_samples ${CMAKE_CURRENT_BINARY_DIR}/module_samples)
  set(_sample_source ${CMAKE_CURRENT_SOURCE_DIR}/data/module_sample.cu)
  add_custom_command(
    OUTPUT ${_samples}/add_one_cubin ${_samples}/add_one_fatbin.dat ${_samples}/add_one_ptx.txt
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_samples}
    COMMAND ${CUDAKIT_TEST_NVCC} -cubin -arch=sm_90 ${_sample_source} -o ${_samples}/add_one_cubin
    COMMAND ${CUDAKIT_TEST_NVCC} -fatbin -gencode arch=compute_90,code=sm_90
            -gencode arch=compute_90,code=compute_90 ${_sample_source}
            -o ${_samples}/add_one_fatbin.dat
    COMMAND ${CUDAKIT_TEST_NVCC} -ptx -arch=sm_90 ${_sample_source} -o ${_samples}/add_one_ptx.txt
    DEPENDS ${_sample_source}
    COMMENT "nvcc: module format samples")
  add_custom_target(cudakit_module_samples
    DEPENDS ${_samples}/add_one_cubin ${_samples}/add_one_fatbin.dat ${_samples}/add_one_ptx.txt)
  foreach(_test module_format_test module_format_gpu_test)
    add_dependencies(${_test} cudakit_module_samples)
    target_compile_definitions(${_test} PRIVATE CUDAKIT_MODULE_SAMPLES="${_samples}")
  endforeach()
endif()
