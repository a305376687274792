# Texture and surface objects on every backend.
cudakit_add_backend_test(texture_object_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/texture_object_test.cpp)
# Texture and surface references (the CPU backend's only: CUDA 12 removed them).
cudakit_add_test(cpu_texture_reference_test SOURCES unit/cpu_texture_reference_test.cpp
  LABELS unit)
# The CPU backend's sampling against a GPU's (needs one).
cudakit_add_test(texture_parity_gpu_test SOURCES gpu/texture_parity_gpu_test.cpp LABELS gpu)
