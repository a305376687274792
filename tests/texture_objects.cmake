# Texture and surface objects on every backend.
cudakit_add_backend_test(texture_object_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/backends/texture_object_test.cpp)
