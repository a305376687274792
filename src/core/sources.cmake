list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/backend_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_attribute.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dim3.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
)
