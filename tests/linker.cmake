# Separate compilation: the Linker over the scripted libcuda (unit) and over
# the real driver's linker with device-side launches (gpu).
cudakit_add_test(linker_fake_test SOURCES unit/linker_fake_test.cpp LABELS unit)
target_include_directories(linker_fake_test PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(linker_fake_test PRIVATE
  CUDAKIT_TEST_FAKE_LIBCUDA="$<TARGET_FILE:cuda_fake_driver>")
add_dependencies(linker_fake_test cuda_fake_driver)
cudakit_add_test(linker_gpu_test SOURCES gpu/linker_gpu_test.cpp LABELS gpu)
