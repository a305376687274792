# Device arrays: dtypes, Array and its views, fused elementwise expressions.
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/dtype.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scalar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/expr_types.cpp
)
