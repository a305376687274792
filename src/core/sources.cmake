list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/backend_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_attribute.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dim3.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
)
# Compile cache: key, settings from the environment, entry format, the two levels.
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/compile_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile_cache_key.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile_cache_settings.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compiled_code_format.cpp
)
